package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/storage"
)

// Operator-facing wording. Errors of the packages below carry their
// package's name ("storage: not found"), which is right in logs and wrong
// in front of an operator: commands map them here, at the boundary, with
// errors.Is on the packages' sentinel errors, to sentences that say what
// happened and what to do.

// opError is an error worded for the operator; cause keeps the original
// for errors.Is and logs.
type opError struct {
	msg   string
	cause error
}

func (e *opError) Error() string { return e.msg }
func (e *opError) Unwrap() error { return e.cause }

// unknownLogin is the failure of a command naming a login no account has.
func unknownLogin(login string, cause error) error {
	return &opError{cause: cause, msg: fmt.Sprintf("no account has the login %q (logins are case-sensitive)", login)}
}

// explainCreate words the failures of account creation.
func explainCreate(err error, c accounts.Create) error {
	switch {
	case errors.Is(err, actors.ErrLoginTaken):
		return &opError{cause: err, msg: fmt.Sprintf("the login %q is already taken", c.Login)}
	case errors.Is(err, actors.ErrBadParent):
		return &opError{cause: err, msg: fmt.Sprintf("--parent %q must be the login of an existing main account (not a sub-account)", c.Parent)}
	case errors.Is(err, actors.ErrIDSpace):
		return &opError{cause: err, msg: "no account can be created: the account numbers are exhausted"}
	}
	if msg := accounts.RuleMessage(err); msg != "" {
		return &opError{cause: err, msg: msg}
	}
	return err
}

// explain returns the text of err for the operator: an opError's own
// sentence, or a sentence for the failures every command can meet.
func explain(err error) string {
	var oe *opError
	switch {
	case errors.As(err, &oe):
		return oe.msg
	case errors.Is(err, actors.ErrTimeout), errors.Is(err, actors.ErrExpired):
		return "the server did not answer in time; the command may or may not have been applied (check, then retry)"
	case errors.Is(err, actors.ErrStopped), errors.Is(err, storage.ErrClosed):
		return "the server is shutting down; retry once it runs again"
	case errors.Is(err, storage.ErrNewerSchema):
		return "the data directory was written by a newer version of " + Name + "; run that version"
	case errors.Is(err, storage.ErrCorrupt):
		return "the database holds a damaged record; restore the latest backup"
	}
	return err.Error()
}

// detail returns what err says after its sentinel's own text: the
// specifics ("balance would go negative") of a failure of kind sentinel.
// err must wrap sentinel as "sentinel: detail" (fmt.Errorf("%w: ...")).
func detail(err, sentinel error) string {
	if d, ok := strings.CutPrefix(err.Error(), sentinel.Error()+": "); ok {
		return d
	}
	return err.Error()
}

// unwrapPath returns the operating system's reason inside a path error
// ("no such file or directory"), or err's text.
func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + " " + pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// runVersion prints the module version and the VCS revision the binary
// was built from (as runtime/debug records them).
func runVersion(args []string, stdout io.Writer) error {
	fs := newFlags("version", stdout)
	if err := parse(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: %s version\n\nPrints the module version and the revision the binary was built from.\n", Name)
			return flag.ErrHelp
		}
		return err
	}
	fmt.Fprintln(stdout, versionString())
	return nil
}

// versionString is "honmaster VERSION (revision REV[, modified], TIME) GO".
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Name + " (no build information)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev, when, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		rev = "unknown"
	}
	out := fmt.Sprintf("%s %s (revision %s%s", Name, version, rev, modified)
	if when != "" {
		out += ", " + when
	}
	return out + ") " + info.GoVersion
}
