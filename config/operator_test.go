package config

import (
	"os"
	"path/filepath"
	"slices"
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

// TestOperatorAllowedHostsValidated: operator.allowed_hosts takes bare
// host names (any case, a final dot) and IP addresses; a URL, a
// host:port, a wildcard, an empty or malformed name or one that is not
// in its ASCII form is refused with a problem naming the entry.
func TestOperatorAllowedHostsValidated(t *testing.T) {
	good := []string{"console.example.org", "Console.Example.ORG.", "localhost", "ops-box", "honmaster_app",
		"xn--bcher-kva.example", "192.0.2.7", "::1", "[2001:db8::1]"}
	c := Default()
	c.Operator.AllowedHosts = good
	if err := c.Validate(); err != nil {
		t.Errorf("allowed_hosts %q: %v", good, err)
	}
	for _, tt := range []struct{ entry, says string }{
		{"", "must not be empty"},
		{"https://console.example.org", "without a scheme"},
		{"console.example.org/console/", "not a URL"},
		{"console.example.org:443", "without a port"},
		{"*.example.org", "wildcards are not supported"},
		{"bücher.example", "ASCII form (xn--...)"},
		{"-bad.example", "not starting or ending with a hyphen"},
		{"a..example", "dot-separated labels"},
		{"two words.example", "letters, digits, hyphens and dots only"},
		{strings.Repeat("a.", 127) + "org", "at most 253 characters"},
	} {
		c := Default()
		c.Operator.AllowedHosts = []string{"console.example.org", tt.entry}
		ps := Problems(c.Validate())
		if len(ps) != 1 || ps[0].Key != "operator.allowed_hosts[1]" || !strings.Contains(ps[0].Msg, tt.says) {
			t.Errorf("allowed_hosts entry %q: %v, want one operator.allowed_hosts[1] problem saying %q", tt.entry, ps, tt.says)
		}
	}
}

// TestOperatorAllowedHostsFromFile: the key reads from a file, is empty
// by default, and a change to it is one key for a reload.
func TestOperatorAllowedHostsFromFile(t *testing.T) {
	if got := Default().Operator.AllowedHosts; len(got) != 0 {
		t.Errorf("default allowed_hosts %q, want none", got)
	}
	file := filepath.Join(t.TempDir(), "honmaster.toml")
	if err := os.WriteFile(file, []byte("[operator]\nallowed_hosts = [\"console.example.org\", \"metrics.internal\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"console.example.org", "metrics.internal"}; !slices.Equal(c.Operator.AllowedHosts, want) {
		t.Errorf("allowed_hosts %q, want %q", c.Operator.AllowedHosts, want)
	}
	if got := Changed(Default(), c); !slices.Equal(got, []string{"operator.allowed_hosts"}) {
		t.Errorf("Changed = %v, want [operator.allowed_hosts]", got)
	}
	if err := os.WriteFile(file, []byte("[operator]\nallowed_hosts = [\"https://console.example.org\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = Load(file) // Load does not validate
	if err != nil {
		t.Fatal(err)
	}
	if err = c.Validate(); err == nil || !strings.Contains(err.Error(), "operator.allowed_hosts[0]: must be a host name") {
		t.Errorf("a URL in allowed_hosts: %v, want a problem naming operator.allowed_hosts[0]", err)
	}
}
