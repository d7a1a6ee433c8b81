package cli

import (
	"reflect"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"account", "create", "--login", "x", "--password", "hunter2"}, []string{"account", "create", "--login", "x", "--password", "REDACTED"}},
		{[]string{"account", "create", "--password=hunter2", "--login", "x"}, []string{"account", "create", "--password=REDACTED", "--login", "x"}},
		{[]string{"account", "create", "-password", "p", "--email", "e"}, []string{"account", "create", "-password", "REDACTED", "--email", "e"}},
		{[]string{"backup", "--to", "/x"}, []string{"backup", "--to", "/x"}},
	} {
		if got := redact(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
