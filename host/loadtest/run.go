package loadtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/operator"
)

// requestTimeout bounds every request of the load tester.
const requestTimeout = 30 * time.Second

// LoginPrefix starts the login of every test account, followed by a
// three-character run tag: an operator can find a run's accounts by it
// (the tester removes them at the end unless told to keep them).
const LoginPrefix = "lt"

// Run provisions the accounts, drives the mix, checks consistency and
// returns the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	targets, _ := parseTargets(o.Targets) // checked by o.check
	c, tr := newClient(targets, o.Concurrency)
	defer c.HTTP.CloseIdleConnections()
	var opc *opClient
	if o.Operator != "" {
		opc = &opClient{base: strings.TrimRight(o.Operator, "/"), token: o.Token, http: &http.Client{Timeout: requestTimeout}}
	}
	e := &Env{c: c, run: randomTag(), mix: o.Mix, opc: opc, converge: o.converge(len(targets))}
	e.logins = make([]string, o.Accounts)
	for i := range e.logins {
		// Decimal, not base 36: the server refuses look-alike logins ("1" and
		// "i" read alike), and distinct decimal suffixes never look alike.
		e.logins[i] = LoginPrefix + e.run + strconv.Itoa(i)
	}
	// The token is checked before anything is registered: refused, the
	// grants would fail after the registrations, and so would the removal
	// of the accounts registered (and the address's registrations spent).
	if opc != nil {
		if err := opc.checkToken(ctx, e.logins[0]); err != nil {
			return nil, err
		}
	}
	logf("provisioning %d accounts (logins %s%s...)", o.Accounts, LoginPrefix, e.run)
	reg := &registered{}
	accts, err := provision(ctx, o, e, opc, reg)
	if err != nil {
		return nil, &ProvisionError{Err: err, Cleanup: cleanup(ctx, o, opc, reg)}
	}
	hooked := areasOf(o.Mix)
	rep := &Report{Target: strings.Join(o.Targets, " "), Accounts: o.Accounts, Mix: o.Mix.String(), Concurrency: o.Concurrency, Rate: o.Rate,
		Sequential: o.Sequential, Rounds: o.Rounds, Bracket: o.Bracket, LoginPrefix: LoginPrefix + e.run, Started: time.Now().UTC()}
	if o.Sequential && o.ServerPID > 0 {
		rep.Settle = o.Settle
	}
	if o.Rate > 0 {
		rep.Mode = "open"
	} else {
		rep.Mode = "closed"
	}
	var before map[string]float64
	if opc != nil {
		before, _ = opc.scrape(ctx)
	}
	pool := make(chan *Account, len(accts))
	for _, a := range accts {
		pool <- a
	}
	rec := newRecorder(o.Progress, o.ProgressTTY)
	// cpuSince returns the server's CPU time since the previous call (-1
	// when it is not measured).
	cpuLast, cpuErr := time.Duration(-1), error(nil)
	cpuSince := func() time.Duration {
		if o.ServerPID <= 0 || cpuErr != nil {
			return -1
		}
		now, err := processTreeCPU(o.Proc, o.ServerPID)
		if err != nil {
			cpuErr = err
			rep.CPUUnavailable = err.Error()
			return -1
		}
		d := now - cpuLast
		cpuLast = now
		return d
	}
	cpuSince()
	start := time.Now()
	if o.Sequential {
		sequential(ctx, o, e, pool, rec, rep, cpuSince, logf)
	} else {
		logf("running %s for %s", o.Mix, runBound(o.Duration, o.Requests))
		cpuSince()
		unsent, stopped := drive(ctx, o, e, pool, rec, o.Mix, o.Requests, o.Duration)
		rep.Unsent, rep.Stopped = unsent, stopped
		cpu := cpuSince()
		for name := range o.Mix {
			// One operation alone (--scenario) owns the run's CPU.
			own := time.Duration(-1)
			if len(o.Mix) == 1 {
				own = cpu
			}
			rec.setPhase(name, 0, time.Since(start), stopped, own)
		}
		if cpu >= 0 && len(o.Mix) > 1 {
			rep.MixedCPU = cpu
		}
	}
	rep.Elapsed = time.Since(start)
	rec.stop()
	rep.fill(rec)
	if len(targets) > 1 {
		rep.Targets = map[string]int64{}
		for i, t := range targets {
			rep.Targets[t.String()] = tr.sent[i].Load()
		}
	}
	if !skipChecksIfInterrupted(ctx, rep) {
		logf("checking consistency")
		rep.Consistency = consistency(ctx, opc, accts)
		for _, ar := range hooked {
			if ar.Check != nil {
				ar.Check(ctx, e, &rep.Consistency)
			}
		}
	}
	if opc != nil {
		if after, err := opc.scrape(ctx); err == nil && before != nil {
			rep.Server = serverCounters(before, after)
		}
	}
	if o.KeepAccounts {
		logf("keeping the test accounts (--keep-accounts)")
	} else {
		logf("removing the test accounts")
	}
	rep.Cleanup = cleanup(ctx, o, opc, reg)
	if rep.Cleanup.Kept == "" && rep.Cleanup.Failed == 0 && ctx.Err() == nil {
		for _, ar := range hooked {
			if ar.Removed != nil {
				ar.Removed(ctx, e, &rep.Consistency)
			}
		}
	}
	return rep, nil
}

