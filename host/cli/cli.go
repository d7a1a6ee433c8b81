package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/honmaster/masterserver/config"
)

// Main runs the host binary with args (without the program name) and returns
// the exit status.
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
		if !PluginMode(args) {
			err = fmt.Errorf("%w: plugin AREA", errUsage)
		}
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	default:
		err = runOp(ctx, args, stdout, stderr)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "host: %v\n", err)
		usage(stderr)
		return 2
	default:
		fmt.Fprintf(stderr, "host: %v\n", err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: host <command> [flags]")
	fmt.Fprintln(w, "  serve [--config FILE] [--listen ADDR] [--data DIR] [--log-level L] [--plugin AREA=PATH] [--demo]")
	fmt.Fprintln(w, "  loadtest [--target URL] [--operator URL] [--mix OP=W,...] [--accounts N] [--concurrency C | --rate R] [--requests N] [--duration D] [--json FILE] [--html FILE]")
	for _, o := range ops {
		fmt.Fprintf(w, "  %s [--data DIR] %s\n", o.name, o.usage)
	}
	fmt.Fprintln(w, "Operator commands talk to the server running on --data through its admin socket,")
	fmt.Fprintln(w, "or open the data directory themselves when no server runs there.")
}

// globalFlags are the flags every operator command takes before its own:
// they choose the data directory and configuration, not the operation.
var globalFlags = map[string]bool{"--data": true, "-data": true, "--config": true, "-config": true}

// pathFlags are operation flags naming paths: they are made absolute before
// the command may travel to a server with another working directory.
var pathFlags = map[string]bool{"--to": true, "-to": true}

// splitArgs separates the command words, the global flags and the
// operation's own flags.
func splitArgs(args []string) (words, global, rest []string, err error) {
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], "-") {
		words = append(words, args[i])
		i++
	}
	for ; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		if globalFlags[name] || pathFlags[name] {
			if !hasValue {
				if i+1 >= len(args) {
					return nil, nil, nil, fmt.Errorf("%w: %s needs a value", errUsage, name)
				}
				i++
				value = args[i]
			}
			if globalFlags[name] {
				global = append(global, name, value)
				continue
			}
			abs, err := filepath.Abs(value)
			if err != nil {
				return nil, nil, nil, err
			}
			rest = append(rest, name, abs)
			continue
		}
		rest = append(rest, a)
	}
	return words, global, rest, nil
}

func runOp(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	words, global, rest, err := splitArgs(args)
	if err != nil {
		return err
	}
	o, extra := findOp(words)
	if o == nil {
		return fmt.Errorf("%w: unknown command %q", errUsage, strings.Join(words, " "))
	}
	fs := newFlags(o.name, stderr)
	cfg, err := config.FromArgs(fs, global)
	if err != nil {
		return err
	}
	opArgs := append(extra, rest...)
	if o.pathArgs {
		for i, a := range opArgs {
			if !strings.HasPrefix(a, "-") {
				abs, err := filepath.Abs(a)
				if err != nil {
					return err
				}
				opArgs[i] = abs
			}
		}
	}
	err = runRemote(cfg.Storage.DataDir, append(strings.Fields(o.name), opArgs...), stdout)
	if !errors.Is(err, errNoServer) {
		return err
	}
	log := newLogger(cfg, stderr)
	app, err := OpenApp(cfg, log)
	if err != nil {
		return err
	}
	defer app.Close()
	return o.run(ctx, app, opArgs, stdout)
}

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.Server.LogLevel.Slog()}
	if cfg.Server.LogFormat == config.LogJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
