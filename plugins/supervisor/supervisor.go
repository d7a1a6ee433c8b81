package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/honmaster/masterserver/plugins/sdk"
)

// Source says which plugin serves an area and how to run it.
type Source struct {
	Area sdk.Area
	// Path of an external plugin binary; "" runs the plugin bundled in the
	// host binary (Options.SelfExe with Options.SelfArgs).
	Path string
	// Args are appended to the command line; Env is added to the host's
	// environment (and wins over it).
	Args, Env []string
	// StartTimeout bounds launch, handshake, Info and Configure (default
	// 10s). CallTimeout bounds every call (default 2s; a caller's earlier
	// deadline wins).
	StartTimeout, CallTimeout time.Duration
	// PingInterval is how often a running plugin is pinged (default 5s);
	// a plugin that does not answer a ping within PingTimeout (default 2s)
	// is killed and restarted, so a hung (SIGSTOPped, deadlocked) plugin is
	// replaced within PingInterval+PingTimeout.
	PingInterval, PingTimeout time.Duration
	// BatchesInFlight is how many batched decision calls may be in flight
	// at once (0: sdk.DefaultBatchesInFlight).
	BatchesInFlight int
	// Config is the operator's [plugins.<area>.config] table, handed to the
	// plugin's Configure at start and after every restart.
	Config map[string]any
}

// Defaults for Source and Backoff.
const (
	DefaultStartTimeout = 10 * time.Second
	DefaultCallTimeout  = 2 * time.Second
	DefaultPingInterval = 5 * time.Second
	DefaultPingTimeout  = 2 * time.Second
	DefaultBackoffMin   = 100 * time.Millisecond
	DefaultBackoffMax   = time.Second
	DefaultBackoffReset = 10 * time.Second
)

// Backoff shapes restarts. The first restart after a plugin that ran for at
// least Reset is immediate; each further consecutive attempt waits Min,
// 2*Min, 4*Min, ... up to Max.
type Backoff struct {
	Min, Max, Reset time.Duration
}

// delay returns the wait before restart attempt n (0-based) of a series.
func (b Backoff) delay(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	d := b.Min
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	return min(d, b.Max)
}

// Options configures a Supervisor. The zero value is ready to use.
type Options struct {
	// Logger gets the supervisor's logs, and go-plugin's and the plugin's at
	// debug level. nil discards them.
	Logger *slog.Logger
	// SelfExe is the host binary run for bundled plugins; default
	// os.Executable().
	SelfExe string
	// SelfArgs returns the arguments that put the host binary in plugin
	// mode for an area; default ["plugin", string(area)].
	SelfArgs func(area sdk.Area) []string
	Backoff  Backoff
	// Clock times the pings (PingInterval, PingTimeout) and the backoff
	// between restarts; nil: the real clock. A test that steps a clock of
	// its own decides when a ping is due, when an unanswered one has
	// failed and when a restart begins, so what it checks does not depend
	// on how fast a loaded machine runs.
	Clock Clock
}

