// Package loadtest is the built-in load tester ("honmaster loadtest"): it
// provisions test accounts on a server the operator runs, drives a weighted
// mix of the game's operations in a closed loop (a fixed number of
// concurrent clients) or an open loop (a fixed arrival rate, latency
// measured from each request's intended send time, so queueing is not
// hidden), checks every reply with wire/, and reports per operation counts,
// errors by kind, throughput, HDR-histogram latency percentiles, the
// ratio to a no-op ceiling measured in the same run, the server's own
// counters before and after, and a consistency check of the balances,
// cloud files and guide votes the replies reported. At the end it deletes
// the accounts it registered through the operator API (unless told to keep
// them).
package loadtest

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrUsage marks an invalid option.
var ErrUsage = errors.New("invalid load test options")

// Options configure a run. Every run is bounded by Requests and Duration,
// whichever comes first.
type Options struct {
	// Targets are the game port base URLs, e.g. http://127.0.0.1:8080: one
	// server, or the nodes of a cluster (each request goes to one of them
	// at random, so one account's requests cross nodes).
	Targets  []string
	Operator string // operator listener base URL, e.g. http://127.0.0.1:8081 ("" = none)
	Token    string // operator API token (grants, sub-accounts, final balances)

	Accounts int
	Mix      Mix
	Requests int
	Duration time.Duration
	// Concurrency is the number of clients of the closed loop, and the
	// number of senders of the open loop.
	Concurrency int
	// Rate > 0 selects the open loop: operations are scheduled at Rate per
	// second whatever the server's speed.
	Rate float64
	// Sequential runs the operations of the mix one after another, each
	// alone with the same concurrency for its share of Duration and
	// Requests (for side-by-side ceilings), instead of mixed: the no-op
	// first when the mix has it, then the others by name.
	Sequential bool
	// Rounds, with Sequential, runs that sequence of phases Rounds times
	// (0 or 1: once), each phase for its share of Duration and Requests
	// over all the rounds' phases. Each round's no-op is that round's
	// baseline: the report gives each operation's server CPU per
	// operation in every round, its ratio to the same round's no-op, and
	// the medians over the rounds, which drift in the machine's speed
	// during the run moves far less than one sequence's figures.
	Rounds int
	// Bracket, with Sequential and the no-op in the mix, runs a no-op
	// phase before the first operation's phase of each round and after
	// every operation's (noop, op1, noop, op2, ..., opN, noop), each for
	// the same share of Duration and Requests as the others: an
	// operation's server CPU ratio to the no-op in a round is then over
	// the mean of the no-op phases on either side of its phase, measured
	// seconds apart from it rather than up to a whole round earlier, so
	// that drift in the machine's speed within a round moves it far less.
	Bracket bool
	// FloorCores, with Sequential, login and the no-op in the mix and
	// ServerPID, lists the cores ("0", "0-1", "0,2-3") the naive login floor
	// is measured on, those of the server under test: during each round's
	// login phase the tester runs three plain math/big 2048-bit modexps
	// (what a naive server computes per login) every 50 ms on a thread
	// pinned to them and takes that thread's CPU time per run (floorSampler).
	// The report compares each round's server CPU per login with that
	// round's floor, the modexps plus two of the login's no-op baseline (a
	// login is two requests), so that both are measured over the same
	// seconds. Linux only. "" = not measured.
	FloorCores string
	// Settle, with Sequential and ServerPID, is how long the tester waits
	// at most after each phase for the server to go quiet (its CPU under a
	// twentieth of one core over 100 ms) before the next phase starts;
	// the server's CPU while it waits counts to the phase just ended, so
	// that the background work a phase sets going (Pebble's flushes and
	// compactions, the collector's) is billed to it, not to the next
	// phase (a no-op's, with Bracket). 0: phases follow at once, and a
	// phase pays for what the one before it left.
	Settle time.Duration
	// Converge bounds how long the end-of-run checks of figures that a
	// cluster's nodes converge to (guide vote counts: each node rescans
	// the vote records every 10 × cluster.sync_interval, so counts
	// converge within two rescans, 20 s by default) read them again until
	// they match (Env.Converged). 0: DefaultConverge with several
	// Targets, none with one; negative: none.
	Converge time.Duration
	// Tickets and Gold are granted to each account when the mix spends
	// them (default 1,000,000 tickets, 100,000 gold).
	Tickets, Gold int64
	// Progress receives status lines while the run goes (nil: silent):
	// one rewritten in place every second when ProgressTTY (a terminal),
	// else a line every 5 seconds (a log or a pipe).
	Progress    io.Writer
	ProgressTTY bool
	// ServerPID, when > 0, is the process id of the server under test on
	// this machine: the report then gives the server's CPU time per
	// operation (from /proc: the server and its plugin processes), which
	// the tester's own CPU use does not disturb.
	ServerPID int
	// Proc is the /proc mount read for ServerPID ("" = /proc).
	Proc string
	// Log receives provisioning steps (nil: silent).
	Log io.Writer
	// KeepAccounts leaves the test accounts on the server at the end;
	// otherwise they are deleted through the operator API (when there is
	// one) with everything they wrote.
	KeepAccounts bool
}

