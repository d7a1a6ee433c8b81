package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// failingForwarder is a cluster node whose forwarding of every request
// fails with err (handled: the request must not be served here).
type failingForwarder struct{ err error }

func (f failingForwarder) Forward(context.Context, *wire.Request, AccountOf) (Response, bool, error) {
	return Response{}, true, f.err
}

// The errors host/cluster's Forward returns: its account's node did not
// answer (outcome unknown), or this node is not serving (nothing done).
var (
	errNoAnswer   = fmt.Errorf("%w: the account's node did not answer in time", actors.ErrTimeout)
	errNotServing = fmt.Errorf("%w: this node is confirming its cluster membership after a pause", actors.ErrExpired)
)

// TestALoginNotServedSaysSo: a pre_auth or srpAuth whose account's node did
// not answer is answered "outcome unknown", and one this node could not
// serve "try again": never "Malformed login request.", which told the
// player their client was broken.
func TestALoginNotServedSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want login.Reason
	}{
		{"no answer", errNoAnswer, login.ReasonOutcomeUnknown},
		{"not serving", errNotServing, login.ReasonInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer()
			s.SetForwarder(failingForwarder{tc.err})
			c := serve(t, s)
			for _, fn := range []string{FuncPreAuth, FuncSRPAuth} {
				form := url.Values{"login": {"p"}, "A": {"ff"}, "proof": {"ff"}}
				status, _, body := get(t, c, "POST", "/client_requester.php?f="+fn, form.Encode())
				if status != 200 || !strings.Contains(body, fmt.Sprintf("%q", tc.want.Message())) {
					t.Errorf("%s not served (%v): %d %q; want the reply %q", fn, tc.err, status, body, tc.want.Message())
				}
			}
		})
	}
}

// TestANotServedRequestReachesItsRoutesFail: a route's Fail gets a request
// that was read but not served as a NotServedError carrying the request
// (for what the reply echoes) and wrapping why.
func TestANotServedRequestReachesItsRoutesFail(t *testing.T) {
	s := newTestServer()
	var got error
	if err := s.Mount(Route{Path: "/area", Area: "test", Handler: func(context.Context, *wire.Request) Response {
		t.Error("a request whose forwarding failed was served here")
		return Response{}
	}, Fail: func(err error) Response { got = err; return Text("text/plain", "failed") }}); err != nil {
		t.Fatal(err)
	}
	s.SetForwarder(failingForwarder{errNoAnswer})
	c := serve(t, s)
	get(t, c, "POST", "/area", "hosttime=1620573527")
	var ns *NotServedError
	if !errors.As(got, &ns) || ns.Request.Form.Get("hosttime") != "1620573527" || !errors.Is(got, actors.ErrTimeout) {
		t.Fatalf("Fail got %v; want a NotServedError with the request, wrapping the forwarder's error", got)
	}
}

// recordingForwarder is a cluster node that serves nothing itself
// (handled false) and records the account each request's route named.
type recordingForwarder struct {
	named map[string]string // path: "ID" or "none" (no hook), "false" (hook named none)
}

func (f *recordingForwarder) Forward(_ context.Context, r *wire.Request, account AccountOf) (Response, bool, error) {
	switch {
	case account == nil:
		f.named[r.Path] = "none"
	default:
		if id, ok := account(r); ok {
			f.named[r.Path] = fmt.Sprint(id)
		} else {
			f.named[r.Path] = "false"
		}
	}
	return Response{}, false, nil
}

// TestTheForwarderGetsTheRoutesAccount: in cluster mode the forwarder is
// given the route's Account hook (nil for a route without one), which
// names the request's account from the request itself; a request the
// forwarder leaves here is served here.
func TestTheForwarderGetsTheRoutesAccount(t *testing.T) {
	s := newTestServer()
	served := 0
	h := func(context.Context, *wire.Request) Response { served++; return Text("text/plain", "here") }
	err := s.Mount(
		Route{Path: "/named", Area: "test", Handler: h, Account: func(r *wire.Request) (storage.AccountID, bool) {
			n, err := strconv.ParseUint(r.Form.Get("session"), 10, 32)
			return storage.AccountID(n), err == nil && n != 0
		}},
		Route{Path: "/plain", Area: "test", Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	f := &recordingForwarder{named: map[string]string{}}
	s.SetForwarder(f)
	c := serve(t, s)
	for _, tc := range []struct{ path, body, want string }{
		{"/named", "session=42", "42"},
		{"/named", "session=x", "false"},
		{"/plain", "session=42", "none"},
	} {
		delete(f.named, tc.path)
		if status, _, body := get(t, c, "POST", tc.path, tc.body); status != 200 || body != "here" {
			t.Errorf("%s %s: %d %q, want it served here", tc.path, tc.body, status, body)
		}
		if got := f.named[tc.path]; got != tc.want {
			t.Errorf("%s %s: the forwarder's hook named %q, want %q", tc.path, tc.body, got, tc.want)
		}
	}
	if served != 3 {
		t.Errorf("served %d requests here, want 3", served)
	}
}
