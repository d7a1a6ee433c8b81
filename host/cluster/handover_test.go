//go:build !race

package cluster

import (
	"context"
	"crypto/rand"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// loginNodes starts three members whose forwarded requests are served by a
// login service of their own (pre_auth and srpAuth), over one database
// holding the account "player" (password "pw").
func loginNodes(t *testing.T) []*testNode {
	t.Helper()
	db := memDB(t)
	nodes := startNodes(t, db, "a", "b", "c")
	grp := srp.DefaultGroup()
	for _, tn := range nodes {
		l := login.New(grp, tn.sys, login.Settings{CookieLifetime: time.Hour, PreAuthLifetime: time.Minute,
			Secret: []byte("test-secret-test-secret"), KeyVersion: "0001"}, nil, nil)
		tn.n.AttachLogin(l)
		tn.n.Attach(tn.sys, func(ctx context.Context, r *wire.Request) server.Response {
			name := r.Form.Get("login")
			switch r.Query.Get("f") {
			case server.FuncPreAuth:
				pre, err := l.PreAuth(ctx, name, r.Form.Get("A"), r.RemoteIP, "")
				if err != nil {
					return server.Response{Status: 403, Body: []byte(err.Error())}
				}
				return server.Response{Body: []byte(pre.Salt + " " + pre.Salt2 + " " + pre.B)}
			case server.FuncSRPAuth:
				if _, err := l.SRPAuth(ctx, name, r.Form.Get("proof"), r.RemoteIP, ""); err != nil {
					return server.Response{Status: 403, Body: []byte(err.Error())}
				}
				return server.Response{Body: []byte("logged in on " + tn.name)}
			}
			return server.Response{Status: 404}
		})
	}
	salt, salt2, v, err := grp.NewVerifier("player", "pw", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nodes[0].sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "player",
		Account: storage.Account{Nickname: "player", SRP: storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}}}); err != nil {
		t.Fatal(err)
	}
	waitMembers(t, nodes, 3)
	return nodes
}

// call forwards a login request through tn to the account's home, again
// while the home is out of reach (nothing was sent), for a minute at most.
func call(t *testing.T, tn *testNode, f string, form url.Values) server.Response {
	t.Helper()
	r := &wire.Request{Method: "POST", Path: server.PathClientRequester, RemoteIP: "198.51.100.7",
		Query: wire.Values{"f": {f}}, Form: wire.Values(form)}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		resp, handled, err := tn.n.Forward(ctx, r, nil)
		cancel()
		if err != nil {
			t.Fatalf("%s via %s: %v", f, tn.name, err)
		}
		if handled {
			return resp
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s via %s: the account's node stayed out of reach for a minute", f, tn.name)
		}
	}
}

// TestAPendingLoginSurvivesItsNodesGracefulStop: a login whose pre_auth
// was served by its account's home, which then stops gracefully, finishes
// with srpAuth through another node: the stopping node handed the pending
// handshake to the account's new home (it used to be lost: "please log in
// again"). The proof is still checked once.
func TestAPendingLoginSurvivesItsNodesGracefulStop(t *testing.T) {
	nodes := loginNodes(t)
	id, err := nodes[0].sys.DB().LoginID("player")
	if err != nil {
		t.Fatal(err)
	}
	var home *testNode
	var rest []*testNode
	for _, tn := range nodes {
		if tn.n.Home(id) {
			home = tn
		} else {
			rest = append(rest, tn)
		}
	}
	if home == nil || len(rest) != 2 {
		t.Fatalf("no single home for the account")
	}
	cl, err := srp.DefaultGroup().NewClient("player", "pw", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pre := call(t, rest[0], server.FuncPreAuth, url.Values{"login": {"player"}, "A": {cl.AHex()}})
	parts := strings.Fields(string(pre.Body))
	if pre.Status != 0 || len(parts) != 3 {
		t.Fatalf("pre_auth: %d %s", pre.Status, pre.Body)
	}
	m1, err := cl.Proof(parts[0], parts[1], parts[2])
	if err != nil {
		t.Fatal(err)
	}

	home.stop()
	waitMembers(t, rest, 2)

	proof := url.Values{"login": {"player"}, "proof": {m1}}
	if got := call(t, rest[1], server.FuncSRPAuth, proof); got.Status != 0 {
		t.Fatalf("srpAuth after the pre_auth's node stopped gracefully: %d %s, want a login", got.Status, got.Body)
	}
	if got := call(t, rest[0], server.FuncSRPAuth, proof); got.Status == 0 {
		t.Fatalf("the same proof again logged in (%s): a handshake allows one", got.Body)
	}
}