// DefaultConverge is Options.Converge with several targets: two vote
// rescans at the default cluster.sync_interval (2 × 10 × 1 s), and 5 s
// for the reads and the operator API.
const DefaultConverge = 25 * time.Second

// converge is the bound Converge means for n targets.
func (o *Options) converge(n int) time.Duration {
	switch {
	case o.Converge < 0:
		return 0
	case o.Converge == 0 && n > 1:
		return DefaultConverge
	}
	return o.Converge
}

// Mix is the weight of each operation.
type Mix map[string]int

// ParseMix reads "login=1,drop=3,cloud=1".
func ParseMix(s string) (Mix, error) {
	m := Mix{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, w, hasW := strings.Cut(part, "=")
		weight := 1
		if hasW {
			n, err := strconv.Atoi(w)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: mix weight %q of %s is not a whole number >= 0", ErrUsage, w, name)
			}
			weight = n
		}
		if _, ok := operations[name]; !ok {
			return nil, fmt.Errorf("%w: unknown operation %q in the mix (known: %s)", ErrUsage, name, strings.Join(OperationNames(), ", "))
		}
		if weight > 0 {
			m[name] = weight
		}
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%w: the mix has no operation with a weight > 0", ErrUsage)
	}
	return m, nil
}

// String writes the mix back in its flag form, sorted by name.
func (m Mix) String() string {
	names := m.names()
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + strconv.Itoa(m[n])
	}
	return strings.Join(parts, ",")
}

func (m Mix) names() []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// sequence is the order of a sequential run's phases in each round: the
// no-op first (the round's baseline, measured before the operations
// compared with it), then the other operations by name.
func (m Mix) sequence() []string {
	names := m.names()
	if i := slices.Index(names, "noop"); i > 0 {
		names = slices.Concat([]string{"noop"}, names[:i], names[i+1:])
	}
	return names
}

// bracketed is the order of a bracketed sequential run's phases in each
// round (Options.Bracket): the no-op, then each other operation by name
// followed by the no-op again, so that a no-op phase runs just before and
// just after every operation's.
func (m Mix) bracketed() []string {
	var out []string
	for _, n := range m.sequence() {
		if n != "noop" {
			out = append(out, n)
		}
		out = append(out, "noop")
	}
	return out
}

// MinRate is the slowest open loop (one operation every 1,000 s): the
// interval between operations of a slower one overflowed, and every
// operation went out at once. MaxRounds bounds --rounds: each round's
// figures are kept, and phases × rounds overflowed.
const (
	MinRate   = 0.001
	MaxRounds = 1000
)

