package loadtest

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Report is the result of a run.
type Report struct {
	Target      string        `json:"target"`
	Mode        string        `json:"mode"` // "closed" or "open"
	Concurrency int           `json:"concurrency"`
	Rate        float64       `json:"rate,omitempty"`
	Sequential  bool          `json:"sequential"`
	Rounds      int           `json:"rounds"`  // times a sequential run ran its sequence of phases (1 for any other run)
	Bracket     bool          `json:"bracket"` // a no-op phase ran before and after each operation's, the baseline of its CPU ratios (OpReport.CPURatio)
	Accounts    int           `json:"accounts"`
	LoginPrefix string        `json:"login_prefix"`
	Mix         string        `json:"mix"`
	Started     time.Time     `json:"started"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	// Unsent counts open-loop operations that were due but never sent
	// before the run ended (the server fell behind the rate).
	Unsent int64 `json:"unsent"`
	// Stopped says why the run (the last phase of a sequential run) ended.
	Stopped string `json:"stopped"`
	// Targets counts the requests sent to each target, when there were
	// several.
	Targets map[string]int64 `json:"requests_by_target,omitempty"`
	// MixedCPU is the server's CPU time during a mixed run (its plugin
	// processes included), when its process id was given.
	MixedCPU time.Duration `json:"server_cpu_ns,omitempty"`
	// CPUUnavailable says why the server's CPU time was not read.
	CPUUnavailable string `json:"server_cpu_unavailable,omitempty"`
	// FloorCores are the cores the naive login floor was measured on
	// (Options.FloorCores), "" when it was not. ModExpCPURounds holds the
	// CPU time of its three modexps measured during each round's login
	// phase (0 where not measured), and ModExpCPU their median.
	// LoginFloorRounds holds each round's floor, its modexps plus two of
	// the login's no-op baseline in the round (the same baseline as the
	// login's cpu vs noop: with Bracket, the mean of the no-op phases on
	// either side of the login's), 0 where either is missing, and
	// LoginFloorRatioRounds the login's server CPU per operation in the
	// round over it (0 where either is missing); LoginFloorRatio is the
	// median of those ratios. LoginFloor is ModExpCPU plus two of the
	// median of the login's no-op baselines. FloorUnavailable says why a
	// measurement failed.
	FloorCores            string          `json:"floor_cores,omitempty"`
	ModExpCPU             time.Duration   `json:"modexp_cpu_ns,omitempty"`
	ModExpCPURounds       []time.Duration `json:"modexp_cpu_ns_rounds,omitempty"`
	LoginFloor            time.Duration   `json:"login_floor_ns,omitempty"`
	LoginFloorRounds      []time.Duration `json:"login_floor_ns_rounds,omitempty"`
	LoginFloorRatioRounds []float64       `json:"login_floor_ratio_rounds,omitempty"`
	LoginFloorRatio       float64         `json:"login_floor_ratio,omitempty"`
	FloorUnavailable      string          `json:"login_floor_unavailable,omitempty"`
	// Settle is the longest the tester waited after each phase for the
	// server to go quiet (Options.Settle; 0: it did not wait); SettleCPU
	// is the server's CPU meanwhile over all the phases, billed to the
	// phases before, and SettleCapped counts the phases after which the
	// server was still busy when Settle was over.
	Settle       time.Duration `json:"settle_ns,omitempty"`
	SettleCPU    time.Duration `json:"settle_cpu_ns,omitempty"`
	SettleCapped int           `json:"settle_capped,omitempty"`

	Ops         []OpReport      `json:"operations"`
	Timeline    []SecondReport  `json:"timeline"`
	Consistency Consistency     `json:"consistency"`
	Server      *ServerCounters `json:"server,omitempty"`
	Cleanup     Cleanup         `json:"cleanup"`
}

// OpReport is one operation's figures.
type OpReport struct {
	Name     string           `json:"name"`
	Requests int              `json:"requests_per_op"`
	OK       int64            `json:"ok"`
	Errors   int64            `json:"errors"`
	Kinds    map[string]int64 `json:"errors_by_kind,omitempty"`
	// FirstErrors holds the first error seen of each kind.
	FirstErrors map[string]string `json:"first_errors,omitempty"`
	Seconds     float64           `json:"seconds"`   // time the operation ran (its phase, or the run)
	Throughput  float64           `json:"ops_per_s"` // OK / Seconds
	Mean        time.Duration     `json:"mean_ns"`   // latency of successful operations
	P50         time.Duration     `json:"p50_ns"`    // ...
	P90         time.Duration     `json:"p90_ns"`    //
	P99         time.Duration     `json:"p99_ns"`    //
	P999        time.Duration     `json:"p99_9_ns"`  //
	Max         time.Duration     `json:"max_ns"`    //
	// Ratio compares the operation with the no-op (noop) of the same run:
	// run one after another (sequential), the operation's ops/s over the
	// no-op's; mixed, the no-op's mean latency over the operation's. Below
	// 1: slower than the no-op.
	Ratio   float64  `json:"ratio_to_noop,omitempty"`
	Buckets []Bucket `json:"histogram"` // latency distribution
	// Retried counts requests sent again because the keep-alive connection
	// they went out on had been closed by the server before they reached
	// it (see transport); each succeeded or failed on its own afterwards.
	Retried int64 `json:"retried_unsent,omitempty"`
	// Stopped says why the operation's phase ended (sequential runs).
	Stopped string `json:"stopped,omitempty"`
	// FallbackOf names the operation of the mix a fallback row belongs to
	// (e.g. purchase for purchase>exchange), and Fallback why it ran.
	FallbackOf string `json:"fallback_of,omitempty"`
	Fallback   string `json:"fallback,omitempty"`
	// CPUPerOp is the server's CPU time (its process and its plugin
	// processes, from /proc) during the operation's phase over the
	// operations of the phase, fallbacks and failures included; with
	// several rounds, the median of the rounds' figures; the no-op's in a
	// bracketed run (Report.Bracket), the median over all its phases.
	// CPURatio is it over the no-op's; with several rounds, the median of
	// the rounds' ratios, each over the same round's no-op (not the ratio
	// of the medians); in a bracketed run, each round's over the mean of
	// the no-op phases on either side of the operation's phase of the
	// round (the one of them measured when the other is missing). Given
	// the server's process id, in sequential runs and in a run of one
	// operation alone.
	CPUPerOp time.Duration `json:"server_cpu_per_op_ns,omitempty"`
	CPURatio float64       `json:"server_cpu_ratio_to_noop,omitempty"`
	// CPUPerOpRounds holds the server's CPU time per operation of each
	// round, in order (the no-op's in a bracketed run: the median of its
	// phases in the round), and CPURatioRounds each round's ratio of it to
	// the same round's no-op's (in a bracketed run, to the mean of the
	// no-op phases on either side of the operation's phase of the round):
	// 0 where a round's figure is missing (its phase did not run, or the
	// server's CPU time did not move or was not read; for a ratio, either
	// figure missing, in a bracketed run both no-op phases). One value in
	// a run of one round.
	CPUPerOpRounds []time.Duration `json:"server_cpu_per_op_ns_rounds,omitempty"`
	CPURatioRounds []float64       `json:"server_cpu_ratio_to_noop_rounds,omitempty"`
	// CPUPerOpPhases holds, for the no-op of a bracketed run, the server's
	// CPU time per operation of each of its phases in the order they ran
	// (0 where missing): the baselines of the operations' ratios.
	CPUPerOpPhases []time.Duration `json:"server_cpu_per_op_ns_phases,omitempty"`
}

// Bucket is one bar of the latency histogram: Count operations took at
// most UpTo.
type Bucket struct {
	UpTo  time.Duration `json:"up_to_ns"`
	Count int64         `json:"count"`
}

// SecondReport is one second of the run.
type SecondReport struct {
	Second int           `json:"second"`
	OK     int64         `json:"ok"`
	Errors int64         `json:"errors"`
	P50    time.Duration `json:"p50_ns"`
	P99    time.Duration `json:"p99_ns"`
}

// Total sums OK and errors over the operations.
func (r *Report) Total() (ok, errs int64) {
	for _, o := range r.Ops {
		ok += o.OK
		errs += o.Errors
	}
	return ok, errs
}

// Failures are what makes the run a failure besides the consistency
// check (Consistency.OK), one sentence each for the operator: no
// operation succeeded; operations failed (unless allowErrors: a failover
// test, where a node is killed on purpose and only the consistency check
// judges); the run was interrupted; the balances of every account were
// left out of the check (too many operations of unknown outcome: a check
// of nothing is no pass); test accounts could not be removed. None: the
// run passed, as far as the tester can tell.
func (r *Report) Failures(allowErrors bool) []string {
	var out []string
	ok, errs := r.Total()
	switch {
	case ok == 0 && errs == 0:
		out = append(out, "no operation ran: give it more --duration or --requests")
	case ok == 0:
		out = append(out, fmt.Sprintf("no operation succeeded (%d failed)", errs))
	}
	if errs > 0 && !allowErrors {
		kinds := map[string]int64{}
		for _, o := range r.Ops {
			for k, n := range o.Kinds {
				kinds[k] += n
			}
		}
		names := slices.Sorted(maps.Keys(kinds))
		for i, k := range names {
			names[i] = fmt.Sprintf("%s %d", k, kinds[k])
		}
		out = append(out, fmt.Sprintf("%d of %d operations failed (%s); --allow-errors accepts failed operations "+
			"(a failover test) and leaves the verdict to the consistency check", errs, ok+errs, strings.Join(names, ", ")))
	}
	if r.Stopped == stoppedInterrupted {
		out = append(out, "the run was interrupted")
	}
	if c := r.Consistency; c.BalancesChecked == 0 && c.Uncertain > 0 {
		out = append(out, fmt.Sprintf("no account's balances could be checked: all %d were left out after too many operations of unknown outcome", c.Uncertain))
	}
	if r.Cleanup.Failed > 0 {
		out = append(out, fmt.Sprintf("%d test accounts could not be removed (logins %s...; first error: %s)", r.Cleanup.Failed, r.LoginPrefix, r.Cleanup.FirstError))
	}
	return out
}

// Op returns the named operation's report, or nil.
func (r *Report) Op(name string) *OpReport {
	for i := range r.Ops {
		if r.Ops[i].Name == name {
			return &r.Ops[i]
		}
	}
	return nil
}

func (r *Report) fill(rec *recorder) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for name, s := range rec.ops {
		o := OpReport{Name: name, Requests: requestsOf(name), OK: s.ok, Errors: s.errs, Seconds: s.elapsed.Seconds(),
			Retried: s.retried, Stopped: s.stopped}
		if of, ok := fallbackRows[name]; ok {
			o.FallbackOf, o.Fallback = of, operations[of].fallback.Why
		}
		if of, ok := fallbackRows[name]; ok && rec.ops[of] != nil {
			// A fallback row ran in its operation's phases (setPhase).
			o.Seconds = rec.ops[of].elapsed.Seconds()
		}
		if len(s.kinds) > 0 {
			o.Kinds, o.FirstErrors = s.kinds, s.first
		}
		if o.Seconds > 0 {
			o.Throughput = float64(s.ok) / o.Seconds
		}
		h := s.hist
		if h.TotalCount() > 0 {
			o.Mean = time.Duration(h.Mean() * float64(time.Microsecond))
			o.P50, o.P90, o.P99 = usDur(h.ValueAtQuantile(50)), usDur(h.ValueAtQuantile(90)), usDur(h.ValueAtQuantile(99))
			o.P999, o.Max = usDur(h.ValueAtQuantile(99.9)), usDur(h.Max())
			o.Buckets = buckets(h.Distribution())
		}
		r.Ops = append(r.Ops, o)
	}
	sort.Slice(r.Ops, func(i, j int) bool { return r.Ops[i].Name < r.Ops[j].Name })
	noopRounds := r.cpuPerOpRounds(rec.phases, "noop")
	for i := range r.Ops {
		o := &r.Ops[i]
		o.CPUPerOpRounds = r.cpuPerOpRounds(rec.phases, o.Name)
		base := noopRounds
		if r.Bracket && o.Name != "noop" {
			base = r.bracketBaselines(rec.phases, o.Name)
		}
		o.CPUPerOp, o.CPURatioRounds, o.CPURatio = cpuRounds(o.CPUPerOpRounds, base)
		if o.Name == "login" {
			r.fillFloor(o.CPUPerOpRounds, base)
		}
		if r.Bracket && o.Name == "noop" && o.CPUPerOpRounds != nil {
			for _, p := range rec.phases {
				if p.name == "noop" {
					o.CPUPerOpPhases = append(o.CPUPerOpPhases, p.cpu.perOp())
				}
			}
			o.CPUPerOp = medianOf(o.CPUPerOpPhases)
		}
	}
	if noop := r.Op("noop"); noop != nil && noop.OK > 0 {
		for i := range r.Ops {
			o := &r.Ops[i]
			if o.OK == 0 {
				continue
			}
			if r.Sequential {
				o.Ratio = o.Throughput / noop.Throughput
			} else {
				o.Ratio = float64(noop.Mean) / float64(o.Mean)
			}
		}
	}
	for i, t := range rec.timeline {
		r.Timeline = append(r.Timeline, SecondReport{Second: i, OK: t.ok, Errors: t.errs,
			P50: usDur(t.hist.ValueAtQuantile(50)), P99: usDur(t.hist.ValueAtQuantile(99))})
	}
}

// fillFloor sets the naive login floor's figures of the report from the
// modexps' CPU time of each round (r.ModExpCPURounds), the login's server
// CPU per operation in each round (login) and its no-op baseline in each
// round (noop), 0 standing for a missing figure: a round's floor is its
// modexps plus two of its no-op baseline (a login is two requests), and
// its ratio the login over the floor, each only when both figures are
// there.
func (r *Report) fillFloor(login, noop []time.Duration) {
	if r.ModExpCPURounds == nil {
		return
	}
	r.ModExpCPU = medianOf(r.ModExpCPURounds)
	r.LoginFloorRounds = make([]time.Duration, len(r.ModExpCPURounds))
	for i, m := range r.ModExpCPURounds {
		if m > 0 && i < len(noop) && noop[i] > 0 {
			r.LoginFloorRounds[i] = m + 2*noop[i]
		}
	}
	_, r.LoginFloorRatioRounds, r.LoginFloorRatio = cpuRounds(login, r.LoginFloorRounds)
	if n := medianOf(noop); r.ModExpCPU > 0 && n > 0 {
		r.LoginFloor = r.ModExpCPU + 2*n
	}
}

// cpuPerOpRounds returns the server's CPU time per operation of each of
// the operation's rounds (0 where missing; the median of the round's
// phases when it has several, as the no-op of a bracketed run), at least
// r.Rounds of them, or nil when it was never measured (no server process
// id, a mixed run of several operations, a fallback row).
func (r *Report) cpuPerOpRounds(phases []phase, name string) []time.Duration {
	var byRound [][]time.Duration
	measured := false
	for _, p := range phases {
		if p.name != name {
			continue
		}
		measured = measured || p.cpu.cpu >= 0
		for len(byRound) <= p.round {
			byRound = append(byRound, nil)
		}
		byRound[p.round] = append(byRound[p.round], p.cpu.perOp())
	}
	if !measured {
		return nil
	}
	out := make([]time.Duration, max(len(byRound), r.Rounds))
	for i, vs := range byRound {
		out[i] = medianOf(vs)
	}
	return out
}

// bracketBaselines returns, for each round of a bracketed run (at least
// r.Rounds of them), the baseline of the operation's CPU ratio to the
// no-op: the neighbourMean of the CPU per operation of the phases just
// before and just after the operation's phase of the round, each counted
// only when it is a no-op phase (a phase that did not run leaves its
// neighbours without it); 0 where the round has no baseline.
func (r *Report) bracketBaselines(phases []phase, name string) []time.Duration {
	out := make([]time.Duration, r.Rounds)
	noopAt := func(i int) time.Duration {
		if i < 0 || i >= len(phases) || phases[i].name != "noop" {
			return 0
		}
		return phases[i].cpu.perOp()
	}
	for i, p := range phases {
		if p.name != name {
			continue
		}
		for len(out) <= p.round {
			out = append(out, 0)
		}
		out[p.round] = neighbourMean(noopAt(i-1), noopAt(i+1))
	}
	return out
}

// neighbourMean is the baseline of an operation's phase in a bracketed
// run, from the CPU per operation of the no-op phases just before and just
// after it (<= 0: missing): their mean, the one of them there is when the
// other is missing, 0 when both are.
func neighbourMean(before, after time.Duration) time.Duration {
	switch {
	case before > 0 && after > 0:
		return (before + after) / 2
	case before > 0:
		return before
	case after > 0:
		return after
	}
	return 0
}

// cpuRounds aggregates an operation's server CPU time per operation in
// each round (op) with the no-op's in the same rounds (noop; nil without
// the no-op), 0 standing for a round's missing figure: median is the
// median of the rounds' figures, ratios each round's ratio to the same
// round's no-op (0 where either figure is missing: that round is left out,
// never divided by 0; nil when no round has a ratio), and medianRatio the
// median of the ratios. Medians are over the rounds that have the figure,
// the mean of the two middle ones for an even count, 0 for none.
func cpuRounds(op, noop []time.Duration) (median time.Duration, ratios []float64, medianRatio float64) {
	median = medianOf(op)
	for i, v := range op {
		if i < len(noop) && v > 0 && noop[i] > 0 {
			if ratios == nil {
				ratios = make([]float64, len(op))
			}
			ratios[i] = float64(v) / float64(noop[i])
		}
	}
	return median, ratios, medianOf(ratios)
}

// medianOf is the median of the values > 0 (the mean of the two middle
// ones for an even count), 0 for none.
func medianOf[T time.Duration | float64](vs []T) T {
	var in []T
	for _, v := range vs {
		if v > 0 {
			in = append(in, v)
		}
	}
	if len(in) == 0 {
		return 0
	}
	slices.Sort(in)
	m := len(in) / 2
	if len(in)%2 == 1 {
		return in[m]
	}
	return (in[m-1] + in[m]) / 2
}

type hdrBar = hdrhistogram.Bar

// buckets folds the HDR distribution into at most ~40 log-spaced bars.
func buckets(bars []hdrBar) []Bucket {
	var out []Bucket
	edge := int64(1)
	for _, b := range bars {
		if b.Count == 0 {
			continue
		}
		for b.To > edge {
			edge = int64(math.Ceil(float64(edge) * 1.4))
		}
		if n := len(out); n > 0 && out[n-1].UpTo == usDur(edge) {
			out[n-1].Count += b.Count
		} else {
			out = append(out, Bucket{UpTo: usDur(edge), Count: b.Count})
		}
	}
	return out
}

// WriteText writes the human report.
func (r *Report) WriteText(w io.Writer) {
	ok, errs := r.Total()
	fmt.Fprintf(w, "target %s, %s loop, concurrency %d", r.Target, r.Mode, r.Concurrency)
	if r.Rate > 0 {
		fmt.Fprintf(w, ", rate %.0f/s", r.Rate)
	}
	if r.Sequential {
		fmt.Fprint(w, ", operations one after another")
		if r.Rounds > 1 {
			fmt.Fprintf(w, ", %d rounds", r.Rounds)
		}
		if r.Bracket {
			fmt.Fprint(w, ", a no-op phase before and after each operation's")
		}
	}
	fmt.Fprintf(w, "\n%d accounts (%s...), mix %s, %s: %d ok, %d errors", r.Accounts, r.LoginPrefix, r.Mix, r.Elapsed.Round(time.Millisecond), ok, errs)
	if r.Unsent > 0 {
		fmt.Fprintf(w, ", %d due but never sent (the server fell behind the rate)", r.Unsent)
	}
	fmt.Fprintln(w)
	if r.Stopped != "" {
		what := "the run"
		if r.Sequential {
			what = "the last phase"
		}
		fmt.Fprintf(w, "%s stopped: %s\n", what, r.Stopped)
	}
	cpu, byRound := r.hasCPU(), r.cpuByRound()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "operation\treqs/op\tok\terrors\tretried\tops/s\tp50\tp90\tp99\tp99.9\tmax\tvs noop\t"
	if cpu {
		head += "server cpu/op\tcpu vs noop\t"
	}
	if byRound {
		head += "cpu vs noop by round\t"
	}
	fmt.Fprintln(tw, head)
	for _, o := range r.Ops {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t", o.Name, o.Requests, o.OK, o.Errors, o.Retried, o.Throughput,
			round(o.P50), round(o.P90), round(o.P99), round(o.P999), round(o.Max), ratioText(o.Ratio))
		if cpu {
			fmt.Fprintf(tw, "%s\t%s\t", round(o.CPUPerOp), ratioText(o.CPURatio))
		}
		if byRound {
			fmt.Fprintf(tw, "%s\t", o.roundRatiosText())
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, o := range r.Ops {
		if o.FallbackOf != "" {
			fmt.Fprintf(w, "  %s: a %s that ran as %s (%s)\n", o.Name, o.FallbackOf, strings.TrimPrefix(o.Name, o.FallbackOf+">"), o.Fallback)
			if of := r.Op(o.FallbackOf); of != nil && of.CPUPerOp > 0 {
				if r.Rounds > 1 {
					fmt.Fprintf(w, "  %s: its server cpu/op in each round is over the operations of that round's phase, %d in all over the %d rounds, %d of them %s\n",
						of.Name, of.OK+of.Errors+o.OK+o.Errors, r.Rounds, o.OK+o.Errors, o.Name)
				} else {
					fmt.Fprintf(w, "  %s: its server cpu/op is over its phase's %d operations, %d of them %s\n",
						of.Name, of.OK+of.Errors+o.OK+o.Errors, o.OK+o.Errors, o.Name)
				}
			}
		}
		if r.Sequential && o.Stopped != "" && o.Stopped != r.Stopped && o.FallbackOf == "" {
			fmt.Fprintf(w, "  %s phase stopped: %s\n", o.Name, o.Stopped)
		}
	}
	for _, o := range r.Ops {
		kinds := make([]string, 0, len(o.Kinds))
		for k := range o.Kinds {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			fmt.Fprintf(w, "  %s errors %s: %d (first: %s)\n", o.Name, k, o.Kinds[k], o.FirstErrors[k])
		}
	}
	for _, l := range r.ratioNotes() {
		fmt.Fprintln(w, l)
	}
	if l := r.floorLine(); l != "" {
		fmt.Fprintln(w, l)
	}
	if len(r.Targets) > 0 {
		fmt.Fprint(w, "requests by target:")
		for _, t := range slices.Sorted(maps.Keys(r.Targets)) {
			fmt.Fprintf(w, " %s %d;", t, r.Targets[t])
		}
		fmt.Fprintln(w)
	}
	c := r.Consistency
	fmt.Fprintf(w, "consistency: %s\n", c.Summary())
	for _, m := range c.Mismatches {
		fmt.Fprintf(w, "  %s\n", m)
	}
	fmt.Fprintf(w, "accounts: %s\n", r.Cleanup.Summary())
	if s := r.Server; s != nil {
		fmt.Fprintln(w, "server, during the run (its metrics, after - before; all of them in the JSON report):")
		for _, l := range s.Summary() {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

// floorLine states the login against the naive login floor (fillFloor),
// "" when the floor was not asked for.
func (r *Report) floorLine() string {
	if r.FloorCores == "" {
		return ""
	}
	if r.ModExpCPU <= 0 {
		why := r.FloorUnavailable
		if why == "" {
			why = "no login phase ran"
		}
		return "login floor: not measured: " + why
	}
	us := func(d time.Duration) string {
		if d <= 0 {
			return "-"
		}
		return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 0, 64) + " µs"
	}
	var login time.Duration
	if o := r.Op("login"); o != nil {
		login = o.CPUPerOp
	}
	noops := time.Duration(0)
	if r.LoginFloor > 0 {
		noops = r.LoginFloor - r.ModExpCPU
	}
	var line string
	if len(r.ModExpCPURounds) > 1 {
		ratios := make([]string, len(r.LoginFloorRounds))
		for i := range ratios {
			ratios[i] = "-"
			if i < len(r.LoginFloorRatioRounds) {
				ratios[i] = ratioText(r.LoginFloorRatioRounds[i])
			}
		}
		line = fmt.Sprintf("login floor: three math/big modexps %s (median over rounds, measured on cores %s during each login phase) "+
			"+ two no-ops %s = %s; server CPU per login %s; %s x the floor (median of the rounds' ratios: %s)",
			us(r.ModExpCPU), r.FloorCores, us(noops), us(r.LoginFloor), us(login), ratioText(r.LoginFloorRatio), strings.Join(ratios, " "))
	} else {
		line = fmt.Sprintf("login floor: three math/big modexps %s (measured on cores %s during the login phase) + two no-ops %s = %s; "+
			"server CPU per login %s; %s x the floor", us(r.ModExpCPU), r.FloorCores, us(noops), us(r.LoginFloor), us(login), ratioText(r.LoginFloorRatio))
	}
	if r.FloorUnavailable != "" {
		line += "; not measured in some rounds: " + r.FloorUnavailable
	}
	return line
}

func ratioText(r float64) string {
	if r <= 0 {
		return "-"
	}
	return strconv.FormatFloat(r, 'f', 2, 64)
}

// hasCPU reports whether the server's CPU per operation was measured.
func (r *Report) hasCPU() bool {
	for _, o := range r.Ops {
		if o.CPUPerOp > 0 {
			return true
		}
	}
	return false
}

// cpuByRound reports whether the report shows each round's CPU ratio to
// the no-op: a sequential run of several rounds, with the ratios measured.
func (r *Report) cpuByRound() bool {
	if r.Rounds <= 1 {
		return false
	}
	for _, o := range r.Ops {
		if len(o.CPURatioRounds) > 0 {
			return true
		}
	}
	return false
}

// roundRatiosText writes the operation's CPU ratio to the no-op of each
// round, in order ("2.41 2.50 2.38"; "-" for a round without one).
func (o *OpReport) roundRatiosText() string {
	if len(o.CPURatioRounds) == 0 {
		return "-"
	}
	parts := make([]string, len(o.CPURatioRounds))
	for i, v := range o.CPURatioRounds {
		parts[i] = ratioText(v)
	}
	return strings.Join(parts, " ")
}

// ratioNotes explain the "vs noop" columns of the run, and the server CPU
// figures.
func (r *Report) ratioNotes() []string {
	var out []string
	if r.Op("noop") != nil {
		switch {
		case r.Sequential && r.Rounds > 1:
			out = append(out, fmt.Sprintf("vs noop: the operation's ops/s over the no-op's, each run alone with the same concurrency, over all %d rounds "+
				"(below 1: slower than the no-op); counts, errors and latencies are of all the rounds together", r.Rounds))
		case r.Sequential:
			out = append(out, "vs noop: the operation's ops/s over the no-op's, each run alone with the same concurrency (below 1: slower than the no-op)")
		default:
			out = append(out, "vs noop: the no-op's mean latency over the operation's, in the same mixed run (below 1: slower than the no-op)")
		}
	}
	switch {
	case r.hasCPU() && r.Bracket && r.Rounds > 1:
		out = append(out, fmt.Sprintf("server cpu/op: the median over the %d rounds of the server's CPU time (user + system, its plugin processes included, from /proc) "+
			"during the operation's phase of the round over the operations of that phase (the no-op's: the median over all its phases); "+
			"cpu vs noop: the median of the rounds' ratios (above 1: costs the server more than the no-op), each round's cpu/op over the mean "+
			"of the cpu/op of the no-op phases on either side of the operation's phase in that round (--bracket; the one measured when the other "+
			"is missing); cpu vs noop by round: those ratios, round by round", r.Rounds))
	case r.hasCPU() && r.Bracket:
		out = append(out, "server cpu/op: the server's CPU time (user + system, its plugin processes included, from /proc) during the operation's phase "+
			"over the operations of that phase (the no-op's: the median over all its phases); cpu vs noop: that over the mean of the cpu/op of the "+
			"no-op phases on either side of the operation's phase (--bracket; the one measured when the other is missing), above 1: costs the "+
			"server more than the no-op")
	case r.hasCPU() && r.Rounds > 1:
		out = append(out, fmt.Sprintf("server cpu/op: the median over the %d rounds of the server's CPU time (user + system, its plugin processes included, from /proc) "+
			"during the operation's phase of the round over the operations of that phase; cpu vs noop: the median of the rounds' ratios, each "+
			"round's cpu/op over the same round's no-op's (above 1: costs the server more than the no-op); cpu vs noop by round: those ratios, round by round", r.Rounds))
	case r.hasCPU():
		out = append(out, "server cpu/op: the server's CPU time (user + system, its plugin processes included, from /proc) during the operation's phase "+
			"over the operations of that phase; cpu vs noop: that over the no-op's (above 1: costs the server more than the no-op)")
	}
	if r.Settle > 0 && r.hasCPU() {
		line := fmt.Sprintf("settling: after each phase the tester waited (%s at most) until the server was quiet (under a twentieth of a core for %s); "+
			"the server's CPU meanwhile, %s over the run (its background work: Pebble's flushes and compactions, the collector), counts to the phase before",
			r.Settle, settleWindow, r.SettleCPU.Round(time.Millisecond))
		if r.SettleCapped > 0 {
			line += fmt.Sprintf("; %d phases left it busy at that limit", r.SettleCapped)
		}
		out = append(out, line)
	}
	if r.MixedCPU > 0 {
		ok, errs := r.Total()
		out = append(out, fmt.Sprintf("server cpu: %s over the run, %s per operation of the mix", r.MixedCPU.Round(time.Millisecond), round(r.MixedCPU/time.Duration(max(ok+errs, 1)))))
	}
	if r.CPUUnavailable != "" {
		out = append(out, "server cpu: not measured: "+r.CPUUnavailable)
	}
	return out
}

func round(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// Consistency is the end-of-run check of what the replies said against
// what the server holds.
type Consistency struct {
	// BalancesChecked accounts had tickets and gold compared with
	// start - spent + won as the replies said, over the operations of
	// unknown outcome since the last reply that stated them (balance.go);
	// BalancesOK matched, and no reply of the run disagreed. Accounts is
	// how many accounts the run followed (granted tickets and gold), and
	// Reanchored how many times a reply's balances were explained by
	// operations of unknown outcome and taken as the account's.
	BalancesChecked int `json:"balances_checked"`
	BalancesOK      int `json:"balances_ok"`
	Accounts        int `json:"accounts"`
	Reanchored      int `json:"reanchored"`
	// Uncertain accounts were left out of the balance check: more
	// operations of unknown outcome in a row than the checker follows, or
	// one whose effect an area could not state (Account.MarkUncertain).
	Uncertain  int      `json:"uncertain"`
	Mismatches []string `json:"mismatches,omitempty"` // the first few
	Skipped    string   `json:"skipped,omitempty"`    // why checks were not made (Skip)

	// Converged is how long a check waited for the server's counts to
	// converge (Env.Converged), the longest of the checks.
	Converged time.Duration `json:"converged_ns,omitempty"`
	// Areas are the areas' own checks, by name (Consistency.Area), as
	// their Check and Removed hooks made them: every figure an area
	// compares is one of them (the JSON report's "areas").
	Areas map[string]*AreaCheck `json:"areas,omitempty"`
}

// OK reports whether nothing disagreed.
func (c *Consistency) OK() bool {
	return c.BalancesOK == c.BalancesChecked && c.areasOK()
}

// Summary is one line.
func (c *Consistency) Summary() string {
	verdict := "OK"
	if !c.OK() {
		verdict = "MISMATCH"
	}
	s := fmt.Sprintf("%s: balances %d/%d", verdict, c.BalancesOK, c.BalancesChecked)
	if c.Accounts > 0 {
		s += fmt.Sprintf(" (%d of %d accounts checked, %.0f%%; %d re-anchored over operations of unknown outcome)",
			c.BalancesChecked, c.Accounts, 100*float64(c.BalancesChecked)/float64(c.Accounts), c.Reanchored)
	}
	s += fmt.Sprintf(", %d accounts left out (too many operations of unknown outcome)", c.Uncertain)
	s += c.areasSummary()
	if c.Converged > 0 {
		s += fmt.Sprintf(" (the server's counts converged after %s)", c.Converged.Round(100*time.Millisecond))
	}
	if c.Skipped != "" {
		s += "; " + c.Skipped
	}
	return s
}

// add adds the findings of the check o (Env.Converged) to c.
func (c *Consistency) add(o *Consistency) {
	c.BalancesChecked += o.BalancesChecked
	c.BalancesOK += o.BalancesOK
	c.addAreas(o)
	for _, m := range o.Mismatches {
		c.Mismatch("%s", m)
	}
	if o.Skipped != "" {
		c.Skip(o.Skipped)
	}
}

// Skip says why a check was not made.
func (c *Consistency) Skip(why string) {
	c.Skipped = strings.TrimPrefix(c.Skipped+"; "+why, "; ")
}

// Mismatch adds a finding that disagreed (the first few are kept); an
// area's Check also counts it in its own figures, or the run passes.
func (c *Consistency) Mismatch(format string, args ...any) {
	if len(c.Mismatches) < 10 {
		c.Mismatches = append(c.Mismatches, fmt.Sprintf(format, args...))
	}
}

// checkTries is how many times the end-of-run check sends a read that got
// no reply, each time to a target not tried yet while there is one (so
// every target of up to checkTries is tried).
const checkTries = 10

// consistency compares each account's balances with the server's (the
// areas' Check adds their own findings after it).
func consistency(ctx context.Context, opc *opClient, accts []*Account) Consistency {
	var c Consistency
	for _, a := range accts {
		reqCtx, cancel := context.WithTimeout(ctx, requestTimeout)
		if a.known {
			c.Accounts++
			c.Reanchored += a.reanchored
		}
		switch {
		case !a.known:
		case a.uncertain:
			c.Uncertain++
			if a.mismatch != "" { // it disagreed before it was left out
				c.BalancesChecked++
				c.Mismatch("%s", a.mismatch)
			}
		case opc == nil:
			c.Skipped = "no operator listener to read balances from"
		default:
			c.BalancesChecked++
			before := a.reanchored
			if j, err := opc.account(reqCtx, a.login); err != nil {
				c.Mismatch("%s: %v", a.login, err)
			} else if err := a.checkServerBalances(j.Tickets, j.Gold); err != nil {
				c.Mismatch("%v", err)
			} else {
				c.BalancesOK++
			}
			c.Reanchored += a.reanchored - before
		}
		cancel()
	}
	return c
}

// ServerCounters are the server's own metrics around the run.
type ServerCounters struct {
	// Delta holds counters that moved (after - before), by series.
	Delta map[string]float64 `json:"delta"`
	// After holds gauges read at the end (memory, actors, goroutines).
	After map[string]float64 `json:"after"`
}

// Lines formats the counters, sorted.
func (s *ServerCounters) Lines() []string {
	var out []string
	for k, v := range s.Delta {
		out = append(out, fmt.Sprintf("%s %+g", k, v))
	}
	for k, v := range s.After {
		out = append(out, fmt.Sprintf("%s = %g (at the end)", k, v))
	}
	slices.Sort(out)
	return out
}

// counterPrefixes are the counters the report shows.
var counterPrefixes = []string{
	"honmaster_http_requests_total", "honmaster_logins_total", "honmaster_sessions_created_total",
	"honmaster_plugin_calls_total", "honmaster_plugin_restarts_total", "honmaster_storage_commit_duration_seconds_count",
	"honmaster_storage_commit_duration_seconds_sum", "honmaster_storage_commit_errors_total", "honmaster_actors_passivated_total",
	"honmaster_actor_mailbox_wait_seconds_sum", "honmaster_actor_mailbox_wait_seconds_count",
	"honmaster_storage_commit_records_sum", "honmaster_storage_commit_records_count",
	"honmaster_plugin_call_duration_seconds_sum", "honmaster_plugin_call_duration_seconds_count",
}

// Summary states what the server's metrics say of the run in a few lines:
// its commits (how many, mean time, mean records each), the mean wait in
// an actor's mailbox, each plugin method's calls and mean time, and the
// server's memory at the end.
func (s *ServerCounters) Summary() []string {
	var out []string
	mean := func(sum, count string) (float64, float64) {
		n := s.Delta[count]
		if n <= 0 {
			return 0, 0
		}
		return s.Delta[sum] / n, n
	}
	if m, n := mean("honmaster_storage_commit_duration_seconds_sum", "honmaster_storage_commit_duration_seconds_count"); n > 0 {
		line := fmt.Sprintf("commits: %.0f, mean %s", n, secondsText(m))
		if rec, rn := mean("honmaster_storage_commit_records_sum", "honmaster_storage_commit_records_count"); rn > 0 {
			line += fmt.Sprintf(", %.1f records each", rec)
		}
		if e := s.Delta["honmaster_storage_commit_errors_total"]; e > 0 {
			line += fmt.Sprintf(", %.0f failed", e)
		}
		out = append(out, line)
	}
	if m, n := mean("honmaster_actor_mailbox_wait_seconds_sum", "honmaster_actor_mailbox_wait_seconds_count"); n > 0 {
		out = append(out, fmt.Sprintf("actor messages: %.0f, mean wait in the mailbox %s", n, secondsText(m)))
	}
	const pluginSum, pluginCount = "honmaster_plugin_call_duration_seconds_sum", "honmaster_plugin_call_duration_seconds_count"
	var labels []string
	for k := range s.Delta {
		if l, ok := strings.CutPrefix(k, pluginCount); ok {
			labels = append(labels, l)
		}
	}
	slices.Sort(labels)
	for _, l := range labels {
		if m, n := mean(pluginSum+l, pluginCount+l); n > 0 {
			out = append(out, fmt.Sprintf("plugin calls %s: %.0f, mean %s", l, n, secondsText(m)))
		}
	}
	var restarts float64
	for k, v := range s.Delta {
		if strings.HasPrefix(k, "honmaster_plugin_restarts_total") {
			restarts += v
		}
	}
	if r := restarts; r > 0 {
		out = append(out, fmt.Sprintf("plugin restarts: %.0f", r))
	}
	if rss, ok := s.After["process_resident_memory_bytes"]; ok {
		out = append(out, fmt.Sprintf("resident memory at the end: %.0f MiB", rss/(1<<20)))
	}
	if len(out) == 0 {
		out = append(out, "no commit, actor message or plugin call")
	}
	return out
}

func secondsText(sec float64) string { return round(time.Duration(sec * float64(time.Second))) }

var gaugeNames = []string{"process_resident_memory_bytes", "honmaster_actors_live", "go_goroutines", "honmaster_pebble_disk_space_bytes",
	"honmaster_sessions_live"}

func serverCounters(before, after map[string]float64) *ServerCounters {
	s := &ServerCounters{Delta: map[string]float64{}, After: map[string]float64{}}
	for k, v := range after {
		for _, p := range counterPrefixes {
			if strings.HasPrefix(k, p) {
				if d := v - before[k]; d != 0 {
					s.Delta[k] = d
				}
			}
		}
	}
	for _, g := range gaugeNames {
		if v, ok := after[g]; ok {
			s.After[g] = v
		}
	}
	return s
}

// scrape reads the operator listener's /metrics (text format) into series
// -> value.
func (c *opClient) scrape(ctx context.Context) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("/metrics: HTTP %d", resp.StatusCode)
	}
	return ParseMetrics(resp.Body)
}
