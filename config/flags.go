package config

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
)

// Flag names. FromArgs registers ConfigFlag; BindFlags registers the rest.
const (
	ConfigFlag   = "config"
	ListenFlag   = "listen"
	DataFlag     = "data"
	LogLevelFlag = "log-level"
	PluginFlag   = "plugin"
	// OperatorListenFlag moves the operator listener, as a second instance
	// on one machine needs to (operator.listen).
	OperatorListenFlag = "operator-listen"
)

// BindFlags registers on fs the flags that override single keys of c:
//
//	--listen ADDR        server.listen
//	--data DIR           storage.data_dir
//	--log-level LEVEL    server.log_level
//	--plugin AREA=PATH   plugins.<area>.path (repeatable; PATH "" = bundled)
//	--operator-listen ADDR  operator.listen
//
// Parsing fs writes into c at once, so bind to c after loading any file:
// flags beat the file, which beats the defaults. FromArgs does that ordering
// for you.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	bindFlags(fs, c, func(set func(*Config)) { set(c) })
}

// FromArgs builds the configuration from command-line arguments:
//
//  1. start from Default();
//  2. if --config FILE is given, load FILE over the defaults (see Load);
//  3. apply --listen, --operator-listen, --data, --log-level and --plugin on top, in the order
//     given, wherever they appear among the arguments;
//  4. Validate.
//
// Unknown keys of the file and invalid values are returned together, in one
// *FileError (when a file was given) holding every Problem.
//
// So flags beat the file and the file beats the defaults. FromArgs registers
// --config and the BindFlags flags on fs and parses args with it; fs.Args()
// holds the remaining arguments afterwards. Parse errors (including
// flag.ErrHelp) are returned as fs.Parse returns them.
func FromArgs(fs *flag.FlagSet, args []string) (*Config, error) {
	var path string
	fs.StringVar(&path, ConfigFlag, "", "TOML configuration `file` over the built-in defaults (flags override it)")
	// Flags are recorded while parsing and replayed once the file is loaded,
	// so their position relative to --config does not matter.
	var pending []func(*Config)
	bindFlags(fs, Default(), func(set func(*Config)) { pending = append(pending, set) })
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		// The flag package stops at the first argument that is not a
		// flag and leaves every flag after it unread: "--demo false"
		// turned the demo on and let a bad flag after it pass.
		return nil, fmt.Errorf("unexpected argument %q: only flags are taken (a boolean flag takes its value with =, as --demo=false)", fs.Arg(0))
	}
	c := Default()
	var fileErr error
	if path != "" {
		loaded, err := loadFile(path)
		if loaded == nil {
			return nil, err
		}
		c, fileErr = loaded, err
	}
	for _, set := range pending {
		set(c)
	}
	// Unknown keys and invalid values come out together, so one run lists
	// everything to fix.
	if err := c.Validate(); err != nil || fileErr != nil {
		if path != "" {
			var fe *FileError
			if errors.As(fileErr, &fe) {
				fileErr = fe.Err
			}
			// A value of the wrong type was left at its default; Validate
			// must not report that key a second time.
			reported := map[string]bool{}
			for _, p := range Problems(fileErr) {
				reported[p.Key] = true
			}
			errs := []error{fileErr}
			for _, p := range Problems(err) {
				if !reported[p.Key] {
					errs = append(errs, p)
				}
			}
			return nil, &FileError{Path: path, Err: errors.Join(errs...)}
		}
		return nil, err
	}
	return c, nil
}

// bindFlags registers the override flags. shown is the configuration whose
// values the help text shows as defaults; apply receives each parsed flag,
// once checked, as a change to make.
func bindFlags(fs *flag.FlagSet, shown *Config, apply func(func(*Config))) {
	fs.Var(&flagValue{
		show: shown.Server.Listen,
		set: func(v string) error {
			apply(func(c *Config) { c.Server.Listen = v })
			return nil
		},
	}, ListenFlag, "`address` to listen on, host:port (server.listen)")
	fs.Var(&flagValue{
		show: shown.Storage.DataDir,
		set: func(v string) error {
			apply(func(c *Config) { c.Storage.DataDir = v })
			return nil
		},
	}, DataFlag, "`directory` of the database and the generated secret (storage.data_dir)")
	fs.Var(&flagValue{
		show: shown.Operator.Listen,
		set: func(v string) error {
			apply(func(c *Config) { c.Operator.Listen = v })
			return nil
		},
	}, OperatorListenFlag, "`address` of the operator listener (metrics, console, API), host:port (operator.listen)")
	fs.Var(&flagValue{
		show: string(shown.Server.LogLevel),
		set: func(v string) error {
			if !slices.Contains([]LogLevel{LogDebug, LogInfo, LogWarn, LogError}, LogLevel(v)) {
				return errors.New("want debug, info, warn or error")
			}
			apply(func(c *Config) { c.Server.LogLevel = LogLevel(v) })
			return nil
		},
	}, LogLevelFlag, "log `level`: debug, info, warn or error (server.log_level)")
	fs.Var(&flagValue{
		set: func(v string) error {
			area, path, ok := strings.Cut(v, "=")
			if !ok || area == "" {
				return errors.New("want AREA=PATH, e.g. guides=/usr/lib/hon/guides-plugin")
			}
			if !slices.Contains(pluginAreas(), area) {
				return fmt.Errorf("unknown plugin area %q (known: %s)", area, strings.Join(pluginAreas(), ", "))
			}
			apply(func(c *Config) {
				if c.Plugins == nil {
					c.Plugins = make(map[string]Plugin)
				}
				p := c.Plugins[area]
				p.Path = path
				c.Plugins[area] = p
			})
			return nil
		},
	}, PluginFlag, "run plugin `AREA=PATH` for an area (plugins.<area>.path); repeatable, empty PATH = bundled")
}

// flagValue is a flag.Value that hands each value to set.
type flagValue struct {
	show string // the default shown in help
	set  func(string) error
}

func (f *flagValue) String() string {
	if f == nil {
		return ""
	}
	return f.show
}

func (f *flagValue) Set(v string) error { return f.set(v) }
