package cli_test

import (
	"strings"
	"testing"
)

// TestAccountRole: the operator role is given and taken through the running
// server's admin socket, and bad input is a usage error or a clear refusal.
func TestAccountRole(t *testing.T) {
	ts := start(t, nil)
	ts.Host(t, "account", "create", "--login", "mod", "--password", "pw")
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"show a player", []string{"account", "role", "--login", "mod"}, 0, "mod is not an operator"},
		{"give", []string{"account", "role", "--login", "mod", "--operator"}, 0, "mod is an operator"},
		// Without --operator the role is shown, not taken away (issue 22,
		// item 15): the role survives and account show prints it.
		{"show an operator", []string{"account", "role", "--login", "mod"}, 0, "mod is an operator"},
		{"still an operator", []string{"account", "show", "--login", "mod"}, 0, "role operator"},
		{"take", []string{"account", "role", "--login", "mod", "--operator=false"}, 0, "mod is not an operator"},
		{"shown as a player", []string{"account", "show", "--login", "mod"}, 0, "role player"},
		{"show unknown login", []string{"account", "role", "--login", "nobody"}, 1, ""},
		{"no login", []string{"account", "role", "--operator"}, 2, ""},
		{"unknown login", []string{"account", "role", "--login", "nobody", "--operator"}, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := ts.Run(tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) {
				t.Fatalf("exit %d, out %q, err %q; want exit %d with %q", code, out, errOut, tc.code, tc.out)
			}
		})
	}
}
