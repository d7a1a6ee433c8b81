package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/cloudcfg"
)

// Scenarios of the load tester.
const (
	scenarioLogin = "login" // pre_auth + srpAuth
	scenarioDrop  = "drop"  // one Plinko drop paid in tickets
	scenarioCloud = "cloud" // store + retrieve of a settings archive
)

// LoadOptions configure a load test. Every loop is bounded by Requests and
// by Duration, whichever comes first.
type LoadOptions struct {
	Target   string // base URL
	Accounts int
	Scenario string
	Requests int
	Duration time.Duration
	DataDir  string // for the drop scenario: grants tickets through the server's admin socket
}

// LoadResult sums up a run.
type LoadResult struct {
	Scenario           string
	Accounts           int
	OK, Failed         int64
	Elapsed            time.Duration
	P50, P90, P99, Max time.Duration
	FirstError         string
}

// RequestsPerSecond is successful requests per second.
func (r *LoadResult) RequestsPerSecond() float64 { return float64(r.OK) / r.Elapsed.Seconds() }

func (r *LoadResult) String() string {
	s := fmt.Sprintf("scenario %s, %d accounts: %d ok, %d failed in %s = %.0f req/s; latency p50 %s p90 %s p99 %s max %s",
		r.Scenario, r.Accounts, r.OK, r.Failed, r.Elapsed.Round(time.Millisecond), r.RequestsPerSecond(),
		r.P50.Round(time.Microsecond), r.P90.Round(time.Microsecond), r.P99.Round(time.Microsecond), r.Max.Round(time.Microsecond))
	if r.FirstError != "" {
		s += "\nfirst error: " + r.FirstError
	}
	return s
}

// LoadTest registers Accounts fresh accounts through /portal/register, logs
// each in, and runs the scenario from one goroutine per account.
func LoadTest(ctx context.Context, o LoadOptions, log io.Writer) (*LoadResult, error) {
	if o.Accounts < 1 || o.Accounts > 10000 {
		return nil, fmt.Errorf("%w: --accounts must be 1..10000", errUsage)
	}
	if o.Requests < 1 || o.Duration <= 0 {
		return nil, fmt.Errorf("%w: --requests and --duration must be positive", errUsage)
	}
	c := client.New(o.Target)
	run := randomTag()
	sessions := make([]*client.Session, o.Accounts)
	fmt.Fprintf(log, "registering and logging in %d accounts (prefix lt%s_)\n", o.Accounts, run)
	if err := forEach(ctx, o.Accounts, 16, func(i int) error {
		login := fmt.Sprintf("lt%s_%d", run, i)
		r, err := c.PostForm(ctx, "/portal/register", url.Values{"login": {login}, "password": {"load-" + run}})
		if err != nil {
			return err
		}
		if r.Status != 200 {
			return fmt.Errorf("register %s: %d %s", login, r.Status, r.Body)
		}
		s, err := c.Login(ctx, login, "load-"+run)
		sessions[i] = s
		return err
	}); err != nil {
		return nil, err
	}
	op, err := scenario(ctx, o, c, run, sessions)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "running %s for at most %s or %d requests\n", o.Scenario, o.Duration, o.Requests)
	return drive(ctx, o, sessions, op), nil
}