// skipChecksIfInterrupted marks a run whose context ended (Ctrl-C)
// interrupted, and its end checks skipped, and reports whether it did:
// the balances' reads would fail with that context and read as a
// mismatch. It is marked whenever the interruption came, not only within
// a phase's operations (drive): interrupted while the server settled
// after a phase, or between the last phase and the checks, the run said
// it stopped for its budget, its checks skipped, and passed.
func skipChecksIfInterrupted(ctx context.Context, rep *Report) bool {
	if ctx.Err() == nil {
		return false
	}
	rep.Stopped = stoppedInterrupted
	rep.Consistency = Consistency{Skipped: "the run was interrupted: the balances and the areas' records were not checked"}
	return true
}

// floorEvery is how often the naive login floor's modexps run during a
// login phase (Options.FloorCores; floorSampler): about a hundred times
// in a phase of 5 s.
const floorEvery = 50 * time.Millisecond

// sequential runs each operation of the mix alone, one after another in
// the order of Mix.sequence (of Mix.bracketed with o.Bracket: a no-op
// phase around each operation's), o.Rounds times over. Each phase gets an
// equal share of o.Duration and of o.Requests over all the rounds' phases,
// the no-op phases of a bracketed run included (so the whole run stays
// within them), and records the server's CPU time during it, cpuSince's
// figure (< 0: not measured), as its round's, with o.Settle the CPU of the
// server's settling after it too (settle). With o.FloorCores it
// measures the naive login floor's modexps during each round's login
// phase (floorSampler).
func sequential(ctx context.Context, o Options, e *Env, pool chan *Account, rec *recorder, rep *Report,
	cpuSince func() time.Duration, logf func(string, ...any)) {
	names := o.Mix.sequence()
	if o.Bracket {
		names = o.Mix.bracketed()
	}
	rounds := max(o.Rounds, 1)
	phases := len(names) * rounds
	d := o.Duration / time.Duration(phases)
	var floorCores []int
	if o.FloorCores != "" {
		floorCores, _ = parseCores(o.FloorCores) // checked by o.check
		rep.FloorCores = o.FloorCores
		rep.ModExpCPURounds = make([]time.Duration, rounds)
	}
	for round := range rounds {
		for i, name := range names {
			share := o.Requests / phases
			if round*len(names)+i < o.Requests%phases {
				share++
			}
			if share == 0 {
				continue
			}
			if rounds > 1 {
				logf("round %d of %d, phase %s: %s or %d operations", round+1, rounds, name, d, share)
			} else {
				logf("phase %s: %s or %d operations", name, d, share)
			}
			var floor *floorSampler
			if name == "login" && floorCores != nil {
				floor = startFloor(floorCores, floorEvery)
			}
			t0 := time.Now()
			cpuSince()
			unsent, stopped := drive(ctx, o, e, pool, rec, Mix{name: 1}, share, d)
			elapsed, cpu := time.Since(t0), cpuSince()
			rep.Unsent += unsent
			if floor != nil {
				if cpu, n, err := floor.end(); err != nil {
					rep.FloorUnavailable = err.Error()
				} else {
					rep.ModExpCPURounds[round] = cpu
					logf("naive login floor: %s of CPU per login's modexps, the mean of %d runs during the phase on cores %s",
						cpu.Round(time.Microsecond), n, o.FloorCores)
				}
			}
			if o.Settle > 0 && cpu >= 0 {
				tail, quiet := settle(ctx, cpuSince, o.Settle)
				cpu += tail
				rep.SettleCPU += tail
				if !quiet && ctx.Err() == nil && rep.CPUUnavailable == "" {
					rep.SettleCapped++ // busy at the limit (not interrupted, not unmeasured)
				}
			}
			rec.setPhase(name, round, elapsed, stopped, cpu)
			rep.Stopped = stopped
			if ctx.Err() != nil {
				return
			}
		}
	}
}

