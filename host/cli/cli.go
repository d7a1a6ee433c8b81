package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/logflood"
)

// Name is what the program calls itself in usage text and messages. The
// release binary is built with this name (go build -o honmaster ./host);
// the module's directory "host" is only where its main package lives.
const Name = "honmaster"

// Main runs the host binary with args (without the program name) and returns
// the exit status: 0 on success (and for --help), 1 when the command failed,
// 2 for a command-line or configuration mistake.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = Serve(ctx, args[1:], stdout, stderr)
	case "loadtest":
		err = runLoadTest(ctx, args[1:], stdout, stderr)
	case "plugin":
		if len(args) > 1 && isHelp(args[1]) {
			fmt.Fprintf(stdout, "usage: %s plugin AREA\n\nServes the plugin of AREA bundled in this binary; the server starts it itself.\n", Name)
			return 0
		}
		if !PluginMode(args) {
			err = usageError("plugin AREA")
		}
	case "version":
		err = runVersion(args[1:], stdout)
	case "player":
		err = runPlayer(ctx, args[1:], stdout)
	case "storage":
		err = runStorage(ctx, args[1:], stdout, stderr)
	case "cluster":
		err = runCluster(ctx, args[1:], stdout, stderr)
	case "restore":
		err = runRestore(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		err = runHelp(ctx, args[1:], stdout)
	default:
		err = runOp(ctx, args, stdout, stderr)
	}
	// A command that parsed --help with parse() and returned: print its
	// flags here (commands that print their own help return flag.ErrHelp).
	var he *helpError
	if errors.As(err, &he) {
		fmt.Fprintf(stdout, "usage: %s %s [flags]\n\nflags:\n", Name, args[0])
		printFlags(stdout, he.fs)
	}
	return report(err, stderr)
}

// report prints err for the operator and returns the exit status.
func report(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0 // help was printed where it was asked for
	}
	if ps := config.Problems(err); len(ps) > 0 {
		printProblems(stderr, err, ps)
		return 2
	}
	fmt.Fprintf(stderr, "%s: %s\n", Name, explain(err))
	if errors.Is(err, errConfig) {
		return 2
	}
	if errors.Is(err, errUsage) {
		fmt.Fprintf(stderr, "Run '%s help' for the commands, '%s COMMAND --help' for one command's flags.\n", Name, Name)
		return 2
	}
	return 1
}

// printProblems lists every configuration problem at once, one per line,
// each naming its key.
func printProblems(w io.Writer, err error, ps []*config.Problem) {
	where := "the configuration"
	var fe *config.FileError
	if errors.As(err, &fe) {
		where = "configuration file " + fe.Path
	}
	noun := "problems"
	if len(ps) == 1 {
		noun = "problem"
	}
	fmt.Fprintf(w, "%s: %s has %d %s:\n", Name, where, len(ps), noun)
	for _, p := range ps {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s <command> [flags]\n\n", Name)
	fmt.Fprintln(w, "Server:")
	fmt.Fprintln(w, "  serve [--config FILE] [--listen ADDR] [--operator-listen ADDR] [--data DIR] [--log-level L] [--plugin AREA=PATH] [--demo]")
	fmt.Fprintln(w, "  loadtest [--target URL] [--operator URL] [--mix OP=W,...] [--accounts N] [--concurrency C | --rate R] [--requests N] [--duration D] [--json FILE] [--html FILE]")
	fmt.Fprintln(w, "  version")
	fmt.Fprintln(w, "  restore --from BACKUP --data DIR [--replace] (a backup into a stopped server's data directory)")
	fmt.Fprintln(w, "  storage copy --from DIR|URL --to DIR|URL [--overwrite] (move a stopped server's database between Pebble and PostgreSQL)")
	fmt.Fprintln(w, "  cluster certs --out DIR --nodes NAME=ADDRESS,... (the CA and node certificates of the cluster port)")
	fmt.Fprintf(w, "  player %s [--server URL] --login L --password P ... (the game client's part, to try a server)\n", playerWords())
	fmt.Fprintln(w, "\nOperator commands (every one takes [--data DIR] [--config FILE]):")
	for _, o := range allOps() {
		fmt.Fprintf(w, "  %s %s\n", o.name, o.usage)
	}
	fmt.Fprintln(w, "\nOperator commands talk to the server running on --data through its admin socket,")
	fmt.Fprintln(w, "or open the data directory themselves when no server runs there. The directory must")
	fmt.Fprintln(w, "exist: only serve (and account create --init) create one.")
	fmt.Fprintf(w, "\n'%s COMMAND --help' shows one command's flags.\n", Name)
}

// isHelp reports whether a is a request for help.
func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// wantsHelp reports whether the flags ask for help (before any "--").
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if isHelp(a) {
			return true
		}
	}
	return false
}

