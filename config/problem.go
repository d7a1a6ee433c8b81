package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// Error kinds. Match them with errors.Is; every Problem is one of them.
var (
	// ErrUnknownKey marks a key in a file that the configuration does not have.
	ErrUnknownKey = errors.New("config: unknown key")
	// ErrInvalid marks a value that Validate rejects.
	ErrInvalid = errors.New("config: invalid value")
)

// Problem is one thing wrong with a configuration, tied to the dotted TOML
// key it is about ("login.cookie_lifetime", "patch[1].manifest_checksum",
// "plugins.guides.env[0]").
type Problem struct {
	Key  string
	Msg  string
	Kind error // ErrUnknownKey or ErrInvalid
}

func (p *Problem) Error() string { return p.Key + ": " + p.Msg }

// Is reports whether target is p's kind.
func (p *Problem) Is(target error) bool { return target == p.Kind }

// Problems returns every Problem inside err, which may be a single Problem,
// a wrapped one, or several joined with errors.Join (as Load and Validate
// return them). It returns nil when err holds none.
func Problems(err error) []*Problem {
	var out []*Problem
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *Problem:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}

// problems collects Problems; Validate fills one.
type problems []error

func (ps *problems) add(key, format string, args ...any) {
	*ps = append(*ps, &Problem{Key: key, Msg: fmt.Sprintf(format, args...), Kind: ErrInvalid})
}

func (ps problems) err() error { return errors.Join(ps...) }

// retiredKeys are settings earlier versions had, with the reason each went.
// A file that still sets one is refused like any unknown key (a silently
// ignored limit is worse than a clear refusal), but with a sentence that says
// what became of it.
var retiredKeys = map[string]string{
	"limits.pre_auth_per_login": "pending logins are kept per login and client address, so no per-login cap " +
		"applies (limits.pre_auth_per_address bounds each address; SECURITY.md)",
}

// keyErrors reports the keys of a decoded document that the configuration
// does not have. The decoder matches keys without regard to case, so a key
// with upper-case letters is reported too: it would silently compete with
// the lower-case spelling.
func keyErrors(md toml.MetaData) error {
	var errs []error
	unknown := make(map[string]bool)
	for _, k := range md.Undecoded() {
		if len(k) > 1 && k[0] == "areas" {
			// Decoded into the area's own type and checked there
			// (overlaySections); the decoder counts keys it put in an
			// interface value as undecoded.
			continue
		}
		unknown[k.String()] = true
		msg := "unknown key"
		if why, ok := retiredKeys[k.String()]; ok {
			msg = "this setting was removed: " + why + "; delete the line"
		}
		errs = append(errs, &Problem{Key: k.String(), Msg: msg, Kind: ErrUnknownKey})
	}
	for _, k := range md.Keys() {
		last := k[len(k)-1]
		if lower := strings.ToLower(last); last != lower && !unknown[k.String()] {
			want := append(append(toml.Key{}, k[:len(k)-1]...), lower)
			errs = append(errs, &Problem{Key: k.String(), Kind: ErrUnknownKey,
				Msg: fmt.Sprintf("unknown key (keys are lower case: %s)", want)})
		}
	}
	return errors.Join(errs...)
}