// settleWindow is how long settle measures the server's CPU at a time, and
// settleQuiet the server's CPU in such a window (a twentieth of one core)
// under which it is quiet.
const (
	settleWindow = 100 * time.Millisecond
	settleQuiet  = settleWindow / 20
)

// settle waits, after a phase of a sequential run, until the server is
// quiet (its CPU in one settleWindow at most settleQuiet), for at most
// limit, and returns the server's CPU meanwhile (cpuSince's), to be billed
// to the phase that left it busy: the work a phase sets going in the
// background (Pebble's flushes and compactions, the collector's, the
// plugin processes') then counts to that phase, not to the next one,
// which would otherwise pay for it. quiet is false when the server was
// still busy at the limit, its CPU was not measured or ctx ended.
func settle(ctx context.Context, cpuSince func() time.Duration, limit time.Duration) (tail time.Duration, quiet bool) {
	t := time.NewTicker(settleWindow)
	defer t.Stop()
	for waited := time.Duration(0); waited < limit; waited += settleWindow {
		// An interrupt wins over a window that ended at the same time.
		if ctx.Err() != nil {
			return tail, false
		}
		select {
		case <-ctx.Done():
			return tail, false
		case <-t.C:
		}
		c := cpuSince()
		if c < 0 {
			return tail, false
		}
		tail += c
		if c <= settleQuiet {
			return tail, true
		}
	}
	return tail, false
}

// cleanup removes the accounts the run registered, unless told to keep
// them or there is no operator API to remove them with.
func cleanup(ctx context.Context, o Options, opc *opClient, reg *registered) Cleanup {
	logins := reg.list()
	switch {
	case len(logins) == 0:
		return Cleanup{}
	case o.KeepAccounts:
		return Cleanup{Registered: len(logins), Kept: "as asked"}
	case opc == nil:
		return Cleanup{Registered: len(logins), Kept: "no operator listener to remove them with"}
	}
	// Removed even when the run was interrupted (its context cancelled),
	// within a bound of its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	return removeAccounts(ctx, opc, logins)
}

// cleanupTimeout bounds the removal of a run's accounts.
const cleanupTimeout = 5 * time.Minute

// newClient returns a client whose keep-alive pool holds a connection per
// concurrent request, so that connections are reused rather than closed
// and re-opened (a TIME_WAIT storm measures the client, not the server),
// but never opens more than it has clients (a server closes connections
// past its per-address limit, limits.max_connections_per_address, as soon
// as it accepts them), and whose transport spreads the requests over the targets and sends
// again those that never reached the server (transport).
//
// A connection idle for 50 s is closed by the tester, before the server's
// default idle timeout (server.idle_timeout, 2 minutes) closes it under a
// request being sent.
func newClient(targets []*url.URL, concurrency int) (*client.Client, *transport) {
	c := client.New(targets[0].String())
	tr := newTransport(&http.Transport{
		Proxy:               nil, // the target only: never a proxy from the environment
		MaxIdleConns:        concurrency + 16,
		MaxIdleConnsPerHost: concurrency + 16,
		MaxConnsPerHost:     max(concurrency, provisionParallel),
		IdleConnTimeout:     50 * time.Second,
		DisableCompression:  true,
	}, targets)
	c.HTTP = &http.Client{Timeout: requestTimeout, Transport: tr}
	return c, tr
}

