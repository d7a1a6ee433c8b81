package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/honmaster/masterserver/config"
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/logflood"
	"github.com/honmaster/masterserver/host/operator"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/plugins/supervisor"
	"github.com/honmaster/masterserver/storage"
)

// Serve runs the server until ctx ends or SIGINT/SIGTERM arrives, then shuts
// down gracefully: stop accepting, finish requests in flight, stop plugins,
// drain the actors, close storage.
func Serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, demo := serveFlags(stderr)
	cfg, err := config.FromArgs(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stdout, "usage: %s serve [flags]\n\nServes the game client; the data directory is created if missing.\n\nflags:\n", Name)
		printFlags(stdout, fs)
		return err
	case err != nil:
		return configError(err)
	}
	if err := checkPluginFlags(cfg); err != nil {
		return err
	}
	demoDir(fs, cfg, *demo)
	log := NewServeLogger(cfg, stderr)
	applyMemoryLimit(cfg, log) // memlimit.go
	applyGCPercent(cfg.Server.GCPercent, log)
	applyGCHeapFloor(cfg.Server.GCHeapFloor, log) // after the percent: the floor's base is the GOGC it finds
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// SIGHUP reloads the configuration (systemctl reload). Caught from
	// here on, so that one during start-up is not fatal: it is served once
	// the server is up.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	source := func() (*config.Config, error) {
		fs, demo := serveFlags(io.Discard)
		c, err := config.FromArgs(fs, args)
		if err == nil {
			demoDir(fs, c, *demo)
		}
		return c, err
	}
	rt, err := Start(ctx, cfg, log, *demo, stdout, WithConfigSource(source))
	if err != nil {
		return err // one sentence on stderr, nothing else (a failed start logs no start-up line)
	}
	dataDir, _ := filepath.Abs(cfg.Storage.DataDir)
	log.Info("started", "version", versionString(), "data_dir", dataDir, "config", configSource(fs), "storage", cfg.Storage.Backend)
	go func() {
		for {
			select {
			case <-hup:
				log.Info("SIGHUP: reloading the configuration", "config", configSource(fs))
				res, err := rt.Reload(context.WithoutCancel(ctx)) // logs its outcome
				operator.Audit(log, operator.BySignal, "reload", "", nil, err, "changed", res.Applied, "kept", res.Kept)
			case <-ctx.Done():
				return
			}
		}
	}()
	return rt.Wait(ctx)
}

// configSource names where a configuration parsed by fs comes from, for
// the log: the --config file, or the built-in defaults.
func configSource(fs *flag.FlagSet) string {
	if f := fs.Lookup(config.ConfigFlag); f != nil && f.Value.String() != "" {
		return f.Value.String()
	}
	return "built-in defaults"
}

// serveFlags are serve's flags besides config.FromArgs's.
func serveFlags(stderr io.Writer) (fs *flag.FlagSet, demo *bool) {
	fs = newFlags("serve", stderr)
	demo = fs.Bool("demo", false, "seed demo accounts and content (published passwords) and print their logins; the data "+
		"directory is "+DemoDataDir+" unless --data or the configuration names one. A server without --demo refuses a database that holds them, and --demo "+
		"refuses one that holds accounts and is not the demo's")
	return fs, demo
}

// demoDir points serve --demo at DemoDataDir when neither --data nor the
// configuration file chose a data directory (it is the default's).
func demoDir(fs *flag.FlagSet, cfg *config.Config, demo bool) {
	if !demo || cfg.Storage.DataDir != config.Default().Storage.DataDir {
		return
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == config.DataFlag })
	if !given {
		cfg.Storage.DataDir = DemoDataDir
	}
}

