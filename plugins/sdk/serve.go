package sdk

import (
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
)

// parentCheckInterval is how often a served plugin checks that its parent
// (the host) is still alive.
const parentCheckInterval = 200 * time.Millisecond

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
	go watchParent(os.Getppid(), parentCheckInterval, os.Getppid, func() { os.Exit(2) })

	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: sets,
		GRPCServer:       plugin.DefaultGRPCServer,
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
