package guides

import (
	"fmt"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

// TestANotServedVoteEchoesHosttime: a guide call that was read but not
// served (cluster mode: its account's node did not answer, or this node is
// not serving) echoes its hosttime (the client drops a reply without it)
// and says outcome_unknown when its node did not answer.
func TestANotServedVoteEchoesHosttime(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		err  error
		want Reason
	}{
		{fmt.Errorf("%w: the account's node did not answer in time", actors.ErrTimeout), ReasonOutcomeUnknown},
		{fmt.Errorf("%w: this node is not serving", actors.ErrExpired), ReasonInternal},
	} {
		r := formRequest("f", string(FuncVote), "account", "7", "cookie", cookieA, "hosttime", "1620573527", "v", "1", "gid", "3")
		v, err := wire.Unmarshal(h.area.Fail(&server.NotServedError{Request: r, Err: tc.err}).Body)
		if err != nil {
			t.Fatal(err)
		}
		a := v.(*wire.Array)
		if ht, _ := a.String("hosttime"); ht != "1620573527" {
			t.Errorf("vote not served (%v): hosttime %q, want the request's echoed", tc.err, ht)
		}
		if e, _ := a.String("errors"); e != tc.want.Message() {
			t.Errorf("vote not served (%v): errors %q, want %q", tc.err, e, tc.want.Message())
		}
	}
}
