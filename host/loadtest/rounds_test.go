package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCPURounds: the median of the rounds' CPU per operation, each round's
// ratio to the same round's no-op, and the median of those ratios, for odd
// and even counts, with a round whose figure (the operation's or the
// no-op's) is missing left out rather than divided by.
func TestCPURounds(t *testing.T) {
	ms := func(vs ...int) []time.Duration {
		var out []time.Duration
		for _, v := range vs {
			out = append(out, time.Duration(v)*time.Millisecond)
		}
		return out
	}
	for _, tt := range []struct {
		name        string
		op, noop    []time.Duration
		median      time.Duration
		ratios      []float64
		medianRatio float64
	}{
		{name: "one round", op: ms(30), noop: ms(10), median: 30 * time.Millisecond, ratios: []float64{3}, medianRatio: 3},
		{name: "odd", op: ms(30, 20, 40), noop: ms(10, 10, 20), median: 30 * time.Millisecond, ratios: []float64{3, 2, 2}, medianRatio: 2},
		{name: "even", op: ms(10, 40, 30, 20), noop: ms(10, 10, 10, 10), median: 25 * time.Millisecond, ratios: []float64{1, 4, 3, 2}, medianRatio: 2.5},
		// The no-op's second round is missing: that round has no ratio,
		// and the median is of the two others.
		{name: "no-op missing", op: ms(30, 20, 40), noop: ms(10, 0, 20), median: 30 * time.Millisecond, ratios: []float64{3, 0, 2}, medianRatio: 2.5},
		{name: "operation missing", op: ms(30, 0, 40), noop: ms(10, 10, 10), median: 35 * time.Millisecond, ratios: []float64{3, 0, 4}, medianRatio: 3.5},
		{name: "no-op shorter", op: ms(30, 20), noop: ms(10), median: 25 * time.Millisecond, ratios: []float64{3, 0}, medianRatio: 3},
		{name: "no-op never measured", op: ms(30, 20), noop: ms(0, 0), median: 25 * time.Millisecond},
		{name: "no no-op", op: ms(30, 20, 10), median: 20 * time.Millisecond},
		{name: "nothing", op: ms(0, 0), noop: ms(10, 10)},
	} {
		median, ratios, medianRatio := cpuRounds(tt.op, tt.noop)
		if median != tt.median || !slices.Equal(ratios, tt.ratios) || medianRatio != tt.medianRatio {
			t.Errorf("%s: median %s, ratios %v, median ratio %v; want %s, %v, %v", tt.name, median, ratios, medianRatio, tt.median, tt.ratios, tt.medianRatio)
		}
	}
}

// TestSequenceNoopFirst: each round of a sequential run starts with its
// baseline, the no-op, then the others by name.
func TestSequenceNoopFirst(t *testing.T) {
	for mix, want := range map[string][]string{
		"vote=1,drop=1,noop=1,board=1": {"noop", "board", "drop", "vote"},
		"vote=1,drop=1":                {"drop", "vote"},
		"noop=1":                       {"noop"},
	} {
		m, err := ParseMix(mix)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.sequence(); !slices.Equal(got, want) {
			t.Errorf("%s: sequence %v, want %v", mix, got, want)
		}
	}
}

// costlyGame is fakeGame with a server CPU cost per request, by path: the
// sampler the sequential run reads (instead of /proc) sums them, so each
// phase's CPU figures are known exactly whatever the machine's speed. With
// phase set (counted from 1 by a test as each phase starts), the no-op
// costs phase ms instead of noopCost, as if the machine's speed drifted, so
// that each no-op phase's figure differs and a ratio's baseline is known
// exactly.
type costlyGame struct {
	fakeGame
	phase atomic.Int64
	cpu   atomic.Int64 // ns
}

// CPU costs of the fake server's requests.
const (
	noopCost = 10 * time.Millisecond
	listCost = 30 * time.Millisecond
)

func (g *costlyGame) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch phase := g.phase.Load(); {
	case r.URL.Path == testList:
		g.cpu.Add(int64(listCost))
	case phase > 0:
		g.cpu.Add(phase * int64(time.Millisecond))
	default:
		g.cpu.Add(int64(noopCost))
	}
	g.fakeGame.ServeHTTP(w, r)
}

