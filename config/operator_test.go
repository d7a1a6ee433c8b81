package config

import (
	"strings"
	"testing"
)

// TestOperatorListenLoopbackOnly: an operator listener off loopback is
// refused at validation, with a sentence that names the way out, unless
// operator.allow_remote says so.
func TestOperatorListenLoopbackOnly(t *testing.T) {
	tests := []struct {
		listen string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:8081", false, true},
		{"127.0.0.2:8081", false, true},
		{"[::1]:8081", false, true},
		{"localhost:8081", false, true},
		{"LOCALHOST:0", false, true},
		{"0.0.0.0:8081", false, false},
		{":8081", false, false},
		{"[::]:8081", false, false},
		{"192.0.2.7:8081", false, false},
		{"ops.example.org:8081", false, false},
		{"0.0.0.0:8081", true, true},
		{":8081", true, true},
		{"192.0.2.7:8081", true, true},
	}
	for _, tt := range tests {
		c := Default()
		c.Operator.Listen, c.Operator.AllowRemote = tt.listen, tt.remote
		err := c.Validate()
		if tt.ok {
			if err != nil {
				t.Errorf("listen %q allow_remote %v: %v", tt.listen, tt.remote, err)
			}
			continue
		}
		ps := Problems(err)
		if len(ps) != 1 || ps[0].Key != "operator.listen" || !strings.Contains(ps[0].Msg, "not a loopback address") ||
			!strings.Contains(ps[0].Msg, "operator.allow_remote = true") {
			t.Errorf("listen %q: %v, want one operator.listen problem naming allow_remote", tt.listen, err)
		}
	}
	// A listener that is off is not checked.
	c := Default()
	c.Operator.Enabled, c.Operator.Listen = false, "0.0.0.0:8081"
	if err := c.Validate(); err != nil {
		t.Errorf("operator off: %v", err)
	}
}

func TestOperatorAndConsoleSettingsValidated(t *testing.T) {
	c := Default()
	c.Operator.TokenFailures = Rate{Burst: -1}
	c.Console.SecureCookie = "yes"
	got := map[string]bool{}
	for _, p := range Problems(c.Validate()) {
		got[p.Key] = true
	}
	for _, k := range []string{"operator.token_failures_per_address.burst", "console.secure_cookie"} {
		if !got[k] {
			t.Errorf("no problem for %s (got %v)", k, got)
		}
	}
	c = Default()
	c.Operator.TokenFailures = Rate{Burst: 3}
	if ps := Problems(c.Validate()); len(ps) != 1 || ps[0].Key != "operator.token_failures_per_address.every" {
		t.Errorf("burst without every: %v", ps)
	}
}

// TestConsoleSecureCookies: "auto" follows server.public_url's scheme.
func TestConsoleSecureCookies(t *testing.T) {
	tests := []struct {
		setting   SecureCookie
		publicURL string
		want      bool
	}{
		{SecureCookieAuto, "", false},
		{SecureCookieAuto, "http://hon.example.org", false},
		{SecureCookieAuto, "https://hon.example.org", true},
		{SecureCookieAuto, "HTTPS://hon.example.org", true},
		{SecureCookieOn, "", true},
		{SecureCookieOn, "http://hon.example.org", true},
		{SecureCookieOff, "https://hon.example.org", false},
	}
	for _, tt := range tests {
		c := Default()
		c.Console.SecureCookie, c.Server.PublicURL = tt.setting, tt.publicURL
		if got := c.ConsoleSecureCookies(); got != tt.want {
			t.Errorf("secure_cookie %q public_url %q: %v, want %v", tt.setting, tt.publicURL, got, tt.want)
		}
	}
}
