package cli_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Sock puppets (issue 22, item 6): with the default limits one address
// registers 5 accounts, not 300, and the operator sees the accounts one
// address registered, in account by-address and in account show.
func TestRegistrationsByAddress(t *testing.T) {
	ts := start(t, nil) // the default [limits]
	ctx := context.Background()
	for i := range 6 {
		r, err := ts.Client.PostForm(ctx, "/portal/register", url.Values{"login": {fmt.Sprintf("puppet%d", i)}, "password": {"pw"}})
		if err != nil {
			t.Fatal(err)
		}
		want := http.StatusOK
		if i == 5 {
			want = http.StatusTooManyRequests
		}
		if r.Status != want {
			t.Fatalf("registration %d: %d %s, want %d", i+1, r.Status, r.Body, want)
		}
	}
	ts.Host(t, "account", "create", "--login", "byoperator", "--password", "pw") // no address recorded

	out := ts.Host(t, "account", "by-address")
	want := "127.0.0.1  5 accounts: puppet0 (1) puppet1 (2) puppet2 (3) puppet3 (4) puppet4 (5)"
	if out != want {
		t.Errorf("by-address:\n%s\nwant\n%s", out, want)
	}
	if out := ts.Host(t, "account", "by-address", "--address", "127.0.0.1", "--min", "1"); out != want {
		t.Errorf("by-address --address:\n%s", out)
	}
	if out := ts.Host(t, "account", "by-address", "--min", "6"); out != "no address registered 6 or more accounts" {
		t.Errorf("by-address --min 6: %q", out)
	}
	out = ts.Host(t, "account", "show", "--login", "puppet2")
	if !strings.Contains(out, "registered from 127.0.0.1 at ") ||
		!strings.Contains(out, "registered from the same address: puppet0 (1) puppet1 (2) puppet3 (4) puppet4 (5)") {
		t.Errorf("account show:\n%s", out)
	}
	if out := ts.Host(t, "account", "show", "--login", "byoperator"); strings.Contains(out, "registered from") {
		t.Errorf("account show of an operator's account:\n%s", out)
	}
}
