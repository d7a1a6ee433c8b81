package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/operator"
)

// The failures of a deletion that words its errors (deleteAccount) cannot
// be had from outside a server; these tests open an App and make them with
// the actors' own delete hooks (actors.System.OnDelete), the seam every
// area uses: a hook that holds an account's deletion past its asker's wait
// (a stalled synced commit, as on a stalled disk) gives a real uncertain
// outcome (actors.ErrTimeout; the deletion commits afterwards), and a hook
// whose after function deletes another account gives a deletion racing
// another request.

func createAccounts(t *testing.T, app *App, cs ...accounts.Create) {
	t.Helper()
	for _, c := range cs {
		if c.Password == "" {
			c.Password = "pw"
		}
		if _, err := app.Accounts.Create(context.Background(), c); err != nil {
			t.Fatalf("create %s: %v", c.Login, err)
		}
	}
}

// stallDeletion holds the deletion of login in its actor, before its
// commit, until the returned release is called (the cleanup calls it too).
// committed is closed once that deletion has committed.
func stallDeletion(t *testing.T, app *App, login string) (release func(), committed <-chan struct{}) {
	t.Helper()
	held, done := make(chan struct{}), make(chan struct{})
	var once atomic.Bool
	release = func() {
		if once.CompareAndSwap(false, true) {
			close(held)
		}
	}
	t.Cleanup(release) // before app.Close, which waits for the actor
	app.Sys.OnDelete(func(tx *actors.Tx) (func(), error) {
		if tx.View().Login != login {
			return nil, nil
		}
		select {
		case <-held:
		case <-time.After(30 * time.Second):
		}
		return func() { close(done) }, nil
	})
	return release, done
}

// uncertainCtx is the context of a deletion whose asker stops waiting for
// a stalled commit soon: the actors wait for a change until its deadline
// plus their commit grace, then answer actors.ErrTimeout.
func uncertainCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	t.Cleanup(cancel)
	return ctx
}

func waitCommitted(t *testing.T, committed <-chan struct{}) {
	t.Helper()
	select {
	case <-committed:
	case <-time.After(30 * time.Second):
		t.Fatal("the held deletion never committed")
	}
}

// apiMux is the operator API's account routes on a plain mux (no token).
type apiMux struct{ *http.ServeMux }

func (m apiMux) HandleAPI(pattern string, h http.Handler) { m.Handle(pattern, h) }

func (m apiMux) ClientAddr(r *http.Request) string { return r.RemoteAddr }

// deleteThroughAPI sends DELETE /operator/v1/account?login=login to the
// account routes mounted over app, with ctx, and returns the status and
// the answer's error sentence.
func deleteThroughAPI(t *testing.T, ctx context.Context, app *App, login string) (int, string) {
	t.Helper()
	m := apiMux{http.NewServeMux()}
	mountAccountAPI(m, app)
	req := httptest.NewRequest(http.MethodDelete, operator.PathAccount+"?login="+login, nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, req)
	var body struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("DELETE %s: %d, not JSON: %q", login, rec.Code, rec.Body.String())
	}
	return rec.Code, body.Error
}

// TestDeleteUncertainSaysOutcomeUnknown: an account whose deletion commit
// outlasts the asker's wait (actors.ErrTimeout: it may or may not be
// stored) is not reported as "nothing was deleted"; the command says the
// outcome is unknown and how to finish. Here the deletion does commit
// afterwards, and running the command again says the login is unknown:
// "nothing was deleted" would have been false.
func TestDeleteUncertainSaysOutcomeUnknown(t *testing.T) {
	app := openTestApp(t)
	createAccounts(t, app, accounts.Create{Login: "unsure"})
	release, committed := stallDeletion(t, app, "unsure")

	var out bytes.Buffer
	err := (&DeleteAccountRequest{Login: "unsure", Yes: true}).Run(uncertainCtx(t), app, &out)
	if !failure.Uncertain(err) {
		t.Fatalf("the held deletion failed with %v; want an uncertain outcome (the test did not make one)", err)
	}
	msg := explain(err)
	assertNoPrefix(t, "uncertain deletion", msg)
	if strings.Contains(msg, "nothing was deleted") || strings.Contains(msg, "no account has") {
		t.Errorf("an uncertain deletion says %q", msg)
	}
	if !strings.Contains(msg, "outcome") || !strings.Contains(msg, "unknown") || !strings.Contains(msg, "run it again") {
		t.Errorf("an uncertain deletion says %q; want the outcome unknown and what to do", msg)
	}
	if out.Len() != 0 {
		t.Errorf("an uncertain deletion printed %q", out.String())
	}

	release()
	waitCommitted(t, committed)
	err = (&DeleteAccountRequest{Login: "unsure", Yes: true}).Run(context.Background(), app, &out)
	if msg := explain(err); !strings.Contains(msg, `no account has the login "unsure"`) {
		t.Errorf("running it again after the deletion committed: %q", msg)
	}
}