// scenario prepares the accounts and returns the operation one worker repeats.
func scenario(ctx context.Context, o LoadOptions, c *client.Client, run string, sessions []*client.Session) (func(context.Context, *client.Session) error, error) {
	switch o.Scenario {
	case scenarioLogin:
		return func(ctx context.Context, s *client.Session) error {
			_, err := c.Login(ctx, s.Login, "load-"+run)
			return err
		}, nil
	case scenarioCloud:
		zip, err := cloudcfg.BuildArchive([]byte("SetSave \"cl_Rap2Enable\" \"false\" \"1\"\n"))
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, s *client.Session) error {
			fields := url.Values{"cookie": {s.Cookie}, "bucket": {"hon-game-configs"}, "file_modify_time": {"2026-01-02 03:04:05"}}
			r, err := c.PostMultipart(ctx, "/master/storage/store", fields, client.FilePart{Field: "cloud.zip", Filename: "cloud.zip", Data: zip})
			if err != nil {
				return err
			}
			if a, err := r.PHP(); err != nil {
				return err
			} else if ok, _ := a.Bool("success"); !ok {
				return fmt.Errorf("store: %s", r.Body)
			}
			r, err = c.PostMultipart(ctx, "/master/storage/retrieve", url.Values{"cookie": {s.Cookie}, "bucket": {"hon-game-configs"}})
			if err != nil {
				return err
			}
			if string(r.Body) != string(zip) {
				return fmt.Errorf("retrieve: got %d bytes, want the stored %d", len(r.Body), len(zip))
			}
			return nil
		}, nil
	case scenarioDrop:
		if o.DataDir == "" {
			return nil, fmt.Errorf("%w: the drop scenario needs --data DIR of the server under test, to grant tickets", errUsage)
		}
		for _, s := range sessions {
			if err := runRemote(o.DataDir, []string{"account", "grant", "--login", s.Login, "--tickets", "100000000"}, io.Discard); err != nil {
				return nil, fmt.Errorf("grant tickets to %s: %w", s.Login, err)
			}
		}
		return func(ctx context.Context, s *client.Session) error {
			r, err := c.PostForm(ctx, "/master/casino/drop/", url.Values{"cookie": {s.Cookie}, "currency": {"tickets"}})
			if err != nil {
				return err
			}
			a, err := r.PHP()
			if err != nil {
				return err
			}
			// status_code is text in drop replies (as recorded), an
			// integer on the board: accept either.
			if code, _ := a.Get("status_code"); fmt.Sprint(code) != "1" {
				return fmt.Errorf("drop: %s", r.Body)
			}
			return nil
		}, nil
	}
	return nil, fmt.Errorf("%w: unknown scenario %q (login, drop, cloud)", errUsage, o.Scenario)
}

// drive runs op from one goroutine per session until the request budget or
// the duration is spent.
func drive(ctx context.Context, o LoadOptions, sessions []*client.Session, op func(context.Context, *client.Session) error) *LoadResult {
	ctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	var budget atomic.Int64
	budget.Store(int64(o.Requests))
	res := &LoadResult{Scenario: o.Scenario, Accounts: len(sessions)}
	var mu sync.Mutex
	var lat []time.Duration
	var okN, failN atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for ctx.Err() == nil && budget.Add(-1) >= 0 {
				t0 := time.Now()
				err := op(ctx, s)
				if err != nil {
					if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
						break // the run ended mid-request
					}
					failN.Add(1)
					mu.Lock()
					if res.FirstError == "" {
						res.FirstError = err.Error()
					}
					mu.Unlock()
					continue
				}
				okN.Add(1)
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.OK, res.Failed = okN.Load(), failN.Load()
	slices.Sort(lat)
	if n := len(lat); n > 0 {
		res.P50, res.P90, res.P99, res.Max = lat[n*50/100], lat[n*90/100], lat[n*99/100], lat[n-1]
	}
	return res
}

// forEach runs f(0..n-1) with at most par at once and returns the first error.
func forEach(ctx context.Context, n, par int, f func(int) error) error {
	sem := make(chan struct{}, par)
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for i := 0; i < n && ctx.Err() == nil; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			if err := f(i); err != nil {
				once.Do(func() { first = err })
			}
		}(i)
	}
	wg.Wait()
	return first
}

func randomTag() string {
	n, _ := rand.Int(rand.Reader, big.NewInt(36*36*36*36))
	s := strconv.FormatInt(n.Int64(), 36)
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

// runLoadTest is the "host loadtest" command.
func runLoadTest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("loadtest", stderr)
	var o LoadOptions
	var asJSON bool
	fs.StringVar(&o.Target, "target", "http://127.0.0.1:8080", "base URL of the server under test (loopback or your own hosts only)")
	fs.IntVar(&o.Accounts, "accounts", 64, "concurrent accounts, each registered fresh")
	fs.StringVar(&o.Scenario, "scenario", scenarioLogin, "login, drop or cloud")
	fs.IntVar(&o.Requests, "requests", 20000, "stop after this many requests")
	fs.DurationVar(&o.Duration, "duration", 10*time.Second, "stop after this long")
	fs.StringVar(&o.DataDir, "data", "", "data directory of the server under test (drop scenario: tickets are granted through its admin socket)")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	res, err := LoadTest(ctx, o, stderr)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	fmt.Fprintln(stdout, res)
	return nil
}