func (o *Options) check() error {
	switch {
	case o.Accounts < 1 || o.Accounts > 100000:
		return fmt.Errorf("%w: accounts must be 1..100000", ErrUsage)
	case o.Requests < 1 || o.Duration <= 0:
		return fmt.Errorf("%w: requests and duration must be positive", ErrUsage)
	case o.Concurrency < 1 || o.Concurrency > 10000:
		return fmt.Errorf("%w: concurrency must be 1..10000", ErrUsage)
	case o.Rate != 0 && !(o.Rate >= MinRate && o.Rate <= 1e6): // NaN too
		return fmt.Errorf("%w: rate must be 0 (closed loop), or %g up to 1,000,000/s", ErrUsage, MinRate)
	case len(o.Mix) == 0:
		return fmt.Errorf("%w: empty mix", ErrUsage)
	case o.Rounds < 0 || o.Rounds > MaxRounds:
		return fmt.Errorf("%w: rounds must be 1 up to %d", ErrUsage, MaxRounds)
	case o.Rounds > 1 && !o.Sequential:
		return fmt.Errorf("%w: rounds repeat the phases of a sequential run: give --sequential with --rounds %d", ErrUsage, o.Rounds)
	case o.Bracket && !o.Sequential:
		return fmt.Errorf("%w: --bracket puts no-op phases between the phases of a sequential run: give --sequential with --bracket", ErrUsage)
	case o.Bracket && o.Mix["noop"] == 0:
		return fmt.Errorf("%w: --bracket measures each operation against the no-op phases around it: add noop to the mix", ErrUsage)
	case o.Settle < 0 || o.Settle > time.Minute:
		return fmt.Errorf("%w: --settle must be 0 (no wait) up to 1m", ErrUsage)
	}
	if err := o.checkFloor(); err != nil {
		return err
	}
	for name := range o.Mix {
		op := operations[name]
		if op.needsOperator && (o.Operator == "" || o.Token == "") {
			return fmt.Errorf("%w: %s needs the operator listener (--operator URL and --token) for %s", ErrUsage, name, op.why)
		}
	}
	if _, err := parseTargets(o.Targets); err != nil {
		return err
	}
	if o.Rounds == 0 {
		o.Rounds = 1
	}
	if o.Proc == "" {
		o.Proc = "/proc"
	}
	if o.Tickets == 0 {
		o.Tickets = 1_000_000
	}
	if o.Gold == 0 {
		o.Gold = 100_000
	}
	return nil
}

// checkFloor checks Options.FloorCores.
func (o *Options) checkFloor() error {
	if o.FloorCores == "" {
		return nil
	}
	const what = "--floor-cores measures the naive login floor during each login phase of a sequential run"
	switch {
	case !o.Sequential:
		return fmt.Errorf("%w: %s: give --sequential with --floor-cores", ErrUsage, what)
	case o.Mix["login"] == 0:
		return fmt.Errorf("%w: %s: add login to the mix", ErrUsage, what)
	case o.Mix["noop"] == 0:
		return fmt.Errorf("%w: %s and adds two no-ops to it: add noop to the mix", ErrUsage, what)
	case o.ServerPID <= 0:
		return fmt.Errorf("%w: %s and compares the server's CPU per login with it: give the server's process id (--server-pid)", ErrUsage, what)
	case runtime.GOOS != "linux":
		return fmt.Errorf("%w: --floor-cores pins a thread and reads its CPU time on Linux only, not on %s", ErrUsage, runtime.GOOS)
	}
	_, err := parseCores(o.FloorCores)
	return err
}

// maxCore bounds the core numbers of a core list (the size of the kernel's
// CPU set the tester pins a thread with).
const maxCore = 1023

// parseCores reads a core list as taskset -c writes it: core numbers and
// ranges separated by commas ("0", "0-1", "0,2-3"), into the cores in
// order, each once.
func parseCores(s string) ([]int, error) {
	var out []int
	bad := func(why string) error {
		return fmt.Errorf("%w: --floor-cores %q: %s (a list of cores like 0, 0-1 or 0,2-3)", ErrUsage, s, why)
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		switch {
		case errA != nil || errB != nil || a < 0 || b < 0:
			return nil, bad(fmt.Sprintf("%q is not a core number or a range of them", part))
		case a > b:
			return nil, bad(fmt.Sprintf("the range %q runs backwards", part))
		case b > maxCore:
			return nil, bad(fmt.Sprintf("core %d is past the last one this tester can pin to, %d", b, maxCore))
		}
		for c := a; c <= b; c++ {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out, nil
}