// TestSequentialRounds: with two rounds the sequential run runs its phases
// twice, in the same order, the no-op first, each for its share of the
// budget, and reports each operation's server CPU per operation in each
// round, its ratio to the same round's no-op and their medians; counts
// cover both rounds, and a fallback row stays apart, in its operation's
// phases.
func TestSequentialRounds(t *testing.T) {
	g := &costlyGame{}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	e, accts, _ := fakeEnv(t, 2, srv)
	// Each account buys 3 times, then lists instead: the 10 testbuy
	// operations of the first round are 6 buys (no request) and 4 lists,
	// those of the second 10 lists. That needs each account to be used 5
	// times in the first round: one worker takes the accounts from the
	// pool (a FIFO) in turn; with two, one worker could take the same
	// account back again and again, and the buys would spill over into
	// the second round.
	for _, a := range accts {
		AccountState(a, "testarea", func() *testBought { return &testBought{} }).budget = 3
	}
	// 3 operations × 2 rounds: 6 phases of 10 operations, a minute each at
	// most (the budget ends each one long before).
	o := Options{Concurrency: 1, Mix: Mix{"testlist": 1, "noop": 1, "testbuy": 1}, Sequential: true, Rounds: 2,
		Requests: 60, Duration: 6 * time.Minute}
	var last int64
	cpuSince := func() time.Duration {
		now := g.cpu.Load()
		d := now - last
		last = now
		return time.Duration(d)
	}
	var mu sync.Mutex
	var phases []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		line := fmt.Sprintf(format, args...)
		phases = append(phases, line[:strings.Index(line, ":")])
	}
	rec := newRecorder(nil, false)
	rep := &Report{Sequential: true, Rounds: 2}
	cpuSince()
	sequential(context.Background(), o, e, poolOf(accts), rec, rep, cpuSince, logf)
	rec.stop()
	rep.fill(rec)

	want := []string{
		"round 1 of 2, phase noop", "round 1 of 2, phase testbuy", "round 1 of 2, phase testlist",
		"round 2 of 2, phase noop", "round 2 of 2, phase testbuy", "round 2 of 2, phase testlist",
	}
	if !slices.Equal(phases, want) {
		t.Errorf("phases %q, want %q", phases, want)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	nearAll := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !near(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	for _, tt := range []struct {
		name     string
		ok       int64
		perRound []time.Duration
		ratios   []float64
		median   time.Duration
		ratio    float64
	}{
		{name: "noop", ok: 20, perRound: []time.Duration{noopCost, noopCost}, ratios: []float64{1, 1}, median: noopCost, ratio: 1},
		// 4 lists over 10 operations, then 10 over 10.
		{name: "testbuy", ok: 6, perRound: []time.Duration{4 * listCost / 10, listCost}, ratios: []float64{1.2, 3}, median: 21 * time.Millisecond, ratio: 2.1},
		{name: "testlist", ok: 20, perRound: []time.Duration{listCost, listCost}, ratios: []float64{3, 3}, median: listCost, ratio: 3},
	} {
		op := rep.Op(tt.name)
		if op == nil {
			t.Errorf("no %s row", tt.name)
			continue
		}
		if op.OK != tt.ok || op.Errors != 0 || !slices.Equal(op.CPUPerOpRounds, tt.perRound) || !nearAll(op.CPURatioRounds, tt.ratios) ||
			op.CPUPerOp != tt.median || !near(op.CPURatio, tt.ratio) {
			t.Errorf("%s: %d ok, %d errors, cpu/op by round %v (median %s), ratios %v (median %v); want %d ok, %v (%s), %v (%v)",
				tt.name, op.OK, op.Errors, op.CPUPerOpRounds, op.CPUPerOp, op.CPURatioRounds, op.CPURatio, tt.ok, tt.perRound, tt.median, tt.ratios, tt.ratio)
		}
	}
	fb := rep.Op("testbuy>testlist")
	if fb == nil || fb.OK != 14 || fb.FallbackOf != "testbuy" || fb.CPUPerOpRounds != nil || fb.CPURatioRounds != nil {
		t.Fatalf("fallback row %+v; want 14 ok, no CPU figures of its own", fb)
	}
	if buy := rep.Op("testbuy"); fb.Seconds != buy.Seconds {
		t.Errorf("fallback row ran %vs, its operation %vs: want the same phases", fb.Seconds, buy.Seconds)
	}
	var b strings.Builder
	rep.WriteText(&b)
	t.Log("\n" + b.String())
	for _, s := range []string{"operations one after another, 2 rounds", "cpu vs noop by round", "1.20 3.00", "3.00 3.00",
		"server cpu/op: the median over the 2 rounds", "testbuy: its server cpu/op in each round is over the operations of that round's phase, 20 in all over the 2 rounds, 14 of them testbuy>testlist"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text report lacks %q:\n%s", s, b.String())
		}
	}
	var h strings.Builder
	if err := rep.WriteHTML(&h); err != nil || !strings.Contains(h.String(), "<th>CPU vs noop by round</th>") || !strings.Contains(h.String(), "<td>1.20 3.00</td>") {
		t.Errorf("html report: %v\n%s", err, h.String())
	}
}

