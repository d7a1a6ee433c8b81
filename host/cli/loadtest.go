package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/gcfloor"
	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/operator"
)

// errInconsistent fails the command when the consistency check disagreed.
var errInconsistent = errors.New("load test: the consistency check found a mismatch")

// loadTestGCHeapFloor is the load tester's heap floor (package gcfloor);
// GOGC, when set, wins.
const loadTestGCHeapFloor = 64 << 20

// runLoadTest is the "honmaster loadtest" command: flags to loadtest.Options,
// the report to stdout (and to --json / --html files).
func runLoadTest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("loadtest", stderr)
	var o loadtest.Options
	var mix, scenario, jsonFile, htmlFile, tokenFile, dataDir string
	var allowErrors bool
	var targets targetList
	fs.Var(&targets, "target", "game port URL of the server under test (only servers you run); repeat it for the nodes of a cluster: each request goes to one at random (default http://127.0.0.1:8080)")
	fs.StringVar(&o.Operator, "operator", "http://127.0.0.1:8081", "operator listener URL of that server (grants, sub-accounts, balances, metrics); \"\" for none")
	fs.StringVar(&o.Token, "token", "", "operator API token (default: read from --token-file)")
	fs.StringVar(&tokenFile, "token-file", "", "file holding the operator token (default: DATA/"+operator.TokenFile+")")
	fs.StringVar(&dataDir, "data", "", "data directory of a local server, only to find its "+operator.TokenFile+" (default ./data, or "+DemoDataDir+" when only it has one: serve --demo's)")
	fs.IntVar(&o.Accounts, "accounts", 64, "test accounts, registered fresh (logins "+loadtest.LoginPrefix+"<run tag>...)")
	fs.StringVar(&mix, "mix", "", "operations and weights (default "+loadtest.DefaultMix()+"; operations: "+strings.Join(loadtest.OperationNames(), ", ")+")")
	fs.StringVar(&scenario, "scenario", "", "one operation alone (same as --mix NAME=1)")
	fs.IntVar(&o.Requests, "requests", 20000, "stop after this many operations (no limit when --duration is given without it)")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "stop after this long")
	fs.IntVar(&o.Concurrency, "concurrency", 64, "concurrent clients (closed loop) or senders (open loop)")
	fs.Float64Var(&o.Rate, "rate", 0, "open loop: operations per second, latency from each one's intended send time (0: closed loop)")
	fs.BoolVar(&o.Sequential, "sequential", false, "run the mix's operations one after another, each alone, the no-op first (side-by-side ceilings)")
	fs.IntVar(&o.Rounds, "rounds", 1, "with --sequential: run its phases this many times over, each round's no-op its baseline; server cpu/op and cpu vs noop are then the medians over the rounds (--duration and --requests still bound the whole run)")
	fs.BoolVar(&o.Bracket, "bracket", false, "with --sequential and noop in the mix: run a no-op phase before and after every operation's, and take each operation's cpu vs noop over the mean of the two no-op phases around it, so that drift in the machine's speed within a round moves it less (--duration and --requests are shared by the no-op phases too)")
	fs.StringVar(&o.FloorCores, "floor-cores", "", "with --sequential, login and noop in the mix and --server-pid: the server's cores (e.g. 0 or 0-1), on which the naive login floor (three plain math/big 2048-bit modexps, plus two no-ops) is measured during each login phase (every 50 ms, on a thread pinned there); the report gives the login's server CPU against it, round by round (Linux)")
	fs.DurationVar(&o.Settle, "settle", 5*time.Second, "with --sequential and --server-pid: after each phase, wait at most this long until the server is quiet (under a twentieth of a core for 100ms), and count its CPU meanwhile (its background work: flushes, compactions, the collector) to that phase, not the next (0: no wait)")
	fs.DurationVar(&o.Converge, "converge", 0, "how long the end-of-run checks wait for counts the server's nodes converge to (guide votes in a cluster: within two rescans of 10 x cluster.sync_interval) before they call a difference a mismatch (0: "+loadtest.DefaultConverge.String()+" with several --target, none with one; -1s: none)")
	fs.Int64Var(&o.Tickets, "tickets", 0, "tickets granted to each account when the mix spends them (default 1000000)")
	fs.Int64Var(&o.Gold, "gold", 0, "gold granted to each account when the mix spends it (default 100000)")
	fs.StringVar(&jsonFile, "json", "", "also write the report as JSON to this file (\"-\": stdout instead of the text)")
	fs.StringVar(&htmlFile, "html", "", "also write the report as a self-contained HTML page to this file")
	fs.BoolVar(&allowErrors, "allow-errors", false, "failed operations do not fail the run (a failover test, a node killed on purpose): the consistency check alone decides; a run with no successful operation, interrupted, with no balance checked or with test accounts left still fails")
	fs.BoolVar(&o.KeepAccounts, "keep-accounts", false, "leave the test accounts on the server (default: deleted at the end through the operator API)")
	fs.IntVar(&o.ServerPID, "server-pid", 0, "process id of the server under test, on this machine: adds the server's CPU time per operation (its plugins included, from /proc; with --sequential, per operation, and against the no-op)")
	if err := parse(fs, args); errors.Is(err, flag.ErrHelp) {
		loadTestUsage(stdout, fs)
		return flag.ErrHelp // the usage was printed
	} else if err != nil {
		return err
	}
	o.Requests = requestBudget(fs, o.Requests)
	switch {
	case o.Rounds < 1:
		return usageError("--rounds must be 1 or more")
	case mix != "" && scenario != "":
		return usageError("give --mix or --scenario, not both")
	case scenario != "":
		mix = scenario + "=1"
	case mix == "":
		mix = loadtest.DefaultMix()
	}
	m, err := loadtest.ParseMix(mix)
	if err != nil {
		return usageError("%w", err)
	}
	o.Mix = m
	o.Targets = targets
	if len(o.Targets) == 0 {
		o.Targets = []string{"http://127.0.0.1:8080"}
	}
	// The tester shares the machine with what it measures: its own garbage
	// collections are overhead (see package gcfloor).
	defer gcfloor.Start(loadTestGCHeapFloor).Stop()
	if o.Operator != "" && o.Token == "" {
		if tokenFile == "" {
			tokenFile = defaultTokenFile(dataDir)
		}
		if b, err := os.ReadFile(tokenFile); err == nil {
			o.Token = strings.TrimSpace(string(b))
		}
	}
	// Progress goes to stderr: rewritten in place on a terminal, a line
	// every 5 seconds into a log or a pipe.
	o.Progress = stderr
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		o.ProgressTTY = true
	}
	o.Log = stderr
	rep, err := loadtest.Run(ctx, o)
	if errors.Is(err, loadtest.ErrUsage) {
		return usageError("%w", err)
	}
	if err != nil {
		return loadTestError(err, o.Operator)
	}
	if jsonFile == "-" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.WriteText(stdout)
	}
	if jsonFile != "" && jsonFile != "-" {
		if err := writeFile(jsonFile, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		}); err != nil {
			return err
		}
	}
	if htmlFile != "" {
		if err := writeFile(htmlFile, rep.WriteHTML); err != nil {
			return err
		}
	}
	if !rep.Consistency.OK() {
		return errInconsistent
	}
	if f := rep.Failures(allowErrors); len(f) > 0 {
		return fmt.Errorf("load test failed: %s", strings.Join(f, "; "))
	}
	return nil
}

