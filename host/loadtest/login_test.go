package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/client"
)

// wrongProofServer answers pre_auth with a valid B and srpAuth with a
// server proof M2 that cannot be right: a server that accepted the login
// without holding the account's verifier.
func wrongProofServer(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Query().Get("f") {
	case "pre_auth":
		io.WriteString(w, `a:3:{s:4:"salt";s:2:"ab";s:5:"salt2";s:2:"cd";s:1:"B";s:1:"2";}`)
	case "srpAuth":
		io.WriteString(w, `a:2:{s:5:"proof";s:64:"`+strings.Repeat("0", 64)+`";s:6:"cookie";s:32:"`+testCookie+`";}`)
	default:
		http.NotFound(w, r)
	}
}

// TestLoginWrongServerProof: opLogin's failure on a wrong M2 is counted as
// kind server_proof (the name docs/loadtest.md gives), found by errors.Is on
// client.ErrServerProof. It was found by matching "server proof" in the
// error's text and counted as an undocumented "bad_m2".
func TestLoginWrongServerProof(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(wrongProofServer))
	t.Cleanup(ts.Close)
	u, _ := url.Parse(ts.URL)
	c, _ := newClient([]*url.URL{u}, 1)
	t.Cleanup(c.HTTP.CloseIdleConnections)
	e := &Env{c: c, run: "abc"}
	a := &Account{login: "ltabc0", password: "load-abc", id: "1"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := opLogin(ctx, e, a, nil)
	if k := kindOf(err); k != "server_proof" || noReply(err) {
		t.Errorf("opLogin = %v: kind %q, noReply %t; want server_proof, false", err, k, noReply(err))
	}
	if a.sess != nil {
		t.Error("a failed login replaced the account's session")
	}
}

// A login refused with "please log in again" at provisioning (its
// handshake was dropped: too many logins in progress from the address, or
// its two requests met different nodes while a cluster's membership
// changed) is started again, as a player's client does; any other refusal
// is not. The retried login here gets a wrong server proof, which ends it:
// what counts is that it was tried again.
func TestProvisionLoginRetriesLogInAgain(t *testing.T) {
	for _, c := range []struct {
		refusal   string
		preAuths  int
		wantProof bool
	}{
		{"No login in progress for this account; please log in again.", 2, true},
		{"Incorrect login or password.", 1, false},
	} {
		var preAuths, proofs atomic.Int32
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("f") == "pre_auth" {
				preAuths.Add(1)
			}
			if r.URL.Query().Get("f") == "srpAuth" && proofs.Add(1) == 1 {
				fmt.Fprintf(w, `a:1:{s:4:"auth";s:%d:"%s";}`, len(c.refusal), c.refusal)
				return
			}
			wrongProofServer(w, r)
		}))
		u, _ := url.Parse(ts.URL)
		cl, _ := newClient([]*url.URL{u}, 1)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := provisionLogin(ctx, cl, "ltabc0", "load-abc")
		cancel()
		cl.HTTP.CloseIdleConnections()
		ts.Close()
		if int(preAuths.Load()) != c.preAuths || errors.Is(err, client.ErrServerProof) != c.wantProof {
			t.Errorf("refused %q: %d pre_auth, then %v; want %d pre_auth (server proof error %t)", c.refusal, preAuths.Load(), err, c.preAuths, c.wantProof)
		}
	}
}