// Wait serves until ctx ends, then stops gracefully and returns Stop's
// result. If HTTP serving ends on its own first (the listener failed for
// good), it stops everything and returns an error, so that the process exits
// non-zero and a supervisor restarts it, rather than linger with the admin
// socket up and HTTP dead.
func (rt *Runtime) Wait(ctx context.Context) error {
	log := rt.App.Log
	select {
	case <-ctx.Done():
		log.Info("shutting down")
		return rt.Stop()
	case <-rt.clusterFatal():
		err := rt.App.Cluster.Health()
		log.Error("this node left the cluster; exiting so that the supervisor restarts it", "err", err)
		rt.Stop()
		return fmt.Errorf("left the cluster: %w", err)
	case <-rt.App.DB.Fatal():
		err := rt.App.DB.Health()
		log.Error("storage can take no more writes; exiting so that the supervisor restarts the server", "err", err)
		rt.Stop()
		return fmt.Errorf("storage failed: %w", err)
	case <-rt.served:
		err := rt.serveErr
		if err == nil {
			err = errors.New("the listener closed")
		}
		log.Error("HTTP serving stopped; exiting", "err", err)
		rt.Stop()
		return fmt.Errorf("HTTP serving stopped: %w", err)
	}
}

// Runtime is a started server (tests start one on loopback).
type Runtime struct {
	App      *App
	Server   *server.Server
	Addr     net.Addr
	served   chan struct{} // closed when HTTP serving ends
	serveErr error         // why; read after served is closed
	stopAdm  func()
	adm      *adminConns // the admin socket's connections (tests)
	stop     sync.Once
	stopErr  error

	stopSweep context.CancelFunc
	sweepCtx  context.Context
	sweepDone chan struct{}

	// Operator is the operator listener (nil when operator.enabled is
	// false), OperatorAddr its address.
	Operator     *operator.Server
	OperatorAddr net.Addr
	ln           net.Listener // the game listener

	reloadMu sync.Mutex     // one reload at a time
	cfg      *config.Config // in force (reload.go); under reloadMu
	// closing (under reloadMu) is set by shutdown before it closes the
	// app: a reload after it would start plugins nobody stops.
	closing bool
	// reloadFailed words the last reload when it failed ("" once one
	// succeeds): the console's banner.
	reloadFailed atomic.Pointer[string]
}

// sessionSweepEvery is how often expired sessions are deleted.
const sessionSweepEvery = time.Hour

// sweepSessions deletes expired sessions at start and then every
// sessionSweepEvery, until Stop. After the first it returns the start's
// garbage to the system.
func (rt *Runtime) sweepSessions() {
	defer close(rt.sweepDone)
	t := time.NewTicker(sessionSweepEvery)
	defer t.Stop()
	first := true
	for {
		ctx, cancel := context.WithTimeout(rt.sweepCtx, 5*time.Minute)
		n, err := rt.App.Login.SweepSessions(ctx)
		cancel()
		if err != nil && rt.sweepCtx.Err() == nil {
			rt.App.Log.Warn("session sweep", "err", err)
		}
		if n > 0 {
			rt.App.Log.Info("expired sessions deleted", "count", n)
		}
		if first {
			// The start's garbage (configuration, tables built once, the
			// plugins' start, protoactor's first process registry, this
			// sweep's reads) goes back to the system now: the collector
			// runs rarely on an idle server (server.gc_heap_floor), so it
			// would otherwise stay resident until players came.
			debug.FreeOSMemory()
			first = false
		}
		select {
		case <-rt.sweepCtx.Done():
			return
		case <-t.C:
		}
	}
}

// StartOption changes how Start runs the server, beyond its settings.
type StartOption func(*App)

// WithPluginClock times the pings and restart backoff of each area's
// plugin supervisor by clock(area) instead of the real clock (see
// supervisor.Options.Clock): tests step it to make a hung plugin's
// detection and restart happen when they say.
func WithPluginClock(clock func(sdk.Area) supervisor.Clock) StartOption {
	return func(a *App) { a.pluginClock = clock }
}