// loadTestError words a failed run for the operator: a refused token,
// an --operator that is not an operator listener or whose host name the
// listener refuses is the tester's own sentence, and a server it could not reach is named
// with the flag that gave its address (--operator or --target), followed
// by what became of the test accounts registered before.
func loadTestError(err error, operatorURL string) error {
	if errors.Is(err, loadtest.ErrTokenRefused) || errors.Is(err, loadtest.ErrNotOperator) || errors.Is(err, loadtest.ErrHostRefused) {
		return &opError{cause: err, msg: err.Error()}
	}
	what, flag := "the server", "--target"
	if ue := innermostURLError(err); ue != nil && operatorURL != "" && sameHost(ue.URL, operatorURL) {
		what, flag = "the server's operator listener", "--operator"
	}
	msg, ok := netFailure(err, what, flag)
	if !ok {
		return err
	}
	var pe *loadtest.ProvisionError
	if errors.As(err, &pe) && pe.Cleanup.Registered > 0 {
		msg += " (" + pe.Cleanup.Summary() + ")"
	}
	return &opError{cause: err, msg: msg}
}

// sameHost reports whether the URLs a and b have the same host and port.
func sameHost(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Host == ub.Host
}

// requestBudget is the run's --requests: none (the most an int32 holds)
// when --duration is given without it, so that the run lasts the duration
// asked for (the default 20000 ends a fast server's run within seconds).
func requestBudget(fs *flag.FlagSet, requests int) int {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["duration"] && !given["requests"] {
		return math.MaxInt32
	}
	return requests
}

// defaultTokenFile is the operator token file of the data directory
// dataDir, or without one of ./data, or of DemoDataDir when only that one
// has a token (the README's serve --demo).
func defaultTokenFile(dataDir string) string {
	if dataDir != "" {
		return filepath.Join(dataDir, operator.TokenFile)
	}
	plain := filepath.Join(config.Default().Storage.DataDir, operator.TokenFile)
	demo := filepath.Join(DemoDataDir, operator.TokenFile)
	if _, err := os.Stat(plain); err != nil {
		if _, err := os.Stat(demo); err == nil {
			return demo
		}
	}
	return plain
}

// targetList is the repeatable --target flag.
type targetList []string

func (l *targetList) String() string { return strings.Join(*l, " ") }

func (l *targetList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func loadTestUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s loadtest [flags]\n\nflags:\n", Name)
	printFlags(w, fs)
	fmt.Fprint(w, `
The server under test needs its per-address limits lifted: the tester
registers every account, and opens every connection, from one address.
Serve it with --config bench/loadtest.toml (from the source tree: the
[limits] comment of the default configuration lists the same settings), and
runs against it may follow one another. bench/run runs the whole
benchmark: server pinned to some cores, tester to the others, server CPU
per operation.
`)
	fmt.Fprintln(w, "\noperations:")
	for _, n := range loadtest.OperationNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, loadtest.OperationDoc[n])
	}
}