// runHelp prints the usage of the commands named by words (all commands
// when none).
func runHelp(ctx context.Context, words []string, stdout io.Writer) error {
	switch {
	case len(words) == 0:
		usage(stdout)
		return nil
	case words[0] == "serve" || words[0] == "loadtest" || words[0] == "version" || words[0] == "plugin" || words[0] == "player" || words[0] == "storage" ||
		words[0] == "cluster":
		Main(ctx, []string{words[0], "--help"}, stdout, io.Discard)
		return nil
	}
	return runOp(ctx, append(words, "--help"), stdout, io.Discard)
}

// globalFlags are the flags every operator command takes before its own:
// they choose the data directory and configuration, not the operation.
var globalFlags = map[string]bool{"--data": true, "-data": true, "--config": true, "-config": true}

// initFlags ask an operator command to create the data directory when it
// does not exist (only ops with mayInit accept them).
var initFlags = map[string]bool{"--init": true, "-init": true}

// splitArgs separates the command words, the global flags and the
// operation's own flags.
func splitArgs(args []string) (words, global, rest []string, init bool, err error) {
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], "-") {
		words = append(words, args[i])
		i++
	}
	for ; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		if initFlags[name] && !hasValue {
			init = true
			continue
		}
		if globalFlags[name] {
			if !hasValue {
				if i+1 >= len(args) {
					return nil, nil, nil, false, usageError("%s needs a value", name)
				}
				i++
				value = args[i]
			}
			global = append(global, name, value)
			continue
		}
		rest = append(rest, a)
	}
	return words, global, rest, init, nil
}

func runOp(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	words, global, rest, init, err := splitArgs(args)
	if err != nil {
		return err
	}
	o, extra := findOp(words)
	if o == nil {
		return groupHelp(words, wantsHelp(rest), stdout)
	}
	if wantsHelp(rest) {
		opHelp(o, stdout)
		return flag.ErrHelp
	}
	if init && !o.mayInit {
		return usageError("--init is only for account create and account import")
	}
	// The command line is parsed once, into the operation's typed request,
	// and checked before anything is opened.
	req, err := o.parse(append(extra, rest...))
	if err != nil {
		return err
	}
	fs := newFlags(o.name, stderr)
	cfg, err := config.FromArgs(fs, global)
	if err != nil {
		return configError(err)
	}
	err = runRemote(cfg.Storage.DataDir, req, stdout)
	if !errors.Is(err, errNoServer) {
		return err
	}
	if !init {
		if err := checkDataDir(cfg.Storage.DataDir, cfg.Storage.Backend == config.BackendPostgres); err != nil {
			return err
		}
	}
	// Offline commands open the directory themselves: their output is the
	// command's, so the runtime's start-up chatter is left out.
	log := newLogger(cfg, stderr, slog.LevelWarn)
	app, err := OpenApp(cfg, log)
	if err != nil {
		return openError(cfg.Storage.DataDir, err)
	}
	defer app.Close()
	err = req.Run(ctx, app, stdout)
	// No server's log to keep the audit trail: a command that changed
	// something says its line on stderr (a read, or a failure, which says
	// its own sentence there, adds none).
	if err == nil && !readOnly(req) {
		auditCommand(newLogger(cfg, stderr, slog.LevelInfo), req, "")
	}
	return err
}

// readOnly reports whether req only reads (account show, reports list
// ...): an offline run of it writes no line of the audit trail.
func readOnly(req Request) bool {
	switch r := req.(type) {
	case *ShowAccountRequest, *ByAddressRequest, *PluginsRequest, *BackupRequest:
		return true
	case *RoleRequest:
		return r.Operator == nil
	case *areaRequest:
		// Areas name their reading commands so ("<area> list", "<area> show").
		return strings.HasSuffix(r.name, " list") || strings.HasSuffix(r.name, " show")
	}
	return false
}

// errNoDataDir: an operator command was pointed at a directory that does
// not exist or holds no database; nothing was created.
var errNoDataDir = errors.New("no data directory")

// checkDataDir refuses a data directory that does not exist or holds no
// database (unless the database is elsewhere: noDB), so a mistyped --data
// never silently creates an empty one.
func checkDataDir(dir string, noDB bool) error {
	return checkDataDirWith(dir, noDB, os.Stat, os.ReadDir)
}