// Start opens the data directory, seeds demo content if asked, and serves
// HTTP on cfg.Server.Listen and the admin socket in the data directory.
func Start(ctx context.Context, cfg *config.Config, log *slog.Logger, demo bool, stdout io.Writer, opts ...StartOption) (*Runtime, error) {
	// A cluster node keeps its share of every per-address budget.
	if n := cfg.Cluster.NodeCount(); n > 1 {
		cfg = cfg.ShareLimits(n)
		log.Info("cluster: each per-address limit is this node's share", "nodes", n)
	} else if cfg.Cluster.Enabled && cfg.Cluster.Provider == "etcd" {
		log.Warn("cluster: each node keeps the whole of every per-address limit; set cluster.nodes to the number of nodes to share them")
	}
	// Before anything keys a limiter by address: process wide, see limit.AddrKey.
	limit.SetIPv6Prefix(cfg.Limits.IPv6Prefix)
	logflood.SetClipBytes(cfg.Server.LogValueLimit)
	// The admin socket's path must fit a Unix socket address: found out
	// after the database was opened and the plugins started, it failed as
	// "bind: invalid argument".
	if err := checkAdminSocketPath(cfg.Storage.DataDir); err != nil {
		return nil, err
	}
	// The ports first: a port in use is said before anything else happens
	// (no data directory created, no plugin started, nothing to undo).
	ln, err := net.Listen("tcp", cfg.Server.Listen)
	if err != nil {
		return nil, listenError("server.listen, --listen", cfg.Server.Listen, err)
	}
	var opLn net.Listener
	if cfg.Operator.Enabled {
		if opLn, err = net.Listen("tcp", cfg.Operator.Listen); err != nil {
			ln.Close()
			return nil, listenError("operator.listen, --operator-listen", cfg.Operator.Listen, err)
		}
	}
	closeListeners := func() {
		ln.Close()
		if opLn != nil {
			opLn.Close()
		}
	}
	app, err := openApp(cfg, log, true)
	if err != nil {
		closeListeners()
		return nil, openError(cfg.Storage.DataDir, err)
	}
	fail := func(err error) (*Runtime, error) {
		closeListeners()
		app.Close()
		return nil, err
	}
	for _, o := range opts {
		o(app)
	}
	if demo {
		if err := refuseForeignStore(app.DB, cfg); err != nil {
			return fail(err)
		}
		if err := seedDemo(ctx, app, stdout); err != nil {
			return fail(fmt.Errorf("demo seed: %w", err))
		}
	} else if err := refuseDemoStore(app.DB, cfg.Storage.DataDir); err != nil {
		return fail(err)
	}
	if err := app.startPlugins(ctx); err != nil {
		return fail(err)
	}
	checkFileLimit(cfg, len(app.Plugins.sups), log, fileLimit) // filelimit.go
	srv, err := mountAreas(app)
	if err != nil {
		return fail(err)
	}
	stopAdm, adm, err := serveAdmin(context.WithoutCancel(ctx), app, filepath.Join(cfg.Storage.DataDir, AdminSocketName))
	if err != nil {
		return fail(err)
	}
	op, opAddr, err := startOperator(app, stdout, opLn)
	if err != nil {
		stopAdm()
		return fail(err)
	}
	rt := &Runtime{App: app, Server: srv, Addr: ln.Addr(), served: make(chan struct{}), stopAdm: stopAdm, adm: adm,
		sweepDone: make(chan struct{}), Operator: op, OperatorAddr: opAddr, ln: ln}
	rt.sweepCtx, rt.stopSweep = context.WithCancel(context.Background())
	rt.cfg = cfg
	app.runtime.Store(rt)
	go func() {
		rt.serveErr = srv.Serve(ln)
		close(rt.served)
	}()
	go rt.sweepSessions()
	go rt.syncCluster(rt.sweepCtx)
	// One start-up line for the address, on stdout, where scripts and
	// tests read it, and one in the log with the operator listener and
	// where each plugin comes from.
	var plugins []string
	for _, m := range hostarea.PluginModules() {
		src := "bundled"
		if p := cfg.Plugins[string(m.Area)].Path; p != "" {
			src = p
		}
		plugins = append(plugins, string(m.Area)+"="+src)
	}
	opListen := "off"
	if opAddr != nil {
		opListen = opAddr.String()
	}
	log.Info("serving", "addr", ln.Addr().String(), "operator_addr", opListen, "plugins", plugins, "data_dir", cfg.Storage.DataDir)
	fmt.Fprintf(stdout, "listening on %s\n", ln.Addr())
	if demo {
		printDemoConsole(stdout, cfg, opAddr)
	}
	return rt, nil
}