// Why a run (or a phase of a sequential run) stopped.
const (
	stoppedRequests    = "its --requests budget of operations was done before its --duration was over"
	stoppedDuration    = "its --duration was over before its --requests operations were done"
	stoppedInterrupted = "interrupted"
)

// drive runs the mix until budget operations were started or d passed,
// and returns how many operations were due but never sent (in the open
// loop because the server fell behind the rate, in either loop because no
// account was free before the end) and why it stopped.
func drive(ctx context.Context, o Options, e *Env, pool chan *Account, rec *recorder, mix Mix, budget int, d time.Duration) (unsent int64, stopped string) {
	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	names := mix.names()
	var total int
	for _, n := range names {
		total += mix[n]
	}
	pick := func(rng *mrand.Rand) string {
		x := rng.IntN(total)
		for _, n := range names {
			if x < mix[n] {
				return n
			}
			x -= mix[n]
		}
		return names[len(names)-1]
	}
	// one runs an operation on a free account; intended is when it was
	// meant to be sent, the origin of its latency.
	one := func(rng *mrand.Rand, intended time.Time) {
		var a *Account
		select {
		case a = <-pool:
		case <-runCtx.Done():
			atomic.AddInt64(&unsent, 1) // never got an account before the end
			return
		}
		defer func() { pool <- a }()
		name := pick(rng)
		// Requests are not bound to the run's end: an operation started in
		// time finishes, so that its effect is known to the check.
		var retried atomic.Int64
		opCtx := withRetryCounter(context.WithoutCancel(ctx), &retried)
		if operations[name].reads {
			opCtx = withReplayable(opCtx)
		}
		reqCtx, cancelReq := context.WithTimeout(opCtx, requestTimeout)
		a.op, a.fellBack = name, ""
		err := operations[name].do(reqCtx, e, a, rng)
		cancelReq()
		if a.fellBack != "" {
			name = a.fellBack
		}
		rec.record(name, time.Since(intended), retried.Load(), err)
	}
	// why tells why the loop ended: the budget when all of it was taken.
	var taken atomic.Int64
	why := func() string {
		switch {
		case ctx.Err() != nil:
			return stoppedInterrupted
		case taken.Load() >= int64(budget):
			return stoppedRequests
		}
		return stoppedDuration
	}
	var wg sync.WaitGroup
	if o.Rate <= 0 {
		var left atomic.Int64
		left.Store(int64(budget))
		for range o.Concurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := mrand.New(mrand.NewPCG(mrand.Uint64(), mrand.Uint64()))
				for runCtx.Err() == nil && left.Add(-1) >= 0 {
					taken.Add(1)
					one(rng, time.Now())
				}
			}()
		}
		wg.Wait()
		return unsent, why()
	}
	// Open loop: the k-th operation is due at start + k/rate whether or not
	// the server kept up; senders take due operations in order.
	queue := make(chan time.Time, min(budget, 1<<16))
	for range o.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := mrand.New(mrand.NewPCG(mrand.Uint64(), mrand.Uint64()))
			for t := range queue {
				if runCtx.Err() != nil {
					atomic.AddInt64(&unsent, 1)
					continue
				}
				one(rng, t)
			}
		}()
	}
	start := time.Now()
	interval := time.Duration(float64(time.Second) / o.Rate)
	k := 0
	for ; k < budget; k++ {
		due := start.Add(time.Duration(k) * interval)
		if wait := time.Until(due); wait > 0 {
			select {
			case <-time.After(wait):
			case <-runCtx.Done():
			}
		}
		if runCtx.Err() != nil {
			break
		}
		select {
		case queue <- due:
			taken.Add(1)
			continue
		case <-runCtx.Done():
		}
		break
	}
	if k < budget {
		// The run ended with operations due that never reached the
		// queue (a full queue: the server was that far behind): they
		// are unsent too, the one the scheduler waited to queue and
		// every one due after it until now.
		dueBy := budget
		if n := time.Since(start)/interval + 1; n < time.Duration(budget) {
			dueBy = int(n)
		}
		if missed := dueBy - k; missed > 0 {
			atomic.AddInt64(&unsent, int64(missed))
		}
	}
	close(queue)
	wg.Wait()
	return unsent, why()
}

