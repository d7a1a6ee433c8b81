package cluster

import (
	"context"
	"strconv"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// A login function's handler reads login from the form, else from the
// query (wire.Request.Decode); accountOf read the form only, so a
// switch_auth whose login was in the query named no account and was
// served where it arrived, with that node's own per-account budget
// (limits.toggles_per_account, whole on every node): N nodes, N budgets.
// It names the account the handler acts on now. (From a review; failed
// before.)
func TestALoginInTheQueryRoutesToItsAccount(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sys := actors.New(db, actors.Options{})
	defer sys.Shutdown()
	a, err := sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "target"})
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{server.FuncPreAuth, server.FuncSRPAuth, server.FuncSwitchAuth} {
		r := &wire.Request{Method: "POST", Path: server.PathClientRequester,
			Query: wire.Values{"f": {fn}, "login": {"target"}},
			Form:  wire.Values{"account_id": {strconv.FormatUint(uint64(a.ID), 10)}, "cookie": {"0123456789abcdef0123456789abcdef"}}}
		var req struct {
			Login string `form:"login,required"`
		}
		if err := r.Decode(&req); err != nil || req.Login != "target" {
			t.Fatalf("%s: the handler decodes login %q, %v", fn, req.Login, err)
		}
		if id, ok := accountOf(sys, r, nil); !ok || id != a.ID {
			t.Errorf("%s with login in the query: accountOf = %d, %v; want %d", fn, id, ok, a.ID)
		}
		// The form's login wins, as in Decode.
		r.Form["login"] = []string{"nobody"}
		if id, ok := accountOf(sys, r, nil); ok {
			t.Errorf("%s with an unknown login in the form: accountOf = %d, want none", fn, id)
		}
	}
}
