package console_test

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/reports"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// signedIn reports whether c's console session still reaches the
// dashboard, and whether a POST with its form token still goes through.
func (e *env) signedIn(t *testing.T, c *http.Client, tok string) (get, post bool) {
	t.Helper()
	noFollow := *c
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noFollow.Get(e.srv.URL + "/console/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	get = resp.StatusCode == http.StatusOK
	resp, err = noFollow.PostForm(e.srv.URL+"/console/account/grant", url.Values{"csrf": {tok}, "login": {"player"}, "tickets": {"1000"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// A grant that went through redirects back to the account page; a
	// refused session gets 403.
	post = resp.StatusCode == http.StatusSeeOther
	return get, post
}

// TestRevokedOperatorSignedOut: taking the operator role away, resetting
// the password, deleting or suspending an operator's account ends that
// account's console sessions at their next request, whichever path made
// the change (an operator command, the login service's reset, a report's
// resolution), and the changed account cannot sign in again (the password
// reset's: not with the old password).
func TestRevokedOperatorSignedOut(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	tests := []struct {
		name   string
		revoke func(t *testing.T, e *env, other *http.Client, otherTok string)
		// signInAgain is the password that should no longer sign in.
		signInAgain string
	}{
		{"role removed", func(t *testing.T, e *env, _ *http.Client, _ string) {
			if err := console.SetOperator(context.Background(), e.sys, "admin", false); err != nil {
				t.Fatal(err)
			}
		}, "admin-pw"},
		// Another operator's console no longer changes an operator's
		// account (review_test.go); the login service's reset is what it
		// ran.
		{"password reset", func(t *testing.T, e *env, _ *http.Client, _ string) {
			id, err := e.sys.DB().LoginID("admin")
			if err != nil {
				t.Fatal(err)
			}
			salt, salt2, v, err := srp.DefaultGroup().NewVerifier("admin", "new-pw", rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.login.ResetPassword(context.Background(), id, storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}); err != nil {
				t.Fatal(err)
			}
		}, "admin-pw"},
		{"deleted", func(t *testing.T, e *env, _ *http.Client, _ string) {
			if _, err := e.acc.Delete(context.Background(), "admin"); err != nil {
				t.Fatal(err)
			}
		}, "admin-pw"},
		{"suspended by a command", func(t *testing.T, e *env, _ *http.Client, _ string) {
			id, err := e.sys.DB().LoginID("admin")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := reports.Suspend(context.Background(), e.sys, reports.SuspendArgs{Account: id, Reason: reportsapi.ReasonAFK, Days: 1}, "mod", now); err != nil {
				t.Fatal(err)
			}
		}, "admin-pw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, console.Deps{Now: clock})
			ctx := context.Background()
			if _, err := e.acc.Create(ctx, accounts.Create{Login: "other", Password: "other-pw"}); err != nil {
				t.Fatal(err)
			}
			if err := console.SetOperator(ctx, e.sys, "other", true); err != nil {
				t.Fatal(err)
			}
			c, other := client(t), client(t)
			if status, _ := e.signIn(t, c, "admin", "admin-pw"); status != http.StatusOK {
				t.Fatalf("sign-in: %d", status)
			}
			if status, _ := e.signIn(t, other, "other", "other-pw"); status != http.StatusOK {
				t.Fatalf("other's sign-in: %d", status)
			}
			_, page := get(t, c, e.srv.URL+"/console/account?login=player")
			tok := csrfOf(t, page)
			_, page = get(t, other, e.srv.URL+"/console/account?login=player")
			otherTok := csrfOf(t, page)
			if g, p := e.signedIn(t, c, tok); !g || !p {
				t.Fatalf("before: GET %v POST %v, want both through", g, p)
			}

			tt.revoke(t, e, other, otherTok)

			if g, p := e.signedIn(t, c, tok); g || p {
				t.Errorf("after: GET %v POST %v, want both refused", g, p)
			}
			if g, p := e.signedIn(t, other, otherTok); !g || !p {
				t.Errorf("the other operator's session: GET %v POST %v, want both through", g, p)
			}
			if status, _ := e.signIn(t, client(t), "admin", tt.signInAgain); status == http.StatusOK {
				t.Error("signed in again")
			}
		})
	}
}

// TestOwnPasswordResetKeepsSession: an operator who resets their own
// password keeps the session that did it (they just proved who they are);
// their other sessions end.
func TestOwnPasswordResetKeepsSession(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c, elsewhere := client(t), client(t)
	for _, cl := range []*http.Client{c, elsewhere} {
		if status, _ := e.signIn(t, cl, "admin", "admin-pw"); status != http.StatusOK {
			t.Fatalf("sign-in: %d", status)
		}
	}
	_, page := get(t, c, e.srv.URL+"/console/account?login=admin")
	tok := csrfOf(t, page)
	_, page = get(t, elsewhere, e.srv.URL+"/console/account?login=player")
	elsewhereTok := csrfOf(t, page)
	_, page = post(t, c, e.srv.URL+"/console/account/password", url.Values{"csrf": {tok}, "login": {"admin"}, "password": {"new-pw"}})
	if !strings.Contains(page, "password reset") {
		t.Fatalf("reset:\n%s", page)
	}
	if g, p := e.signedIn(t, c, tok); !g || !p {
		t.Errorf("the session that reset the password: GET %v POST %v, want both through", g, p)
	}
	if g, p := e.signedIn(t, elsewhere, elsewhereTok); g || p {
		t.Errorf("the operator's other session: GET %v POST %v, want both refused", g, p)
	}
}

// TestSuspensionEndedSignsInAgain: a suspension ends the session, and once
// it is over (the clock passes its end) the operator signs in again.
func TestSuspensionEndedSignsInAgain(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, console.Deps{Now: func() time.Time { return now }})
	id, err := e.sys.DB().LoginID("admin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reports.Suspend(context.Background(), e.sys, reports.SuspendArgs{Account: id, Reason: reportsapi.ReasonAFK, Days: 1}, "mod", now); err != nil {
		t.Fatal(err)
	}
	if status, _ := e.signIn(t, client(t), "admin", "admin-pw"); status == http.StatusOK {
		t.Fatal("a suspended operator signed in")
	}
	now = now.Add(25 * time.Hour)
	if status, _ := e.signIn(t, client(t), "admin", "admin-pw"); status != http.StatusOK {
		t.Fatalf("sign-in after the suspension ended: %d", status)
	}
}