// TestDeleteUncertainPartWay: a main account's deletion commit outlasts
// the asker's wait after its sub-account was deleted. The operator API
// answers 500 (not 404), naming the deleted sub-account and saying that
// the main account's deletion has an unknown outcome.
func TestDeleteUncertainPartWay(t *testing.T) {
	app := openTestApp(t)
	createAccounts(t, app, accounts.Create{Login: "pmain"}, accounts.Create{Login: "psub", Parent: "pmain"})
	release, committed := stallDeletion(t, app, "pmain")

	code, msg := deleteThroughAPI(t, uncertainCtx(t), app, "pmain")
	assertNoPrefix(t, "uncertain part-way deletion", msg)
	if code != http.StatusInternalServerError {
		t.Errorf("status %d, want 500: %q", code, msg)
	}
	if !strings.Contains(msg, `stopped part way (deleted: "psub")`) || !strings.Contains(msg, "unknown") ||
		!strings.Contains(msg, "may or may not") || strings.Contains(msg, "nothing was deleted") {
		t.Errorf("an uncertain part-way deletion says %q", msg)
	}

	release()
	waitCommitted(t, committed)
	if code, msg := deleteThroughAPI(t, context.Background(), app, "pmain"); code != http.StatusNotFound {
		t.Errorf("deleting it again after the main account's deletion committed: %d %q, want 404", code, msg)
	}
}

// TestDeletePartWayUnknownAccountNot404: a main account with two
// sub-accounts is being deleted when, right after its first sub-account
// goes, another request deletes the second one (a sub-account named alone
// is deleted alone). The deletion stops part way on "no such account";
// the main account still exists. The operator API must not answer that
// 404 "no account has the login": it answers 500 saying what was deleted
// and that an account was already gone, and running it again finishes.
func TestDeletePartWayUnknownAccountNot404(t *testing.T) {
	app := openTestApp(t)
	createAccounts(t, app, accounts.Create{Login: "rmain"},
		accounts.Create{Login: "rsub1", Parent: "rmain"}, accounts.Create{Login: "rsub2", Parent: "rmain"})
	var raced atomic.Bool
	var first atomic.Value
	app.Sys.OnDelete(func(tx *actors.Tx) (func(), error) {
		l := tx.View().Login
		if (l != "rsub1" && l != "rsub2") || !raced.CompareAndSwap(false, true) {
			return nil, nil
		}
		o := "rsub1"
		if l == "rsub1" {
			o = "rsub2"
		}
		first.Store(l)
		oid, err := app.DB.LoginID(o)
		if err != nil {
			return nil, err
		}
		// Once this sub-account's deletion has committed (before its
		// asker hears of it), the other request deletes the other one.
		return func() {
			if _, err := app.Sys.DeleteAccount(context.Background(), oid); err != nil {
				t.Errorf("the other request deleting %s: %v", o, err)
			}
		}, nil
	})

	code, msg := deleteThroughAPI(t, context.Background(), app, "rmain")
	if !raced.Load() {
		t.Fatalf("no race was made: %d %q", code, msg)
	}
	assertNoPrefix(t, "part-way deletion", msg)
	if code != http.StatusInternalServerError { // above all not 404
		t.Errorf("a part-way deletion stopped by an account already gone: status %d, want 500: %q", code, msg)
	}
	if want := `stopped part way (deleted: "` + first.Load().(string) + `")`; !strings.Contains(msg, want) ||
		strings.Contains(msg, "no account has the login") || !strings.Contains(msg, "already gone") {
		t.Errorf("a part-way deletion stopped by an account already gone says %q; want %q and that an account was already gone", msg, want)
	}
	if _, err := app.DB.LoginID("rmain"); err != nil {
		t.Fatalf("the main account is gone after the part-way deletion: %v", err)
	}

	code, msg = deleteThroughAPI(t, context.Background(), app, "rmain")
	if code != http.StatusOK {
		t.Errorf("running it again: %d %q, want 200", code, msg)
	}
	if _, err := app.DB.LoginID("rmain"); err == nil {
		t.Error("the main account is left after running it again")
	}
}