// provision registers, grants, creates sub-accounts and logs in, then runs
// the Provision hooks of the areas in the mix.
func provision(ctx context.Context, o Options, e *Env, opc *opClient, reg *registered) ([]*Account, error) {
	spends, subs := false, false
	for name := range o.Mix {
		spends = spends || operations[name].spends
		subs = subs || name == "switch"
	}
	accts := make([]*Account, o.Accounts)
	err := forEach(ctx, o.Accounts, provisionParallel, func(i int) error {
		a := &Account{login: e.logins[i], password: "load-" + e.run, index: i}
		reqCtx, cancel := context.WithTimeout(ctx, requestTimeout)
		defer cancel()
		// Remembered before asking: a registration whose reply is lost
		// may still have created the account.
		reg.add(a.login)
		r, err := e.c.PostForm(reqCtx, pathRegister, url.Values{"login": {a.login}, "password": {a.password}})
		if err != nil {
			if neverSent(err) {
				reg.remove(a.login)
			}
			return fmt.Errorf("register %s: %w", a.login, err)
		}
		if r.Status >= 400 && r.Status < 500 {
			// Refused, so not created by this run: an account of that
			// login (a run that kept its accounts and drew the same tag)
			// is not the run's to remove.
			reg.remove(a.login)
		}
		if r.Status == http.StatusTooManyRequests {
			return fmt.Errorf("register %s: the server refused it as one registration too many from this address (HTTP 429): raise its limits.registrations_per_address for load tests (serve --config bench/loadtest.toml from the source tree, or the block of per-address limits in the [limits] comment of the default configuration)", a.login)
		}
		if r.Status != 200 {
			return fmt.Errorf("register %s: HTTP %d %s", a.login, r.Status, r.Body)
		}
		if spends {
			j, err := opc.grant(reqCtx, a.login, o.Tickets, o.Gold)
			if err != nil {
				return err
			}
			a.known, a.startTickets, a.startGold, a.tickets, a.gold = true, j.Tickets, j.Gold, j.Tickets, j.Gold
		}
		if subs {
			j, err := opc.createSub(reqCtx, a.login+"s", a.password, a.login)
			if err != nil {
				return err
			}
			a.subLogin, a.subID = a.login+"s", strconv.FormatUint(uint64(j.ID), 10)
		}
		s, err := provisionLogin(reqCtx, e.c, a.login, a.password)
		if err != nil {
			return fmt.Errorf("login %s: %w", a.login, err)
		}
		s.Record = nil // checked by Login; kept it would cost ~10 KiB per account
		a.sess, a.id = s, s.AccountID
		accts[i] = a
		return nil
	})
	if err != nil {
		return nil, err
	}
	e.accts = accts
	for _, ar := range areasOf(o.Mix) {
		if ar.Provision == nil {
			continue
		}
		reqCtx, cancel := context.WithTimeout(ctx, requestTimeout)
		err := ar.Provision(reqCtx, e)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	return accts, nil
}

// provisionLogin logs in as a player's client does: a login refused with
// "please log in again" (its handshake was dropped: the address's logins
// in progress overflowed, or its pre_auth and srpAuth met different nodes
// of a cluster whose membership changed) is started again, up to
// loginTries times, loginRetryPause apart.
func provisionLogin(ctx context.Context, c *client.Client, login, password string) (*client.Session, error) {
	for try := 1; ; try++ {
		s, err := c.Login(ctx, login, password)
		if err == nil || try == loginTries || !errors.Is(err, client.ErrLogin) ||
			!strings.Contains(strings.ToLower(err.Error()), "log in again") {
			return s, loginLimitHint(err)
		}
		select {
		case <-time.After(loginRetryPause):
		case <-ctx.Done():
			return nil, err
		}
	}
}

// Tries of a login at provisioning, and the pause between two.
const (
	loginTries      = 5
	loginRetryPause = 200 * time.Millisecond
)

// provisionParallel is how many accounts are provisioned at once.
const provisionParallel = 16

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
	if first == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return first
}

