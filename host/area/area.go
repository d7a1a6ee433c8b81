// Package area is the host's registry of feature areas served by a plugin.
//
// An area is declared in two places, both its own:
//
//   - its contract (a package that calls sdk.RegisterArea and
//     sdk.NewDecision beside its types and .proto), which the host and
//     the plugin share;
//   - its host side, a package that calls Register from an init function
//     with the plugin the host binary bundles, how the area starts (Start:
//     its routes, and what else it serves while the server runs, Live: web
//     console pages and dashboard figures, operator API routes, a reload
//     hook, a cluster catch-up, sections of the console's account page and
//     what it holds against an account), its operator commands, its
//     verbs of "honmaster player", its work when an account is deleted,
//     its demo data, and,
//     when the area has settings of its own, config.RegisterSection (or,
//     for the built-in areas' top-level tables, config.RegisterTable).
//
// A program serves the areas whose host packages it imports: adding an
// area to the server is its directories plus one import line (see
// docs/adding-an-area.md; host/cli/builtin.go lists the built-in areas).
// Everything that lists areas (plugin start-up, "honmaster plugin <area>",
// "honmaster plugins", /healthz, the mounting of routes, the endpoint
// reference, the console's navigation, the operator commands, the live
// settings of a reload, [plugins.<area>] and the areas' tables, the
// account deletion's hooks, the console's account page, the operator
// API's area routes) derives from this registry and the contract's: the
// host's shared packages name no area (noarea_test.go).
package area

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// Module is one area as the host serves it.
type Module struct {
	// Area is the area's contract (sdk.RegisterArea), which names it; an
	// area the host serves alone (Bundled nil) has no contract and is
	// named by its package (sdk.Area("cloud")).
	Area sdk.Area
	// Bundled is the plugin the host binary carries for the area: the
	// supervisor runs it by re-executing the binary as
	// "honmaster plugin <area>", unless [plugins.<area>] path names
	// another binary. nil: the host serves the area alone, without a
	// plugin (no supervisor, no [plugins.<area>], not in "honmaster
	// plugins"; Env.Plugin is nil).
	Bundled func() *sdk.Plugin
	// Start builds the area for a server about to serve: its routes and
	// what else it serves while the server runs (Live).
	Start func(Env) (*Live, error)
	// Commands are the area's operator commands (none: nil).
	Commands []Command
	// PlayerCommands are the area's verbs of "honmaster player": the game
	// client's part of the area, run where the operator typed them,
	// against a running server's game listener (none: nil).
	PlayerCommands []PlayerCommand
	// OnDelete is the area's work when an account is deleted, in the
	// deleting account's transaction (actors.DeleteHook; nil: none). The
	// host registers it on every actor system it opens, a server's and an
	// offline command's alike.
	OnDelete actors.DeleteHook
	// Demo stores the area's demo data for "serve --demo" (nil: none). It
	// runs at every start with --demo, before the plugins start, and
	// stores only what is missing.
	Demo func(ctx context.Context, env CommandEnv) error
	// LiveSettings are the settings of the area a configuration reload
	// puts in force at once (as config.Changed names them, or a prefix
	// ending in "."), through Live.Reload; every other setting that
	// changed keeps its running value until a restart.
	LiveSettings []string
}

// Live is what an area serves while the server runs. Every field but
// Routes may be left empty.
type Live struct {
	Routes []server.Route
	// Pages are the area's pages in the web console, Cards its figures on
	// the console's dashboard.
	Pages []consolepage.Page
	Cards []consolepage.Card
	// Reload puts the area's LiveSettings of a reloaded configuration in
	// force (it is called on every reload that changed any setting).
	Reload func(*config.Config)
	// Sync runs in cluster mode every cluster.sync_interval × 10, to catch
	// up with what other nodes changed that the area keeps in memory; its
	// error is logged.
	Sync func() error
	// API are the area's routes on the operator API (/api/...), by
	// pattern ("GET /api/guides"): each answers JSON with the handler's
	// value, behind the API's token check and limits.
	API map[string]APIHandler
	// APIFields says what each route of API takes, by the same pattern
	// (a route without an entry takes no field): the host refuses a
	// request that names another field, or one twice, before the route
	// runs, and its line of the audit trail names the fields given.
	APIFields map[string]APIFields
	// Value is what the area's commands run with while the server serves
	// (CommandEnv.Live): its in-memory state, such as counts.
	Value any
	// AccountPanels are the area's sections of the console's account
	// page, rendered by the console (its sign-in, CSRF check and
	// html/template escaping) after the host's own.
	AccountPanels []consolepage.AccountPanel
	// Suspended reports whether the area holds account a suspended at
	// now (nil: it never does): the console shows the account so,
	// refuses its operator's sign-in and ends its console sessions.
	Suspended func(db *storage.DB, a *storage.Account, now time.Time) (bool, error)
	// SessionFields are the fields of the session record the area's login
	// hook (login.Service.SetSessionHook) would set for account a at now
	// (nil: none), for the console's preview of the next login's record.
	SessionFields func(db *storage.DB, a *storage.Account, now time.Time) (login.RecordFields, error)
}

