package sdk

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// parentCheckInterval is how often a served plugin checks that its parent
// (the host) is still alive where it cannot wait for the parent's exit
// (waitParentExit: outside Linux, or before 5.3): the fallback for when
// Pdeathsig did not kill it (the host sets it on Linux); once a second, as
// each check wakes the plugin process (five per node, idle or not).
const parentCheckInterval = time.Second

// Serve serves p to the host that started this
// process and does not return until the host closes the plugin; then it
// exits the process. A plugin's main only calls Serve.
//
// Serve exits the process by itself when its parent dies, so a host killed
// with SIGKILL leaves no orphan plugin behind.
func Serve(p *Plugin) {
	if p == nil || len(p.handlers) == 0 {
		fmt.Fprintln(os.Stderr, "plugin serves no decision")
		os.Exit(1)
	}
	sets := map[int]plugin.PluginSet{ProtocolVersion: {dispenseName: &grpcPlugin{impl: p}}}
	ppid := os.Getppid()
	go func() {
		// On Linux the plugin waits for its parent's exit without waking
		// (an idle plugin's checks were most of its CPU: issue 35 item 7).
		if waitParentExit(ppid, os.Getppid) {
			os.Exit(2)
		}
		watchParent(ppid, parentCheckInterval, os.Getppid, func() { os.Exit(2) })
	}()
	// A SIGTERM sent to the host's whole process group (a service manager,
	// "timeout", kill -- -PGID) is the host's to handle: it finishes its
	// requests and then stops its plugins itself, so a plugin killed by it
	// first would fail those requests and be logged as a crash. go-plugin
	// ignores SIGINT for the same reason. A plugin still ends with its host
	// (watchParent, and Pdeathsig on Linux) and on SIGKILL.
	signal.Ignore(syscall.SIGTERM)

	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: sets,
		GRPCServer:       newGRPCServer,
		// JSON on stderr: the host's go-plugin client parses it and
		// forwards each record to the host's logger.
		Logger: hclog.New(&hclog.LoggerOptions{
			Level:      hclog.Info,
			Output:     os.Stderr,
			JSONFormat: true,
		}),
	})
	os.Exit(0)
}

// newGRPCServer is go-plugin's default server with stream workers: gRPC
// otherwise starts a goroutine per call, and a DecideBatch handler outgrows
// a fresh goroutine's stack, so every call paid for growing and copying it
// (~10% of the plugin process's CPU under a drop load). Workers keep their
// grown stacks; calls beyond them still get goroutines of their own.
func newGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	return plugin.DefaultGRPCServer(append(opts, grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0)))))
}

// watchParent calls exit once getppid no longer returns ppid: the parent
// died and this process was re-parented (to init or a subreaper). It is the
// plugin-side half of orphan prevention; the host side sets Pdeathsig.
func watchParent(ppid int, every time.Duration, getppid func() int, exit func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	for range t.C {
		if getppid() != ppid {
			exit()
			return
		}
	}
}