// checkDataDirWith is checkDataDir reading the filesystem through stat and
// readDir. A directory the operator may not read is said to be so (a
// non-owner was told it held no database: the listing's error was lost).
func checkDataDirWith(dir string, noDB bool, stat func(string) (os.FileInfo, error), readDir func(string) ([]os.DirEntry, error)) error {
	info, err := stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &opError{cause: errNoDataDir, msg: fmt.Sprintf("data directory %s does not exist (check --data; "+
			"'%s serve --data DIR' or '%s account create --init --data DIR ...' creates one)", dir, Name, Name)}
	case errors.Is(err, os.ErrPermission):
		return permissionDenied(dir, err)
	case err != nil:
		return &opError{cause: err, msg: fmt.Sprintf("cannot read data directory %s: %v", dir, unwrapPath(err))}
	case !info.IsDir():
		return &opError{cause: errNoDataDir, msg: fmt.Sprintf("data directory %s is not a directory", dir)}
	}
	entries, err := readDir(dir)
	switch {
	case errors.Is(err, os.ErrPermission):
		return permissionDenied(dir, err)
	case err != nil:
		return &opError{cause: err, msg: fmt.Sprintf("cannot read data directory %s: %v", dir, unwrapPath(err))}
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), dbDirName) {
			return nil
		}
	}
	if noDB {
		return nil
	}
	return &opError{cause: errNoDataDir, msg: fmt.Sprintf("%s is not a data directory: it holds no database (check --data)", dir)}
}

// groupHelp answers command words that name no operator command: the
// subcommands of a group ("account"), or an unknown command.
func groupHelp(words []string, help bool, stdout io.Writer) error {
	prefix := strings.Join(words, " ")
	var group []*op
	all := allOps()
	for i := range all {
		if prefix != "" && strings.HasPrefix(all[i].name, prefix+" ") {
			group = append(group, &all[i])
		}
	}
	if len(group) == 0 {
		if prefix == "" {
			return usageError("no command given")
		}
		return usageError("unknown command %q", prefix)
	}
	if !help {
		subs := make([]string, len(group))
		for i, o := range group {
			subs[i] = strings.TrimPrefix(o.name, prefix+" ")
		}
		return usageError("%s needs a subcommand: %s", prefix, strings.Join(subs, ", "))
	}
	fmt.Fprintf(stdout, "usage: %s %s <subcommand> [--data DIR] [--config FILE] [flags]\n\n", Name, prefix)
	for _, o := range group {
		fmt.Fprintf(stdout, "  %s %s\n", o.name, o.usage)
	}
	fmt.Fprintf(stdout, "\n'%s %s <subcommand> --help' shows its flags.\n", Name, prefix)
	return flag.ErrHelp
}

// opHelp prints an operator command's usage and flags: the flags its
// parse function defines (it answers --help from them).
func opHelp(o *op, w io.Writer) {
	fmt.Fprintf(w, "usage: %s %s [--data DIR] [--config FILE] %s\n", Name, o.name, o.usage)
	var he *helpError
	_, err := o.parse([]string{"--help"})
	errors.As(err, &he)
	fmt.Fprintln(w, "\nflags:")
	fmt.Fprintln(w, "  --data DIR\n    \tdata directory (storage.data_dir); the server's admin socket is in it")
	fmt.Fprintln(w, "  --config FILE\n    \tTOML configuration file over the built-in defaults")
	if o.mayInit {
		fmt.Fprintln(w, "  --init\n    \tcreate the data directory if it does not exist")
	}
	if he != nil {
		printFlags(w, he.fs)
	}
}

// errConfig marks a configuration mistake (exit status 2, without the
// pointer to the usage text).
var errConfig = errors.New("configuration")

// configError words a failure of config.FromArgs: problems are listed by
// Main (every one at once); an unreadable file is said so; anything else is
// a flag mistake.
func configError(err error) error {
	var fe *config.FileError
	switch {
	case len(config.Problems(err)) > 0:
		return err
	case errors.As(err, &fe):
		return &opError{cause: errors.Join(errConfig, err), msg: "cannot read the configuration file: " + unwrapPath(fe.Err)}
	}
	return usageError("%w", &opError{cause: err, msg: flagMessage(err.Error())})
}

// printFlags lists the flags of fs as flag.PrintDefaults does, but spelt
// with two dashes like the rest of the usage text (both spellings work).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "[]" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// newLogger builds the logger of cfg; its level is at least floor.
// Repeated warnings and errors are limited per kind
// (server.log_repeat_limit per server.log_repeat_window; package logflood):
// every part of the server, the storage engine and the plugins log through
// it.
func newLogger(cfg *config.Config, w io.Writer, floor slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: max(cfg.Server.LogLevel.Slog(), floor)}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.Server.LogFormat == config.LogJSON {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(logflood.NewHandler(h, logflood.Options{Limit: cfg.Server.LogRepeatLimit, Window: cfg.Server.LogRepeatWindow.Duration}))
}
