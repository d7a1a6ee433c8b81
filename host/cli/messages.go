package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/internal/opmsg"
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
// sentence, or a sentence for the failures every command can meet. A
// failure nothing here words is shown with the internal package names
// taken out (they stay in the logs).
func explain(err error) string {
	return stripInternal(explainRaw(err))
}

func explainRaw(err error) string {
	var oe *opError
	var ae *hostarea.OperatorError
	switch {
	case errors.Is(err, errUsage):
		// A command-line mistake: its own words (Main adds where to get
		// help). A mistake inside is already worded.
		if errors.As(err, &oe) {
			return oe.msg
		}
		return specifics(err, errUsage)
	case errors.As(err, &oe):
		return oe.msg
	case errors.As(err, &ae):
		return ae.Msg
	case errors.Is(err, actors.ErrTimeout):
		return "the server did not answer in time; the command may or may not have been applied (check, then retry)"
	case errors.Is(err, actors.ErrExpired):
		// Refused before it ran, unlike a timeout: nothing was written.
		return "the server was too busy to get to the command in time; nothing was changed, try again"
	case errors.Is(err, actors.ErrStopped), errors.Is(err, storage.ErrClosed):
		return "the server is shutting down; retry once it runs again"
	case errors.Is(err, storage.ErrNewerSchema):
		return "the database (data directory or PostgreSQL) was written by a newer version of " + Name + "; run that version"
	case errors.Is(err, storage.ErrCorrupt):
		return "the database holds a damaged record; restore the latest backup"
	case errors.Is(err, storage.ErrDiskFull):
		return "the disk holding the data directory is nearly full, so writes are refused and nothing changed; free some space (see storage health in the logs)"
	case errors.Is(err, storage.ErrUnavailable):
		return "the PostgreSQL database cannot be reached right now, so nothing changed; retry in a moment (see the server's log)"
	case errors.Is(err, storage.ErrPostgresLockLost):
		return "the server lost its lock on the PostgreSQL database, so writes are refused and nothing changed; another server may be using the database: restart this one"
	case errors.Is(err, storage.ErrCommitUncertain):
		return "the database did not confirm the write (a disk failure, or the connection to PostgreSQL was lost), so it may or may not have been stored; check, then retry (see the server's log)"
	case errors.Is(err, storage.ErrEngineFailed):
		return "the storage engine failed; restart the server (see its log)"
	case errors.Is(err, actors.ErrNoAccount), errors.Is(err, storage.ErrNotFound):
		return "no such account or record"
	case opmsg.InvalidUTF8(err):
		return opmsg.NotUTF8
	}
	if msg, ok := netFailure(err, "", ""); ok {
		return msg
	}
	return "the command failed: " + err.Error()
}

// netFailure words an HTTP request that got no answer (err holds the
// *url.Error of Go's HTTP client: the connection was refused or timed
// out, the host name is unknown ...) for the operator, without the
// request's method and path or the network package's words: what it
// tried to reach ("the server"; "" names only the address) and the flag
// that gave the address ("--server"; "" when none did). ok is false when
// err is not such a failure.
func netFailure(err error, what, flag string) (msg string, ok bool) {
	ue := innermostURLError(err)
	if ue == nil {
		return "", false
	}
	where := ue.URL
	if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
		where = u.Scheme + "://" + u.Host // the address, not the request's path
	}
	if what != "" {
		where = what + " at " + where
	}
	check := "is it running, and is its address right?"
	if flag != "" {
		check = "is it running, and is " + flag + " right?"
	}
	var dns *net.DNSError
	var oe *net.OpError
	reach := func(reason string) (string, bool) {
		return fmt.Sprintf("could not reach %s (%s): %s", where, reason, check), true
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Sprintf("interrupted before %s answered", where), true
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Sprintf("could not reach %s (no such host): is %s right?", where, orAddress(flag)), true
	case errors.As(err, &dns):
		return fmt.Sprintf("could not reach %s (its host name could not be looked up: %s): is %s right, and is the name "+
			"server reachable?", where, dns.Err, orAddress(flag)), true
	case errors.Is(err, syscall.ECONNREFUSED):
		return reach("connection refused")
	case errors.Is(err, syscall.ENETUNREACH):
		return reach("network unreachable")
	case errors.Is(err, syscall.EHOSTUNREACH):
		return reach("no route to host")
	case errors.As(err, &oe) && oe.Op == "dial" && oe.Timeout():
		return reach("the connection timed out")
	case errors.As(err, &oe) && oe.Op == "dial":
		return reach(innermostText(err))
	case ue.Timeout():
		return fmt.Sprintf("%s did not answer in time (a request it received may still have been applied): %s", where, check), true
	}
	return fmt.Sprintf("no answer from %s (%s): %s", where, innermostText(err), check), true
}