// Clock is the time source of a Supervisor's waits.
type Clock interface {
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// EnsureDefaults fills unset fields with their defaults.
func (o *Options) EnsureDefaults() {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.SelfArgs == nil {
		o.SelfArgs = func(area sdk.Area) []string { return []string{"plugin", string(area)} }
	}
	if o.Backoff.Min <= 0 {
		o.Backoff.Min = DefaultBackoffMin
	}
	if o.Backoff.Max <= 0 {
		o.Backoff.Max = DefaultBackoffMax
	}
	if o.Backoff.Reset <= 0 {
		o.Backoff.Reset = DefaultBackoffReset
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
}

// State is a supervisor's lifecycle state.
type State string

// States.
const (
	StateNew        State = "new"        // created, Start not called
	StateStarting   State = "starting"   // Start is launching the plugin
	StateRunning    State = "running"    // the plugin passed its health check
	StateRestarting State = "restarting" // the plugin died; relaunching with backoff
	StateStopped    State = "stopped"    // Stop was called; no more restarts
	StateFailed     State = "failed"     // Start failed; nothing is retried
)

// Status is a snapshot of a supervisor, for health and admin endpoints.
type Status struct {
	Area sdk.Area
	// Source is "bundled" or the external plugin's path.
	Source          string
	ProtocolVersion int
	State           State
	// PID of the running plugin, 0 when none.
	PID int
	// Plugin is the plugin's own name and version (from Info), empty until
	// a plugin ran.
	Plugin, PluginVersion string
	// Restarts counts successful restarts after a plugin died or hung.
	Restarts  int
	LastError error
	// CallTimeout bounds each call into the plugin (Source.CallTimeout,
	// or its default).
	CallTimeout time.Duration
}

// errStopped ends a launch when Stop is called meanwhile.
var errStopped = errors.New("stopped")

// Supervisor runs and restarts the plugin of one area. Its methods are safe
// for concurrent use.
type Supervisor struct {
	src    Source
	opts   Options
	log    *slog.Logger
	hclog  hclog.Logger
	source string // Status.Source

	live atomic.Pointer[instance] // the running instance, nil when none

	mu       sync.Mutex
	state    State
	version  int
	restarts int
	lastErr  error
	info     sdk.Info           // of the last plugin that started
	cancel   context.CancelFunc // ends the loop
	done     chan struct{}      // closed when the loop has ended
}

// instance is one running plugin process.
type instance struct {
	client  *plugin.Client
	rpc     *sdk.Client
	info    sdk.Info
	pid     int
	version int
	readyAt time.Time
	stuck   stuckWatch
}

// stuckWatch tells a plugin that answers pings but no decision (a handler
// deadlocked, or spinning, while its gRPC server is fine): the pings
// alone kept such a plugin running, and /healthz ok, while every
// decision timed out. A decision that its caller still waited for and
// that was not answered within CallTimeout starts a silence; a later one
// ending CallTimeout or more after that start, with no decision answered
// in between, makes the plugin hung (hung closed): two call periods
// without an answer, so that the calls of one slow batch, which all time
// out together, never do it alone. Any answer, a refusal included, ends
// the silence.
type stuckWatch struct {
	mu     sync.Mutex
	silent time.Time // when the first unanswered decision of the silence timed out
	once   sync.Once
	hung   chan struct{}
}

// note records how a decision ended: err from Decide, ctx the caller's.
func (w *stuckWatch) note(ctx context.Context, err error, callTimeout time.Duration, now time.Time) {
	switch {
	case ctx.Err() != nil:
		// The caller gave up first: this tells nothing of the plugin.
	case errors.Is(err, context.DeadlineExceeded):
		// CallTimeout passed while the caller still waited.
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.silent.IsZero() {
			w.silent = now
		} else if now.Sub(w.silent) >= callTimeout {
			w.once.Do(func() { close(w.hung) })
		}
	case err == nil || !errors.Is(err, sdk.ErrUnavailable):
		// Answered (a decision, or the plugin's own refusal).
		w.mu.Lock()
		w.silent = time.Time{}
		w.mu.Unlock()
	}
}

// New returns a supervisor for src. Nothing runs until Start.
func New(src Source, opts Options) *Supervisor {
	opts.EnsureDefaults()
	if src.StartTimeout <= 0 {
		src.StartTimeout = DefaultStartTimeout
	}
	if src.CallTimeout <= 0 {
		src.CallTimeout = DefaultCallTimeout
	}
	if src.PingInterval <= 0 {
		src.PingInterval = DefaultPingInterval
	}
	if src.PingTimeout <= 0 {
		src.PingTimeout = DefaultPingTimeout
	}
	source := "bundled"
	if src.Path != "" {
		source = src.Path
	}
	return &Supervisor{
		src:     src,
		opts:    opts,
		log:     opts.Logger.With("plugin_area", string(src.Area), "plugin_source", source),
		hclog:   newHCLogger(opts.Logger).Named("plugin." + string(src.Area)),
		source:  source,
		state:   StateNew,
		version: src.Area.ProtocolVersion(),
	}
}

// Start launches the plugin, completes the handshake, dispenses the area's
// client and makes a first health call. It returns once the plugin is
// ready, or with an error after StartTimeout, when ctx ends, or when the
// plugin fails its check; then the state is StateFailed and Start may be
// called again. After a successful Start the plugin is restarted whenever
// it dies, until Stop.
func (s *Supervisor) Start(ctx context.Context) error {
	if !s.src.Area.Known() {
		return fmt.Errorf("unknown plugin area %q", s.src.Area)
	}
	s.mu.Lock()
	if s.state != StateNew && s.state != StateFailed {
		state := s.state
		s.mu.Unlock()
		return fmt.Errorf("%s plugin: Start in state %s", s.src.Area, state)
	}
	loopCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	ready := make(chan error, 1)
	s.state, s.cancel, s.done = StateStarting, cancel, done
	s.mu.Unlock()

	go s.loop(loopCtx, done, ready)

	select {
	case err := <-ready:
		return err
	case <-ctx.Done():
		s.stopLoop(StateFailed, ctx.Err())
		return fmt.Errorf("start %s plugin: %w", s.src.Area, ctx.Err())
	}
}

// Stop kills the plugin and ends restarts. It waits for a launch in
// progress to finish (at most StartTimeout). Calls fail with
// sdk.ErrUnavailable afterwards. Stop may be called more than once.
func (s *Supervisor) Stop() {
	s.stopLoop(StateStopped, nil)
}

func (s *Supervisor) stopLoop(final State, reason error) {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.cancel, s.done = nil, nil
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	s.mu.Lock()
	if s.state != StateStopped {
		s.state = final
	}
	if reason != nil {
		s.lastErr = reason
	}
	s.mu.Unlock()
}

// Status returns a snapshot of the supervisor.
func (s *Supervisor) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{
		Area:            s.src.Area,
		Source:          s.source,
		ProtocolVersion: s.version,
		State:           s.state,
		Restarts:        s.restarts,
		LastError:       s.lastErr,
		Plugin:          s.info.Name,
		PluginVersion:   s.info.Version,
		CallTimeout:     s.src.CallTimeout,
	}
	if inst := s.live.Load(); inst != nil {
		st.PID = inst.pid
	}
	return st
}

// Ready reports whether the plugin is running and passed its health check.
func (s *Supervisor) Ready() bool {
	return s.live.Load() != nil
}

// current returns the running instance or an error wrapping
// sdk.ErrUnavailable.
func (s *Supervisor) current() (*instance, error) {
	if inst := s.live.Load(); inst != nil {
		return inst, nil
	}
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	return nil, fmt.Errorf("%w (%w): %s plugin is %s", sdk.ErrUnavailable, sdk.ErrNotRunning, s.src.Area, state)
}

// loop owns the plugin process: the first launch, then watching and
// restarting until ctx ends. It runs locked to one OS thread because
// Pdeathsig fires when the thread that forked the plugin exits, not the
// process; a thread nobody else uses only exits with the host.
func (s *Supervisor) loop(ctx context.Context, done chan<- struct{}, ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(done)

	inst, err := s.launch(ctx)
	if err != nil {
		s.mu.Lock()
		s.state, s.lastErr = StateFailed, err
		s.mu.Unlock()
		ready <- err
		return
	}
	s.setRunning(inst, false)
	ready <- nil

	failures := 0
	for {
		exitErr := s.watch(ctx, inst)
		if exitErr == nil {
			s.live.Store(nil)
			stopClient(s.log, inst.client, inst.pid)
			return
		}
		s.live.Store(nil)
		s.mu.Lock()
		s.state, s.lastErr = StateRestarting, exitErr
		s.mu.Unlock()
		s.log.Warn("plugin lost; restarting", "pid", inst.pid, "uptime", time.Since(inst.readyAt), "err", exitErr)
		killProcess(inst.pid)                    // a hung plugin ignores go-plugin's polite shutdown
		stopClient(s.log, inst.client, inst.pid) // reaps and cleans up after the dead process
		if time.Since(inst.readyAt) >= s.opts.Backoff.Reset {
			failures = 0
		}

		for inst = nil; inst == nil; {
			delay := s.opts.Backoff.delay(failures)
			failures++
			select {
			case <-ctx.Done():
				return
			case <-s.opts.Clock.After(delay):
			}
			if inst, err = s.launch(ctx); err != nil {
				if errors.Is(err, errStopped) {
					return
				}
				s.mu.Lock()
				s.lastErr = err
				s.mu.Unlock()
				s.log.Warn("plugin restart failed", "attempt", failures, "error", err)
			}
		}
		s.setRunning(inst, true)
	}
}

func (s *Supervisor) setRunning(inst *instance, restarted bool) {
	s.mu.Lock()
	s.state, s.version, s.info = StateRunning, inst.version, inst.info
	if restarted {
		s.restarts++
	}
	s.mu.Unlock()
	s.live.Store(inst)
	s.log.Info("plugin running", "pid", inst.pid, "protocol_version", inst.version, "restarted", restarted)
}

// exitPoll is how often the loop asks go-plugin whether the process exited,
// where the kernel cannot tell it at once (exitWatch: a pidfd on Linux).
// Every poll wakes the host (three plugins on each node of a cluster): at
// 20 ms the polls were most of an idle node's CPU; a plugin's exit is
// still seen within a quarter second, as quickly as a restart needs.
// exitPollWatched is the poll kept beside a pidfd, in case its wait fails.
const (
	exitPoll        = 250 * time.Millisecond
	exitPollWatched = 5 * time.Second
)

// watch blocks until the plugin process exits or stops answering pings (an
// error saying which) or ctx ends (nil). Exits are seen at once where the
// kernel tells them (exitWatch), else polled in real time; pings are timed
// by the supervisor's Clock.
func (s *Supervisor) watch(ctx context.Context, inst *instance) error {
	exited, stopWatch := exitWatch(inst.pid)
	defer stopWatch()
	poll := exitPoll
	if exited != nil {
		poll = exitPollWatched
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	pingDue := s.opts.Clock.After(s.src.PingInterval)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-exited:
			return fmt.Errorf("%w: %s plugin (pid %d) exited", sdk.ErrUnavailable, s.src.Area, inst.pid)
		case <-inst.stuck.hung:
			return fmt.Errorf("%w: %s plugin (pid %d) answers pings but left its decisions unanswered for %v and more",
				sdk.ErrUnavailable, s.src.Area, inst.pid, 2*s.src.CallTimeout)
		case <-t.C:
			if inst.client.Exited() {
				return fmt.Errorf("%w: %s plugin (pid %d) exited", sdk.ErrUnavailable, s.src.Area, inst.pid)
			}
			continue
		case <-pingDue:
		}
		err := s.ping(ctx, inst)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s plugin (pid %d) did not answer a ping within %v: %w",
				sdk.ErrUnavailable, s.src.Area, inst.pid, s.src.PingTimeout, err)
		}
		pingDue = s.opts.Clock.After(s.src.PingInterval)
	}
}

