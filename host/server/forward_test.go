package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/wire"
)

// failingForwarder is a cluster node whose forwarding of every request
// fails with err (handled: the request must not be served here).
type failingForwarder struct{ err error }

func (f failingForwarder) Forward(context.Context, *wire.Request) (Response, bool, error) {
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