func randomTag() string {
	n, _ := rand.Int(rand.Reader, big.NewInt(36*36*36))
	s := strconv.FormatInt(n.Int64(), 36)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

// opClient talks to the operator listener.
type opClient struct {
	base, token string
	http        *http.Client
}

func (c *opClient) call(ctx context.Context, method, path string, form url.Values) (*operator.Account, error) {
	var j operator.Account
	if err := c.callJSON(ctx, method, path, form, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// Failures of the operator check (checkToken): the token refused, an
// answer that is not the operator API's, and the listener refusing the
// host name of the --operator URL (operator.allowed_hosts).
var (
	ErrTokenRefused = errors.New("the operator token was refused")
	ErrNotOperator  = errors.New("not an operator listener")
	ErrHostRefused  = errors.New("the operator listener does not answer to the host name")
)

// checkToken makes sure, before the run registers anything, that the
// operator listener answers and takes the token: it asks for the account
// of login (one the run is about to register, so normally none), a read
// that goes through the token check like every call of the API. The
// API's own "no such account" (404, in JSON) is a pass; a 404 of anything
// else is a listener that is not an operator listener.
func (c *opClient) checkToken(ctx context.Context, login string) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+operator.PathAccount+"?"+url.Values{"login": {login}}.Encode(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("operator API: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	body := strings.TrimSpace(string(b))
	isJSON := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
	switch {
	case (resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusNotFound) && isJSON:
		return nil
	case resp.StatusCode == http.StatusUnauthorized && c.token == "":
		return fmt.Errorf("%w: no token was given and the operator listener at %s requires one (HTTP 401); give the server's "+
			"token with --token, or --token-file (the %s file in its data directory), or run without the listener with --operator \"\" "+
			"(the test accounts are then kept)", ErrTokenRefused, c.base, operator.TokenFile)
	case resp.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("%w: the operator listener at %s answered HTTP 401 (%.200s); give the server's token with --token, "+
			"or --token-file (the %s file in its data directory)", ErrTokenRefused, c.base, body, operator.TokenFile)
	case resp.StatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("%w: the operator listener at %s refuses this address for a while after too many wrong tokens "+
			"(HTTP 429); retry in a minute with the right --token", ErrTokenRefused, c.base)
	case resp.StatusCode == http.StatusMisdirectedRequest:
		// The listener answers only to an IP address, localhost and the
		// names in operator.allowed_hosts (DNS rebinding).
		return fmt.Errorf("%w in %s (HTTP 421): give --operator with the listener's IP address, such as http://127.0.0.1:8081, "+
			"or localhost, or add the name to the server's operator.allowed_hosts", ErrHostRefused, c.base)
	case resp.StatusCode >= 500 && isJSON: // the API's own failure: the token passed
		return fmt.Errorf("the operator listener at %s failed the operator token check: HTTP %d %.200s", c.base, resp.StatusCode, body)
	}
	return &checkError{kind: ErrNotOperator, msg: fmt.Sprintf("%s answered the operator token check (GET %s) with HTTP %d, not as "+
		"the operator API does: is --operator the server's operator listener (operator.listen)?", c.base, operator.PathAccount, resp.StatusCode)}
}

// checkError is a failed operator check: its sentence, and its kind for
// errors.Is.
type checkError struct {
	kind error
	msg  string
}

func (e *checkError) Error() string { return e.msg }
func (e *checkError) Unwrap() error { return e.kind }

func (c *opClient) grant(ctx context.Context, login string, tickets, gold int64) (*operator.Account, error) {
	return c.call(ctx, http.MethodPost, operator.PathGrant, url.Values{"login": {login},
		"tickets": {strconv.FormatInt(tickets, 10)}, "gold": {strconv.FormatInt(gold, 10)}})
}

func (c *opClient) createSub(ctx context.Context, login, password, parent string) (*operator.Account, error) {
	return c.call(ctx, http.MethodPost, operator.PathAccount, url.Values{"login": {login}, "password": {password}, "parent": {parent}})
}

func (c *opClient) account(ctx context.Context, login string) (*operator.Account, error) {
	return c.call(ctx, http.MethodGet, operator.PathAccount, url.Values{"login": {login}})
}

// runBound says how long a run lasts: its duration, and its operations
// unless there is no such limit (the most an int32 holds: --duration given
// alone).
func runBound(d time.Duration, requests int) string {
	if requests >= math.MaxInt32 {
		return d.String()
	}
	return fmt.Sprintf("at most %s or %d operations", d, requests)
}