// APIHandler answers an operator API request: its value is sent as JSON;
// its error as the API's error reply, worded as a command's (an
// OperatorError's message as it is).
type APIHandler func(ctx context.Context, r *http.Request) (any, error)

// APIFields are the fields an operator API route takes: Names, given in
// the form (the query, and a POST's application/x-www-form-urlencoded
// body), or, when JSON is set, as the names of the JSON object that is the
// request's body (no field in the query then). The host refuses with 400
// and a sentence, before the route runs, a request that names any other
// field (names are exact: "Login" is not "login"), that gives a field more
// than once (unless it is one of Repeatable, a form's list), or whose body
// is not what the route takes. So the route reads what was checked, and
// the line of the audit trail (the field "login" as the account, the
// others as the change, secrets redacted) shows what the route was given.
type APIFields struct {
	Names      []string
	Repeatable []string
	JSON       bool
}

// Command is an operator command of an area, "honmaster <Name> [flags]".
// It runs where every operator command runs: in the server, through its
// admin socket, when one serves the data directory, else on the data
// directory itself. It takes flags only (no positional arguments); the
// host parses them, answers --help, and reports mistakes with exit
// status 2. A request that takes positional arguments (a file, an id)
// implements Positional.
type Command struct {
	Name  string // the command words, usually starting with the area's name: "daily show"
	Usage string // the flags, for the help text: "--login L"
	// Flags returns a new request with its flags declared on fs, each
	// bound to one of its fields. The request travels to the server as
	// JSON: its fields are exported.
	Flags func(fs *flag.FlagSet) CommandRequest
}

// PlayerCommand is "honmaster player <Verb> [--server URL] --login L
// --password P [flags]": the game client's part of an area, to try a
// server without the game. The host parses the flags (its own --server,
// --login and --password, and those Flags declares), answers --help,
// reports mistakes with exit status 2, and logs in as the game client
// does before Run.
type PlayerCommand struct {
	Verb  string // "report"
	Usage string // the verb's own flags, for the help text: "--reportee NICKNAME [--reason R]"
	// Help is the verb's paragraph of "honmaster player --help", each
	// line ending in a newline ("report logs in and files a report ...").
	Help string
	// Flags returns a new request with its flags declared on fs.
	Flags func(fs *flag.FlagSet) PlayerRequest
}

