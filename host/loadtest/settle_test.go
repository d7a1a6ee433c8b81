package loadtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSettle: settle sums the server's CPU until a window is quiet, stops
// at its limit when the server stays busy, and gives up when the CPU is
// not measured or the run is interrupted.
func TestSettle(t *testing.T) {
	ms := time.Millisecond
	seq := func(vs ...time.Duration) func() time.Duration {
		i := 0
		return func() time.Duration {
			v := vs[min(i, len(vs)-1)]
			i++
			return v
		}
	}
	for _, tt := range []struct {
		name     string
		cpu      func() time.Duration
		limit    time.Duration
		tail     time.Duration
		quiet    bool
		canceled bool
	}{
		{name: "quiet at once", cpu: seq(0), limit: time.Second, tail: 0, quiet: true},
		{name: "busy, then quiet", cpu: seq(40*ms, 40*ms, settleQuiet, 40*ms), limit: time.Second, tail: 80*ms + settleQuiet, quiet: true},
		{name: "busy to the limit", cpu: seq(40 * ms), limit: 3 * settleWindow, tail: 120 * ms},
		{name: "not measured", cpu: seq(40*ms, -1), limit: time.Second, tail: 40 * ms},
		{name: "interrupted", cpu: seq(40 * ms), limit: time.Minute, canceled: true},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		if tt.canceled {
			cancel()
		}
		tail, quiet := settle(ctx, tt.cpu, tt.limit)
		cancel()
		if tail != tt.tail || quiet != tt.quiet {
			t.Errorf("%s: tail %s, quiet %v; want %s, %v", tt.name, tail, quiet, tt.tail, tt.quiet)
		}
	}
}

// busyAfterGame is costlyGame whose list leaves background work behind
// (as a durable write leaves Pebble a flush and compactions): after a
// list phase, the next reads of the server's CPU find tailCost each, bgWindows
// times over, whatever the phase that reads them.
type busyAfterGame struct {
	costlyGame
	pending atomic.Int64
}

const (
	bgWindows = 3
	tailCost  = 40 * time.Millisecond
)

func (g *busyAfterGame) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == testList {
		g.pending.Store(bgWindows)
	}
	g.costlyGame.ServeHTTP(w, r)
}

// cpuSince reads the fake server's CPU like Run's does /proc's: what its
// requests cost since the last read, and one pending tailCost.
func (g *busyAfterGame) cpuSince(last *int64) time.Duration {
	now := g.cpu.Load()
	d := time.Duration(now - *last)
	*last = now
	if g.pending.Load() > 0 {
		g.pending.Add(-1)
		d += tailCost
	}
	return d
}

// runBracketed runs one bracketed round of o's sequence against the fake
// server that cpuSince reads, and returns its report.
func runBracketed(o Options, e *Env, accts []*Account, cpuSince func() time.Duration) *Report {
	rec := newRecorder(nil, false)
	rep := &Report{Sequential: true, Rounds: 1, Bracket: true, Settle: o.Settle}
	cpuSince()
	sequential(context.Background(), o, e, poolOf(accts), rec, rep, cpuSince, func(string, ...any) {})
	rec.stop()
	rep.fill(rec)
	return rep
}

// TestSequentialSettles: with Settle, the background work a list phase
// leaves is billed to that phase, and the no-op phases around it cost what
// their requests cost; without it, the no-op after the list pays for it.
func TestSequentialSettles(t *testing.T) {
	for _, settled := range []bool{true, false} {
		g := &busyAfterGame{}
		srv := httptest.NewServer(g)
		e, accts, _ := fakeEnv(t, 2, srv)
		// noop, testlist, noop: 3 phases of 10 operations.
		o := Options{Concurrency: 1, Mix: Mix{"testlist": 1, "noop": 1}, Sequential: true, Bracket: true,
			Requests: 30, Duration: 3 * time.Minute}
		if settled {
			o.Settle = time.Minute
		}
		var last int64
		rep := runBracketed(o, e, accts, func() time.Duration { return g.cpuSince(&last) })
		srv.Close()

		noop, list := rep.Op("noop"), rep.Op("testlist")
		if noop == nil || list == nil {
			t.Fatalf("settled %v: rows %+v", settled, rep.Ops)
		}
		wantList := listCost + bgWindows*tailCost/10
		wantNoops := []time.Duration{noopCost, noopCost}
		if !settled {
			// The list phase's own read took one tailCost; the next
			// phase's first read (its start) a second, lost; its end read
			// the third.
			wantList = listCost + tailCost/10
			wantNoops = []time.Duration{noopCost, noopCost + tailCost/10}
		}
		if !slices.Equal(list.CPUPerOpRounds, []time.Duration{wantList}) || !slices.Equal(noop.CPUPerOpPhases, wantNoops) {
			t.Errorf("settled %v: list cpu/op %v, no-op phases %v; want [%s], %v", settled, list.CPUPerOpRounds, noop.CPUPerOpPhases, wantList, wantNoops)
		}
		wantSettle := time.Duration(0)
		if settled {
			wantSettle = 2 * tailCost // the phase's own read had the first
		}
		if rep.SettleCPU != wantSettle || rep.SettleCapped != 0 {
			t.Errorf("settled %v: settle cpu %s, %d capped; want %s, 0", settled, rep.SettleCPU, rep.SettleCapped, wantSettle)
		}
		var b strings.Builder
		rep.WriteText(&b)
		if has := strings.Contains(b.String(), "settling: after each phase the tester waited (1m0s at most)"); has != settled {
			t.Errorf("settled %v: the report's settling line is there: %v\n%s", settled, has, b.String())
		}
	}
}

// TestSequentialSettleCapped: a server still busy when Settle is over is
// counted, phase by phase, and its CPU so far is billed all the same.
func TestSequentialSettleCapped(t *testing.T) {
	g := &busyAfterGame{}
	srv := httptest.NewServer(g)
	defer srv.Close()
	e, accts, _ := fakeEnv(t, 2, srv)
	// The list leaves more background work than any settling waits for:
	// the list phase and the no-op phase after it both end busy.
	o := Options{Concurrency: 1, Mix: Mix{"testlist": 1, "noop": 1}, Sequential: true, Bracket: true,
		Requests: 30, Duration: 3 * time.Minute, Settle: 3 * settleWindow}
	var last int64
	cpuSince := func() time.Duration {
		if g.pending.Load() == bgWindows {
			g.pending.Store(1000)
		}
		return g.cpuSince(&last)
	}
	rep := runBracketed(o, e, accts, cpuSince)
	// The list phase's settling read 3 windows; so did the last no-op's.
	if rep.SettleCapped != 2 || rep.SettleCPU != 6*tailCost {
		t.Errorf("capped %d, settle cpu %s; want 2, %s", rep.SettleCapped, rep.SettleCPU, 6*tailCost)
	}
	if list := rep.Op("testlist"); list == nil || !slices.Equal(list.CPUPerOpRounds, []time.Duration{listCost + 4*tailCost/10}) {
		t.Errorf("list row %+v; want its own read and 3 windows of settling billed to it", list)
	}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "; 2 phases left it busy at that limit") {
		t.Errorf("the report does not say 2 phases were busy at the limit:\n%s", b.String())
	}
}