// ping asks the plugin whether it is alive and waits PingTimeout, by the
// supervisor's Clock, for the answer.
func (s *Supervisor) ping(ctx context.Context, inst *instance) error {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends a ping still in flight
	answer := make(chan error, 1)
	go func() { answer <- inst.rpc.Ping(pctx) }()
	select {
	case err := <-answer:
		return err
	case <-s.opts.Clock.After(s.src.PingTimeout):
		return context.DeadlineExceeded
	case <-ctx.Done():
		return ctx.Err()
	}
}

// killGrace is how long a plugin gets to shut down politely (go-plugin's
// Kill asks it first) before it is killed.
const killGrace = 3 * time.Second

// stopClient stops a plugin process through go-plugin, politely first. A
// hung plugin never answers go-plugin's shutdown request, so after
// killGrace it gets SIGKILL, which also ends the request.
//
// go-plugin's Kill then waits until the plugin's stdout and stderr are
// closed by every process holding them: a process the plugin started (a
// wrapper script's child, a helper) may hold them on after the plugin
// died. That wait is given killGrace more, then left to finish in the
// background (its goroutines end when the holder exits), so that neither
// the restart nor the host's stop waits on another process.
func stopClient(log *slog.Logger, client *plugin.Client, pid int) {
	done := make(chan struct{})
	go func() {
		client.Kill()
		close(done)
	}()
	select {
	case <-done:
		killProcess(pid) // what the plugin started and left (its process group)
		return
	case <-time.After(killGrace):
		killProcess(pid)
	}
	select {
	case <-done:
	case <-time.After(killGrace):
		log.Warn("plugin killed, but another process still holds its output open (one it started?): going on without waiting for it", "pid", pid)
	}
}

