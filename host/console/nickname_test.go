package console_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/console"
)

// TestSubAccountNicknameRules: the console's sub-account form is held to
// the nickname rules (it stored a 200,000-character nickname holding LF,
// NUL and U+202E, which game clients then received), and its refusal is a
// sentence.
func TestSubAccountNicknameRules(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c, tok := e.adminAt(t, "/console/account?login=player")
	for name, nick := range map[string]string{
		"long, LF, NUL, U+202E": strings.Repeat("n", 200_000) + "\n\x00\u202e",
		"line feed":             "Sub\nAdmin",
		"bidi":                  "evil\u202etxt",
	} {
		_, page := post(t, c, e.srv.URL+"/console/account/subaccount", url.Values{"csrf": {tok}, "login": {"player"},
			"sub_login": {"nicksub"}, "password": {"pw"}, "nickname": {nick}})
		if _, err := e.sys.DB().LoginID("nicksub"); err == nil {
			t.Fatalf("%s: the sub-account was created", name)
		}
		if !strings.Contains(page, "a nickname is at most 64 characters") || strings.Contains(page, "accounts:") {
			t.Fatalf("%s: the refusal is not the nickname rule's sentence:\n%s", name, page)
		}
	}
	_, page := post(t, c, e.srv.URL+"/console/account/subaccount", url.Values{"csrf": {tok}, "login": {"player"},
		"sub_login": {"nicksub"}, "password": {"pw"}, "nickname": {"Nick Sub"}})
	if _, err := e.sys.DB().LoginID("nicksub"); err != nil || !strings.Contains(page, "sub-account nicksub created") {
		t.Fatalf("a plain nickname: %v\n%s", err, page)
	}
}