// TestSequenceBracketed: a bracketed round runs the no-op before the first
// operation and after every operation.
func TestSequenceBracketed(t *testing.T) {
	for mix, want := range map[string][]string{
		"vote=1,drop=1,noop=1,board=1": {"noop", "board", "noop", "drop", "noop", "vote", "noop"},
		"noop=1,drop=1":                {"noop", "drop", "noop"},
		"noop=1":                       {"noop"},
	} {
		m, err := ParseMix(mix)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.bracketed(); !slices.Equal(got, want) {
			t.Errorf("%s: bracketed %v, want %v", mix, got, want)
		}
	}
}

// TestBracketBaselines: an operation's baseline in a round of a bracketed
// run is the mean of the no-op phases just before and just after its
// phase; the one there is when the other is missing (not measured, or a
// phase that did not run, so that the neighbour is not a no-op); none when
// both are.
func TestBracketBaselines(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct{ before, after, want time.Duration }{
		{10 * ms, 20 * ms, 15 * ms},
		{10 * ms, 0, 10 * ms},
		{0, 20 * ms, 20 * ms},
		{-1, 20 * ms, 20 * ms},
		{10 * ms, -1, 10 * ms},
		{0, 0, 0},
		{-1, -1, 0},
	} {
		if got := neighbourMean(tt.before, tt.after); got != tt.want {
			t.Errorf("neighbourMean(%s, %s) = %s, want %s", tt.before, tt.after, got, tt.want)
		}
	}
	// noop is a no-op phase of 10 operations costing perOp each (< 0: the
	// server's CPU time was not read).
	noop := func(round int, perOp time.Duration) phase {
		if perOp < 0 {
			return phase{name: "noop", round: round, cpu: phaseCPU{cpu: -1, ops: 10}}
		}
		return phase{name: "noop", round: round, cpu: phaseCPU{cpu: 10 * perOp, ops: 10}}
	}
	op := func(name string, round int) phase {
		return phase{name: name, round: round, cpu: phaseCPU{cpu: 300 * ms, ops: 10}}
	}
	phases := []phase{
		// Both neighbours of A; B's before not measured.
		noop(0, 10*ms), op("A", 0), noop(0, -1), op("B", 0), noop(0, 20*ms),
		// The no-op phase between A and B did not run: A has the one
		// before, B the one after.
		noop(1, 30*ms), op("A", 1), op("B", 1), noop(1, 50*ms),
		// Interrupted after A, whose no-op before was not measured: no
		// baseline for A, no phase of B.
		noop(2, -1), op("A", 2),
	}
	r := &Report{Rounds: 3, Bracket: true}
	for name, want := range map[string][]time.Duration{
		"A": {10 * ms, 30 * ms, 0},
		"B": {20 * ms, 50 * ms, 0},
	} {
		if got := r.bracketBaselines(phases, name); !slices.Equal(got, want) {
			t.Errorf("%s: baselines %v, want %v", name, got, want)
		}
	}
}

