// Package config provides the typed configuration of the master server: its
// built-in defaults, loading a TOML file over them, command-line overrides,
// and validation that reports every problem at once.
//
// # Defaults and the reference file
//
// The defaults live in defaults.toml, embedded in the binary (DefaultTOML
// returns it). It is also the documented reference: every key appears there
// with its default and a comment. Default decodes it, so the server runs with
// no file at all.
//
// # Precedence
//
// Highest first:
//
//  1. flags: --listen, --operator-listen, --data, --log-level, --plugin AREA=PATH
//  2. the TOML file named by --config
//  3. the embedded defaults
//
// A file needs only the keys it changes. Unknown keys are an error naming
// the key (see ErrUnknownKey). Two collection rules: any [[patch]] table in a
// file replaces the whole default patch list, and a [plugins.<area>] table
// overrides only the keys it sets.
//
// # Use
//
// In a main:
//
//	fs := flag.NewFlagSet("host", flag.ContinueOnError)
//	cfg, err := config.FromArgs(fs, os.Args[1:])
//	if err != nil {
//		// err lists every problem, one per line, each naming its key:
//		//   login.cookie_lifetime: must be > 0
//		//   patch[0].manifest_checksum: must be 40 hexadecimal characters, got "abc"
//		log.Fatal(err)
//	}
//	srv.ReadTimeout = cfg.Server.ReadTimeout.Duration
//	entry, ok := cfg.Patch("linux", "x86_64") // the "lac" entry
//
// Step by step, which is what FromArgs does:
//
//	cfg, err := config.Load("master.toml") // defaults, then the file
//	cfg.BindFlags(fs)                      // flags write into cfg when parsed
//	err = fs.Parse(args)
//	err = cfg.Validate()
//
// Validate and Load return the problems joined with errors.Join; Problems
// takes them apart again, and errors.Is(err, ErrInvalid) or
// errors.Is(err, ErrUnknownKey) tells the two kinds apart.
package config
