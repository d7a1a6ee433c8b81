package cloud

import (
	"fmt"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/wire"
)

// TestANotServedRequestSaysSo: a cloud call that was read but not served
// (cluster mode: its account's node did not answer, or this node is not
// serving) answers outcome unknown, or "try again": never "Malformed
// request.".
func TestANotServedRequestSaysSo(t *testing.T) {
	sys := actorstest.New(t)
	a, err := New(Deps{Sys: sys, Login: login.New(srp.DefaultGroup(), sys, login.Settings{}, nil, nil), Config: config.Default().Cloud})
	if err != nil {
		t.Fatal(err)
	}
	r := &wire.Request{Method: "POST", Path: PathStore}
	for _, tc := range []struct {
		err  error
		want Reason
	}{
		{fmt.Errorf("%w: the account's node did not answer in time", actors.ErrTimeout), ReasonOutcomeUnknown},
		{fmt.Errorf("%w: this node is not serving", actors.ErrExpired), ReasonInternal},
	} {
		for _, rt := range a.Routes() {
			if rt.Path == PathStatus {
				continue // a read: its bare invalid_request is all the client reads
			}
			body := string(rt.Fail(&server.NotServedError{Request: r, Err: tc.err}).Body)
			if !strings.Contains(body, fmt.Sprintf("%q", tc.want.Message())) {
				t.Errorf("%s not served (%v): %q; want %q", rt.Path, tc.err, body, tc.want.Message())
			}
		}
	}
}