// TestSequentialBracket: with Bracket and two rounds each round runs a
// no-op phase before the first operation's and after every operation's,
// every phase for the same share of the budget; each operation's ratio in
// a round is over the mean of the no-op phases on either side of its phase
// (not the round's first no-op), the no-op's own figure is the median of
// all its phases, its ratio 1.
func TestSequentialBracket(t *testing.T) {
	g := &costlyGame{}
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	e, accts, _ := fakeEnv(t, 2, srv)
	// No account has a budget to buy with: every testbuy lists instead
	// (listCost), counted in the fallback row and in testbuy's phases.
	// 5 phases × 2 rounds: 10 phases of 10 operations, a minute each at
	// most (the budget ends each one long before).
	o := Options{Concurrency: 2, Mix: Mix{"testlist": 1, "noop": 1, "testbuy": 1}, Sequential: true, Rounds: 2, Bracket: true,
		Requests: 100, Duration: 10 * time.Minute}
	var last int64
	cpuSince := func() time.Duration {
		now := g.cpu.Load()
		d := now - last
		last = now
		return time.Duration(d)
	}
	var mu sync.Mutex
	var lines []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, args...))
		g.phase.Add(1) // before the phase's first request
	}
	rec := newRecorder(nil, false)
	rep := &Report{Sequential: true, Rounds: 2, Bracket: true}
	cpuSince()
	sequential(context.Background(), o, e, poolOf(accts), rec, rep, cpuSince, logf)
	rec.stop()
	rep.fill(rec)

	var want []string
	for round := 1; round <= 2; round++ {
		for _, name := range []string{"noop", "testbuy", "noop", "testlist", "noop"} {
			want = append(want, fmt.Sprintf("round %d of 2, phase %s: 1m0s or 10 operations", round, name))
		}
	}
	if !slices.Equal(lines, want) {
		t.Errorf("phases %q, want %q", lines, want)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	ms := time.Millisecond
	// The no-op costs k ms in phase k: phases 1, 3, 5 in the first round,
	// 6, 8, 10 in the second. testbuy ran in phases 2 and 7 (baselines
	// (1+3)/2 and (6+8)/2 ms), testlist in 4 and 9 ((3+5)/2 and (8+10)/2).
	for _, tt := range []struct {
		name     string
		ok       int64
		perRound []time.Duration
		ratios   []float64
		median   time.Duration
		ratio    float64
		phases   []time.Duration
	}{
		{name: "noop", ok: 60, perRound: []time.Duration{3 * ms, 8 * ms}, ratios: []float64{1, 1}, median: 5500 * time.Microsecond, ratio: 1,
			phases: []time.Duration{1 * ms, 3 * ms, 5 * ms, 6 * ms, 8 * ms, 10 * ms}},
		{name: "testbuy", perRound: []time.Duration{listCost, listCost}, ratios: []float64{15, 30.0 / 7}, median: listCost, ratio: (15 + 30.0/7) / 2},
		{name: "testlist", ok: 20, perRound: []time.Duration{listCost, listCost}, ratios: []float64{7.5, 30.0 / 9}, median: listCost, ratio: (7.5 + 30.0/9) / 2},
	} {
		op := rep.Op(tt.name)
		if op == nil {
			t.Errorf("no %s row", tt.name)
			continue
		}
		nearAll := len(op.CPURatioRounds) == len(tt.ratios)
		for i := 0; nearAll && i < len(tt.ratios); i++ {
			nearAll = near(op.CPURatioRounds[i], tt.ratios[i])
		}
		if op.OK != tt.ok || op.Errors != 0 || !slices.Equal(op.CPUPerOpRounds, tt.perRound) || !nearAll ||
			op.CPUPerOp != tt.median || !near(op.CPURatio, tt.ratio) || !slices.Equal(op.CPUPerOpPhases, tt.phases) {
			t.Errorf("%s: %d ok, %d errors, cpu/op by round %v (median %s), ratios %v (median %v), by phase %v; want %d ok, %v (%s), %v (%v), %v",
				tt.name, op.OK, op.Errors, op.CPUPerOpRounds, op.CPUPerOp, op.CPURatioRounds, op.CPURatio, op.CPUPerOpPhases,
				tt.ok, tt.perRound, tt.median, tt.ratios, tt.ratio, tt.phases)
		}
	}
	if fb := rep.Op("testbuy>testlist"); fb == nil || fb.OK != 20 {
		t.Errorf("fallback row %+v; want 20 ok", fb)
	}
	j, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(j), `"bracket":true`) {
		t.Errorf("json report: %v\n%s", err, j)
	}
	var b strings.Builder
	rep.WriteText(&b)
	t.Log("\n" + b.String())
	for _, s := range []string{"2 rounds, a no-op phase before and after each operation's", "15.00 4.29", "7.50 3.33", "1.00 1.00",
		"the no-op's: the median over all its phases",
		"each round's cpu/op over the mean of the cpu/op of the no-op phases on either side of the operation's phase in that round"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text report lacks %q:\n%s", s, b.String())
		}
	}
	var h strings.Builder
	if err := rep.WriteHTML(&h); err != nil || !strings.Contains(h.String(), "2 rounds, a no-op phase before and after each operation's") ||
		!strings.Contains(h.String(), "<td>15.00 4.29</td>") {
		t.Errorf("html report: %v\n%s", err, h.String())
	}
}

// TestRunBound: a run with no operation limit (--duration alone) says its
// duration only, not the most an int32 holds.
func TestRunBound(t *testing.T) {
	for _, c := range []struct {
		d        time.Duration
		requests int
		want     string
	}{
		{30 * time.Second, math.MaxInt32, "30s"},
		{30 * time.Second, 20000, "at most 30s or 20000 operations"},
	} {
		if got := runBound(c.d, c.requests); got != c.want {
			t.Errorf("runBound(%v, %d) = %q, want %q", c.d, c.requests, got, c.want)
		}
	}
}
