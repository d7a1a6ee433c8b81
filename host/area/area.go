// Package area is the host's registry of feature areas served by a plugin.
//
// An area is declared in two places, both its own:
//
//   - its contract (a package that calls sdk.RegisterArea and
//     sdk.NewDecision beside its types and .proto), which the host and
//     the plugin share;
//   - its host side, a package that calls Register from an init function
//     with the plugin the host binary bundles and how the area's routes
//     are built, and, when the area has settings of its own,
//     config.RegisterSection.
//
// A program serves the areas whose host packages it imports: adding an
// area to the server is its directories plus one import line (see
// docs/adding-an-area.md). Everything that lists areas (plugin start-up,
// "honmaster plugin <area>", "honmaster plugins", /healthz, the mounting
// of routes, the endpoint reference, [plugins.<area>] and [areas.<area>])
// derives from this registry and the contract's.
package area

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Module is one area as the host serves it.
type Module struct {
	// Area is the area's contract (sdk.RegisterArea), which names it.
	Area sdk.Area
	// Bundled is the plugin the host binary carries for the area: the
	// supervisor runs it by re-executing the binary as
	// "honmaster plugin <area>", unless [plugins.<area>] path names
	// another binary.
	Bundled func() *sdk.Plugin
	// Routes builds the area's routes for a server about to serve.
	Routes func(Env) ([]server.Route, error)
	// Commands are the area's operator commands (none: nil).
	Commands []Command
}

// Command is an operator command of an area, "honmaster <Name> [flags]".
// It runs where every operator command runs: in the server, through its
// admin socket, when one serves the data directory, else on the data
// directory itself. It takes flags only (no positional arguments); the
// host parses them, answers --help, and reports mistakes with exit
// status 2.
type Command struct {
	Name  string // the command words, starting with the area's name: "daily show"
	Usage string // the flags, for the help text: "--login L"
	// Flags returns a new request with its flags declared on fs, each
	// bound to one of its fields. The request travels to the server as
	// JSON: its fields are exported.
	Flags func(fs *flag.FlagSet) CommandRequest
}

// CommandRequest is one run of a Command.
type CommandRequest interface {
	// Validate checks the flags' values; its error is the operator's
	// mistake (exit status 2), worded for them.
	Validate() error
	// Run does the command and writes its output to out. An account's
	// change goes through actors.Apply, as in a request.
	Run(ctx context.Context, env CommandEnv, out io.Writer) error
}

// CommandEnv is what a command runs with.
type CommandEnv struct {
	Sys    *actors.System
	Config *config.Config
	Log    *slog.Logger
}

// Env is what an area's routes are built with.
type Env struct {
	Sys   *actors.System // the accounts' actors: every account change goes through actors.Apply
	Login *login.Service // sessions: Authenticate turns a cookie into an account
	// Config is the configuration in force at start; an area reads its
	// own [areas.<area>] section with config.Section.
	Config *config.Config
	Log    *slog.Logger
	// Plugin reaches the area's plugin (its supervisor, counted in the
	// metrics): the Caller of the area's decisions.
	Plugin sdk.Caller
	// Host is the serving program's own state, for the areas built into
	// it (host/cli hands its *App); other areas have no use for it.
	Host any
}

var registry = struct {
	sync.Mutex
	mods []Module
}{}

// Register adds an area. Call it from an init function of the area's host
// package. It panics when the module lacks its area, bundled plugin or
// routes, or registers an area twice: programming errors any test
// catches.
func Register(m Module) {
	registry.Lock()
	defer registry.Unlock()
	switch {
	case !m.Area.Known():
		panic(fmt.Sprintf("area: %q is not a registered contract (sdk.RegisterArea)", m.Area))
	case m.Bundled == nil || m.Routes == nil:
		panic(fmt.Sprintf("area: %s needs Bundled and Routes", m.Area))
	}
	for _, c := range m.Commands {
		if c.Flags == nil || (c.Name != string(m.Area) && !strings.HasPrefix(c.Name, string(m.Area)+" ")) {
			panic(fmt.Sprintf("area: %s: command %q must start with the area's name and have Flags", m.Area, c.Name))
		}
	}
	for _, o := range registry.mods {
		if o.Area == m.Area {
			panic(fmt.Sprintf("area: %s registered twice", m.Area))
		}
	}
	registry.mods = append(registry.mods, m)
	slices.SortFunc(registry.mods, func(a, b Module) int { return cmp.Compare(a.Area, b.Area) })
}

// Modules returns every registered area, sorted by name.
func Modules() []Module {
	registry.Lock()
	defer registry.Unlock()
	return slices.Clone(registry.mods)
}

// Lookup returns the registered area a.
func Lookup(a sdk.Area) (Module, bool) {
	registry.Lock()
	defer registry.Unlock()
	for _, m := range registry.mods {
		if m.Area == a {
			return m, true
		}
	}
	return Module{}, false
}

// Names returns the registered areas' names, sorted.
func Names() []string {
	mods := Modules()
	out := make([]string, len(mods))
	for i, m := range mods {
		out[i] = string(m.Area)
	}
	return out
}
