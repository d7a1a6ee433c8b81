package loadtest

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// slowNoop answers the no-op's 404 after a pause: a server far behind the
// rate.
func slowNoop(pause time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(pause)
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `a:1:{s:5:"error";s:9:"not found";}`)
	}
}

// TestOpenLoopCountsEveryDueOperation: in the open loop every operation
// due before the end is either sent or counted as due but never sent
// (Report.Unsent). A server more than the queue's 65536 operations behind
// had the excess counted nowhere: Unsent topped out near 65536 while
// 300,000 were due. (From a review of the load tester; failed before.)
func TestOpenLoopCountsEveryDueOperation(t *testing.T) {
	srv := httptest.NewServer(slowNoop(20 * time.Millisecond))
	t.Cleanup(srv.Close)
	e, accts, _ := fakeEnv(t, 1, srv)
	const rate, d = 300000.0, time.Second
	o := Options{Concurrency: 1, Rate: rate}
	rec := newRecorder(nil, false)
	unsent, _ := drive(context.Background(), o, e, poolOf(accts), rec, Mix{"noop": 1}, math.MaxInt32, d)
	rec.stop()
	var sent int64
	for _, s := range rec.ops {
		sent += s.ok + s.errs
	}
	// At least every operation due within d (the run lasted d or more).
	if due := int64(rate * d.Seconds()); sent+unsent < due*9/10 {
		t.Errorf("%d sent + %d counted unsent = %d, but about %d were due: %d counted nowhere", sent, unsent, sent+unsent, due, due-sent-unsent)
	}
}

// TestOptionsRefuseRatesAndRoundsThatOverflow: a rate below MinRate made
// the interval between operations overflow (every operation went out at
// once); NaN passed the check (and the JSON report failed after the run);
// rounds past what phases × rounds holds gave a phase a negative budget (a
// panic making the open loop's queue). (From a review; each was accepted
// before.)
func TestOptionsRefuseRatesAndRoundsThatOverflow(t *testing.T) {
	base := Options{Targets: []string{"http://127.0.0.1:1"}, Accounts: 1, Requests: 1, Duration: time.Second, Concurrency: 1,
		Mix: Mix{"noop": 1}}
	for name, edit := range map[string]func(*Options){
		"rate NaN":   func(o *Options) { o.Rate = math.NaN() },
		"rate 1e-10": func(o *Options) { o.Rate = 1e-10 },
		"rate +Inf":  func(o *Options) { o.Rate = math.Inf(1) },
		"rounds huge": func(o *Options) {
			o.Sequential, o.Rounds = true, 6148914691236517205 // × 3 phases = -1 as an int
		},
	} {
		o := base
		edit(&o)
		if err := o.check(); !errors.Is(err, ErrUsage) {
			t.Errorf("%s: check = %v, want a usage error", name, err)
		}
	}
	for name, edit := range map[string]func(*Options){
		"closed loop": func(o *Options) { o.Rate = 0 },
		"slowest":     func(o *Options) { o.Rate = MinRate },
		"max rounds":  func(o *Options) { o.Sequential, o.Rounds = true, MaxRounds },
	} {
		o := base
		edit(&o)
		if err := o.check(); err != nil {
			t.Errorf("%s: check = %v, want none", name, err)
		}
	}
}

// TestALoginReplyThatIsNotTheGamesIsNoLostReply: a login whose reply came
// but is not the game's (a proxy's 502 page) was counted as "transport",
// the kind of a reply that never came (noReply), instead of the HTTP
// status or decode, as the other operations count theirs. (From a review;
// failed before.)
func TestALoginReplyThatIsNotTheGamesIsNoLostReply(t *testing.T) {
	for status, want := range map[int]string{http.StatusBadGateway: "http_502", http.StatusOK: "decode"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			io.WriteString(w, "<html><body>not the game</body></html>")
		}))
		e, accts, _ := fakeEnv(t, 1, srv)
		a := accts[0]
		a.password = "load-abc"
		err := opLogin(context.Background(), e, a, nil)
		if k := kindOf(err); k != want || noReply(err) {
			t.Errorf("a login answered HTTP %d with a page: %v: kind %q, noReply %t; want %q", status, err, k, noReply(err), want)
		}
		srv.Close()
	}
}

// TestARunInterruptedOutsideItsOperationsFails: a run interrupted while
// the server settled after a phase (or between its last phase and the
// checks) skipped its end checks (a3df0ab) but said it stopped for its
// budget: its consistency read OK, no failure was named, and the command
// passed. It is marked interrupted whenever the interruption came. (From
// the third review.)
func TestARunInterruptedOutsideItsOperationsFails(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // during the settle that followed the last phase
	rep := &Report{Stopped: stoppedRequests, Ops: []OpReport{{Name: "noop", OK: 10}}}
	if !skipChecksIfInterrupted(ctx, rep) {
		t.Fatal("an interrupted run's checks were not skipped")
	}
	if f := rep.Failures(true); !slices.Contains(f, "the run was interrupted") {
		t.Errorf("failures %q of a run interrupted after its operations, want the interruption", f)
	}
	if skipChecksIfInterrupted(context.Background(), &Report{}) {
		t.Error("a run not interrupted had its checks skipped")
	}
}