// PlayerRequest is one run of a PlayerCommand.
type PlayerRequest interface {
	// Validate checks the flags' values; its error is the operator's
	// mistake (exit status 2), worded for them.
	Validate() error
	// Run does the verb for the player signed in as s on the game
	// listener c serves, and writes its outcome to out. Word its
	// failures for the operator (OperatorError).
	Run(ctx context.Context, c *client.Client, s *client.Session, out io.Writer) error
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

// Positional is a CommandRequest that takes positional arguments (those
// left after the flags, which may also come between them). Args runs where
// the operator typed the command, before the request travels to the
// server: it turns a file name into an absolute path there.
type Positional interface {
	Args(args []string) error
}

// CommandEnv is what a command runs with.
type CommandEnv struct {
	Sys    *actors.System
	Config *config.Config
	Log    *slog.Logger
	// Live is the area's Live.Value while the server serves; nil when the
	// command runs on a stopped server's data directory.
	Live any
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
	// Metrics is the server's metrics registry, where the area registers
	// its own (under the honmaster_ namespace, named after the area).
	Metrics prometheus.Registerer
	// Cluster is true in cluster mode (Live.Sync then runs).
	Cluster bool
}

var registry = struct {
	sync.Mutex
	mods []Module
}{}

// Register adds an area. Call it from an init function of the area's host
// package. It panics when the module lacks its area, bundled plugin or
// routes, or registers an area twice: programming errors any test
// catches. (A command whose name the host's own commands take is refused
// when the host builds its command table; a test of host/cli catches it.)
func Register(m Module) {
	registry.Lock()
	defer registry.Unlock()
	switch {
	case m.Bundled != nil && !m.Area.Known():
		panic(fmt.Sprintf("area: %q is not a registered contract (sdk.RegisterArea)", m.Area))
	case m.Bundled == nil && (m.Area.Known() || !validName(string(m.Area))):
		panic(fmt.Sprintf("area: %q: an area with a contract needs Bundled, one without a name of a-z", m.Area))
	case m.Start == nil:
		panic(fmt.Sprintf("area: %s needs Start", m.Area))
	}
	for _, c := range m.Commands {
		if c.Flags == nil || strings.TrimSpace(c.Name) == "" {
			panic(fmt.Sprintf("area: %s: command %q must have a name and Flags", m.Area, c.Name))
		}
		for _, o := range registry.mods {
			for _, oc := range o.Commands {
				if oc.Name == c.Name {
					panic(fmt.Sprintf("area: %s: command %q is %s's already", m.Area, c.Name, o.Area))
				}
			}
		}
	}
	for _, c := range m.PlayerCommands {
		if c.Flags == nil || c.Verb == "" || strings.ContainsAny(c.Verb, " \t") || c.Verb == "login" {
			panic(fmt.Sprintf("area: %s: player command %q must have a one-word verb other than login, and Flags", m.Area, c.Verb))
		}
		for _, o := range registry.mods {
			for _, oc := range o.PlayerCommands {
				if oc.Verb == c.Verb {
					panic(fmt.Sprintf("area: %s: player command %q is %s's already", m.Area, c.Verb, o.Area))
				}
			}
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

// PluginModules returns the registered areas served by a plugin (those
// with Bundled), sorted by name.
func PluginModules() []Module {
	var out []Module
	for _, m := range Modules() {
		if m.Bundled != nil {
			out = append(out, m)
		}
	}
	return out
}

// PluginNames returns the names of the areas served by a plugin, sorted.
func PluginNames() []string {
	var out []string
	for _, m := range PluginModules() {
		out = append(out, string(m.Area))
	}
	return out
}

// validName reports whether s is a name of lower-case letters (a-z), as
// an area without a contract must have.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
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

// OperatorError is a command's failure worded for the operator: the host
// shows Msg as it is (exit status 1), and keeps Cause for errors.Is and
// the log. Any other error of a command is shown with a generic lead-in
// ("the command failed: ...") or, for the failures every command can meet
// (a full disk, a timeout ...), the host's own sentence.
type OperatorError struct {
	Msg   string
	Cause error
}

func (e *OperatorError) Error() string { return e.Msg }
func (e *OperatorError) Unwrap() error { return e.Cause }

// FileArg is the FILE argument of an import command: embed it in the
// command's request. Args (area.Positional) makes the file name absolute
// where the operator typed it, since the request may run in a server with
// another working directory.
type FileArg struct {
	File string `json:"file"`
}

// Args takes the one FILE argument.
func (f *FileArg) Args(args []string) error {
	if len(args) != 1 {
		return errors.New("give one file")
	}
	abs, err := filepath.Abs(args[0])
	if err != nil {
		return err
	}
	f.File = abs
	return nil
}

// Check refuses a missing or relative file (a request that came over the
// admin socket is checked again); cmd names the command in the message.
func (f *FileArg) Check(cmd string) error {
	switch {
	case f.File == "":
		return fmt.Errorf("%s FILE: the file is missing", cmd)
	case !filepath.IsAbs(f.File):
		return fmt.Errorf("%s: %s must be an absolute path", cmd, f.File)
	}
	return nil
}

// Open opens the file; its failure is worded for the operator ("cannot
// read the <what>: open /x: no such file or directory").
func (f *FileArg) Open(what string) (*os.File, error) {
	file, err := os.Open(f.File)
	if err != nil {
		return nil, &OperatorError{Cause: err, Msg: fmt.Sprintf("cannot read the %s: %v", what, err)}
	}
	return file, nil
}