// command builds the plugin's command line.
func (s *Supervisor) command() (*exec.Cmd, error) {
	path, args := s.src.Path, []string(nil)
	if path == "" {
		path = s.opts.SelfExe
		if path == "" {
			exe, err := os.Executable()
			if err != nil {
				return nil, fmt.Errorf("locate host binary for bundled %s plugin: %w", s.src.Area, err)
			}
			path = exe
		}
		args = s.opts.SelfArgs(s.src.Area)
	}
	args = append(append([]string(nil), args...), s.src.Args...)
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), s.src.Env...)
	setProcAttr(cmd)
	return cmd, nil
}

// launch starts one plugin process and returns it once it passed its
// health check, all within StartTimeout.
func (s *Supervisor) launch(ctx context.Context) (*instance, error) {
	deadline := time.Now().Add(s.src.StartTimeout)
	fail := func(err error) (*instance, error) {
		return nil, fmt.Errorf("start %s plugin (%s): %w", s.src.Area, s.source, err)
	}
	sets := sdk.ClientPluginSets()
	cmd, err := s.command()
	if err != nil {
		return fail(err)
	}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		VersionedPlugins: sets,
		Cmd:              cmd,
		SkipHostEnv:      true, // command() set the environment, with Source.Env last
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     s.src.StartTimeout,
		Logger:           s.hclog,
		Managed:          false,
	})
	rpc, err := client.Client() // starts the process and completes the handshake
	pid, _ := strconv.Atoi(client.ID())
	if err != nil {
		stopClient(s.log, client, pid)
		return fail(err)
	}
	c, err := sdk.Dispense(rpc)
	if err != nil {
		stopClient(s.log, client, pid)
		return fail(err)
	}
	c.SetBatchesInFlight(s.src.BatchesInFlight)
	inst := &instance{client: client, rpc: c, pid: pid, version: client.NegotiatedVersion(), stuck: stuckWatch{hung: make(chan struct{})}}

	checkCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if inst.info, err = s.check(checkCtx, c); err != nil {
		stopClient(s.log, client, pid)
		if ctx.Err() != nil {
			return nil, errStopped
		}
		return fail(err)
	}
	if ctx.Err() != nil {
		stopClient(s.log, client, pid)
		return nil, errStopped
	}
	inst.readyAt = time.Now()
	return inst, nil
}

