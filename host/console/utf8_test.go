package console_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/console"
)

// TestConsoleRefusesTextNotUTF8: a console form field that is not UTF-8
// text (a nickname holding %FF) is refused before anything is stored,
// with a sentence naming the field; the console used to redirect with
// `error=encode "a/": string field contains invalid UTF-8`.
func TestConsoleRefusesTextNotUTF8(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c, tok := e.adminAt(t, "/console/account?login=player")
	for _, tc := range []struct {
		path  string
		form  url.Values
		field string
	}{
		{"/console/account/subaccount", url.Values{"login": {"player"}, "sub_login": {"utfsub"}, "password": {"pw"}, "nickname": {"a\xffb"}}, "nickname"},
		{"/console/account/grant", url.Values{"login": {"player"}, "upgrades": {"aa.Hero\xff.Alt"}}, "upgrades"},
		{"/console/account/password", url.Values{"login": {"player"}, "password": {"pw\xff"}}, "password"},
	} {
		tc.form.Set("csrf", tok)
		_, page := post(t, c, e.srv.URL+tc.path, tc.form)
		_, msg, _ := strings.Cut(page, `id="error">`)
		msg, _, _ = strings.Cut(msg, "</p>")
		if msg != "the field &#34;"+tc.field+"&#34; is not valid UTF-8 text; nothing was changed" {
			t.Errorf("%s: the error shown is %q, not the sentence naming %q", tc.path, msg, tc.field)
		}
	}
	if _, err := e.sys.DB().LoginID("utfsub"); err == nil {
		t.Error("the sub-account was created")
	}
	id, _ := e.sys.DB().LoginID("player")
	if a, err := e.sys.Account(context.Background(), id); err != nil || len(a.Upgrades) != 0 {
		t.Errorf("the grant was applied: %v %v", a.Upgrades, err)
	}
	e.gameLogin(t, "player", "player-pw") // the password is unchanged
}
