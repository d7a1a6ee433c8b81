package cli_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
)

// TestLookalikeLogins: the second red team's look-alike logins (issue 22,
// item 12) are refused by the registration portal and by account create,
// each with a sentence and no internal package name.
func TestLookalikeLogins(t *testing.T) {
	ts := start(t, func(c *config.Config) {
		c.Limits.RegistrationsPerAddress = config.Rate{Burst: 100, Every: config.Duration{Duration: time.Hour}}
	})
	for _, l := range []string{"demo", "friend", "alice1"} {
		ts.Host(t, "account", "create", "--login", l, "--password", "pw")
	}
	for _, tc := range []struct {
		login   string
		status  int
		errPart string
	}{
		{"demօ", 400, "scripts"},
		{"Ꭰemo", 400, "scripts"},
		{"demo١", 400, "numbering"},
		{"ɑlice1", 409, "looks the same"},
		{"frɩend", 409, "looks the same"},
		{"ᴅᴇᴍᴏ", 409, "looks the same"},
		{"đemo", 409, "looks the same"},
		{"ḍemo", 409, "looks the same"},
		{"de\u200bmo", 400, "invisible"},
		{"\u202edemo", 400, "invisible"},
	} {
		r, err := ts.Client.PostForm(context.Background(), "/portal/register", url.Values{"login": {tc.login}, "password": {"pw"}})
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("%+q: not JSON: %s", tc.login, r.Body)
		}
		if r.Status != tc.status || !strings.Contains(body.Error, tc.errPart) || strings.Contains(body.Error, "login:") {
			t.Errorf("register %+q: %d %q; want %d containing %q", tc.login, r.Status, body.Error, tc.status, tc.errPart)
		}
		code, _, stderr := ts.Run("account", "create", "--login", tc.login, "--password", "pw")
		if code == 0 || !strings.Contains(stderr, tc.errPart) || strings.Contains(stderr, "login:") {
			t.Errorf("account create %+q: exit %d, %q; want a refusal containing %q", tc.login, code, stderr, tc.errPart)
		}
	}
	ts.Host(t, "account", "create", "--login", "josé", "--password", "pw")
}

// TestRegistrationEmail: the portal and account create refuse an e-mail
// that is not a bare address (issue 22, item 13), in their own shapes.
func TestRegistrationEmail(t *testing.T) {
	ts := start(t, nil)
	for i, email := range []string{"x\r\nBcc: y@z", "a\x00b@example.com", "<script>@example.com", "Bob <bob@example.com>"} {
		l := "mailer" + string(rune('a'+i))
		r, err := ts.Client.PostForm(context.Background(), "/portal/register", url.Values{"login": {l}, "password": {"pw"}, "email": {email}})
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || r.Status != 400 || !strings.Contains(body.Error, "plain address") {
			t.Errorf("register with e-mail %+q: %d %s", email, r.Status, r.Body)
		}
		code, _, stderr := ts.Run("account", "create", "--login", l, "--password", "pw", "--email", email)
		if code == 0 || !strings.Contains(stderr, "plain address") || strings.Contains(stderr, "accounts:") {
			t.Errorf("account create with e-mail %+q: exit %d, %q", email, code, stderr)
		}
	}
	ts.Host(t, "account", "create", "--login", "mailer", "--password", "pw", "--email", "mailer@example.com")
}