// clusterFatal is closed when this node left the cluster for good (never
// on a single node).
func (rt *Runtime) clusterFatal() <-chan struct{} {
	if rt.App.Cluster == nil {
		return nil
	}
	return rt.App.Cluster.Fatal()
}

// Stop shuts the runtime down gracefully. Later calls return the first
// call's result.
func (rt *Runtime) Stop() error {
	rt.stop.Do(func() { rt.stopErr = rt.shutdown() })
	return rt.stopErr
}

func (rt *Runtime) shutdown() error {
	cfg := rt.App.Cfg
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Server.ShutdownTimeout.Duration)
	defer cancel()
	// HTTP first, with the whole budget; then the sweep (cancelled, it ends
	// within one account's change); then the actors and storage.
	err := rt.Server.Shutdown(ctx)
	// A Shutdown that ran before Serve registered the listener with fasthttp
	// closes nothing, and Serve would then wait forever: close it here.
	rt.ln.Close()
	rt.stopSweep()
	<-rt.sweepDone
	<-rt.served
	if serr := rt.serveErr; serr != nil && !errors.Is(serr, net.ErrClosed) && err == nil {
		err = serr
	}
	rt.stopAdm()
	if rt.Operator != nil {
		rt.Operator.Shutdown(ctx)
	}
	// A reload running now (SIGHUP just before SIGTERM) ends first, its
	// plugins in their slots, where Close stops them; a later one is
	// refused.
	rt.reloadMu.Lock()
	rt.closing = true
	rt.reloadMu.Unlock()
	rt.App.Close() // stops the plugins too
	return err
}

// mountAreas builds the HTTP host with every area's routes, each area's
// reaching its supervised plugin.
func mountAreas(app *App) (*server.Server, error) {
	return buildServer(app, app.Plugins.Caller)
}

// buildServer builds the HTTP host with every area's routes; caller gives
// each plugin area its plugin.
func buildServer(app *App, caller func(sdk.Area) sdk.Caller) (*server.Server, error) {
	cfg, log := app.Cfg, app.Log
	srv := server.New(server.Deps{Config: cfg, Logger: log, Login: app.Login, Accounts: app.Accounts})
	instrument(app, srv)
	lives := map[sdk.Area]*hostarea.Live{}
	for _, m := range hostarea.Modules() {
		env := hostarea.Env{Sys: app.Sys, Login: app.Login, Config: cfg, Log: log,
			Metrics: app.Metrics.Registry, Cluster: app.Cluster != nil}
		if m.Bundled != nil {
			env.Plugin = app.Metrics.Caller(m.Area, caller(m.Area))
		}
		live, err := m.Start(env)
		if err != nil {
			return nil, fmt.Errorf("area %s: %w", m.Area, err)
		}
		if err := srv.Mount(live.Routes...); err != nil {
			return nil, fmt.Errorf("area %s: %w", m.Area, err)
		}
		lives[m.Area] = live
	}
	app.lives = lives
	srv.SetHealthCheck(app.Plugins.Unhealthy)
	srv.AddHealthCheck("storage", func() error { return storageHealth(app.DB.Health()) })
	attachCluster(app, srv)
	return srv, nil
}

// storageHealth words a storage health error for /healthz.
func storageHealth(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrDiskFull):
		return errors.New("free disk space is below limits.disk_free_margin; writes are refused until space returns")
	case errors.Is(err, storage.ErrUnavailable):
		return errors.New("the PostgreSQL database cannot be reached, or its lock is being taken again (see the log); writes are refused until it is back")
	case errors.Is(err, storage.ErrPostgresLockLost):
		return errors.New("the PostgreSQL database lock was lost (see the log); writes are refused until the server restarts")
	case errors.Is(err, storage.ErrEngineFailed):
		return errors.New("the storage engine failed (see the log); writes are refused until the server restarts")
	default:
		return errors.New("recent writes failed; see the log")
	}
}