// orAddress is flag, or "its address" when no flag gave it.
func orAddress(flag string) string {
	if flag == "" {
		return "its address"
	}
	return flag
}

// innermostURLError is the last *url.Error of err's chain (one request's
// failure wrapped by another names the request that failed), nil when
// there is none.
func innermostURLError(err error) *url.Error {
	var last *url.Error
	for e := err; e != nil; {
		var ue *url.Error
		if !errors.As(e, &ue) {
			break
		}
		last, e = ue, ue.Err
	}
	return last
}

// innermostText is the text of the error at the bottom of err's chain
// (the operating system's "connection reset by peer", not the dial's
// addresses around it), without the "http: " or "tls: " of Go's packages.
func innermostText(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			break
		}
		err = next
	}
	text := err.Error()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		text = "the connection was closed before an answer"
	}
	for _, p := range []string{"net/http: ", "http: ", "tls: "} {
		text = strings.TrimPrefix(text, p)
	}
	return text
}

// stripInternal removes internal package prefixes from text (opmsg.Strip).
func stripInternal(text string) string { return opmsg.Strip(text) }

// specifics returns the specifics ("gold balance would go negative ...")
// of err, a failure of kind, as its producer typed them (a detail.Error:
// found by type, however err was wrapped since). A failure of kind made
// without them, which none should be, is shown whole, its internal package
// names taken out.
func specifics(err, kind error) string {
	if d, ok := detail.Of(err, kind); ok {
		return d
	}
	return stripInternal(err.Error())
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

// openError words a failure to open the data directory offline.
func openError(dir string, err error) error {
	var oe *opError
	switch {
	case errors.As(err, &oe):
		return err // worded already (openPostgres)
	case errors.Is(err, storage.ErrNewerSchema), errors.Is(err, storage.ErrCorrupt):
		return err // explain words these
	case errors.Is(err, os.ErrPermission):
		return permissionDenied(dir, err)
	case isLocked(err):
		return &opError{cause: err, msg: fmt.Sprintf("the database in %s is in use by another process (a server running, starting or "+
			"stopping on it, or another command): stop it, or retry in a moment", dir)}
	}
	return &opError{cause: err, msg: fmt.Sprintf("cannot open the database in %s: %s", dir, stripInternal(unwrapPath(err)))}
}

// permissionDenied words a data directory (or a file in it) the operator
// may not read or write: EACCES and EPERM, which os.ErrPermission matches.
func permissionDenied(dir string, err error) error {
	return &opError{cause: err, msg: fmt.Sprintf("cannot open the data directory %s: permission denied "+
		"(run the command as the user the server runs as, the owner of the directory)", dir)}
}

// isLocked reports whether err is the database's lock held by another
// process.
func isLocked(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK)
}

// listenError words a listener that cannot start: which setting, which
// address, and the usual cause.
func listenError(setting, addr string, err error) error {
	msg := fmt.Sprintf("cannot listen on %s (%s): %s", addr, setting, stripInternal(err.Error()))
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		msg = fmt.Sprintf("cannot listen on %s (%s): the address is in use (another server, or another copy of this one, runs there); "+
			"stop it or choose another address", addr, setting)
	case errors.Is(err, syscall.EACCES):
		msg = fmt.Sprintf("cannot listen on %s (%s): permission denied (ports below 1024 need privileges); choose a port above 1023", addr, setting)
	}
	return &opError{cause: err, msg: msg}
}