// Start errors a caller can match with errors.Is.
var (
	// ErrContract: the plugin lacks a decision the area needs or serves it
	// in another version.
	ErrContract = errors.New("plugin does not serve the area's contract")
	// ErrConfig: the plugin rejected its [plugins.<area>.config] table.
	ErrConfig = errors.New("plugin rejected its configuration")
)

// check makes the first calls to a fresh plugin: Info (every decision of
// the area served, in its version) and Configure (the operator's table
// accepted).
func (s *Supervisor) check(ctx context.Context, c *sdk.Client) (sdk.Info, error) {
	info, err := c.Info(ctx)
	if err != nil {
		return info, fmt.Errorf("info: %w", err)
	}
	served := map[string]uint32{}
	for _, d := range info.Decisions {
		served[d.Name] = d.Version
	}
	for _, need := range s.src.Area.Decisions() {
		v, ok := served[need.Name]
		switch {
		case !ok:
			return info, fmt.Errorf("%w: plugin %q does not serve decision %s (v%d)", ErrContract, info.Name, need.Name, need.Version)
		case v != need.Version:
			return info, fmt.Errorf("%w: plugin %q serves decision %s v%d, the host needs v%d", ErrContract, info.Name, need.Name, v, need.Version)
		}
	}
	problems, err := c.Configure(ctx, s.src.Area, s.src.Config)
	if err != nil {
		return info, fmt.Errorf("configure: %w", err)
	}
	if len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = fmt.Sprintf("plugins.%s.config.%s: %s", s.src.Area, p.Key, p.Message)
		}
		return info, fmt.Errorf("%w: %s", ErrConfig, strings.Join(msgs, "; "))
	}
	return info, nil
}

// Decide implements sdk.Caller: the call goes to the instance running at
// that moment, bounded by CallTimeout and ctx. While the plugin is down it
// fails fast with an error wrapping sdk.ErrUnavailable.
func (s *Supervisor) Decide(ctx context.Context, decision string, facts, state []byte) (sdk.RawResult, error) {
	inst, err := s.current()
	if err != nil {
		return sdk.RawResult{}, err
	}
	// Bounded by CallTimeout without a context of its own (see
	// sdk.Client.DecideWithin): a timer per decision cost ~3% of a vote's
	// server CPU.
	res, err := inst.rpc.DecideWithin(ctx, s.src.CallTimeout, decision, facts, state)
	inst.stuck.note(ctx, err, s.src.CallTimeout, time.Now())
	return res, err
}

var _ sdk.Caller = (*Supervisor)(nil)
