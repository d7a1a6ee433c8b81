package cloudcfg

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error this package returns about its input wraps
// exactly one of them, so the host can choose the message it sends the client with
// errors.Is; the text after the sentinel is for logs only.
var (
	// ErrNotZip means the upload is empty or is not a zip archive.
	ErrNotZip = errors.New("cloudcfg: not a zip archive")
	// ErrNoConfig means the archive holds no file named cloud.cfg.
	ErrNoConfig = errors.New("cloudcfg: archive holds no cloud.cfg")
	// ErrExtraContent means the archive holds more than cloud.cfg: other
	// entries, bytes before or after the archive or between its parts, or
	// an archive comment.
	ErrExtraContent = errors.New("cloudcfg: archive holds more than cloud.cfg")
	// ErrTooLarge means the archive or cloud.cfg (declared or actual size)
	// exceeds the Limits.
	ErrTooLarge = errors.New("cloudcfg: archive exceeds limits")
	// ErrBadArchive means the archive is a zip but is damaged, encrypted,
	// uses an unsupported compression method, or holds cloud.cfg more than
	// once or as a directory.
	ErrBadArchive = errors.New("cloudcfg: unusable archive")
	// ErrSyntax means a line of the settings text cannot be read. It comes
	// wrapped in a *LineError naming the line.
	ErrSyntax = errors.New("cloudcfg: syntax error")
	// ErrStrictness means a Strictness value is not one of Off, Lenient or
	// Strict.
	ErrStrictness = errors.New("cloudcfg: unknown strictness")
)

// LineError reports a problem with one line of the settings text.
// Err wraps ErrSyntax.
type LineError struct {
	Line int    // 1-based line number
	Text string // the line, without its line ending
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// syntaxError is the cause inside a LineError or Line: errors.Is matches it
// to ErrSyntax, and its text without the prefix is what WriteText shows.
type syntaxError struct{ problem string }

func (e *syntaxError) Error() string        { return ErrSyntax.Error() + ": " + e.problem }
func (e *syntaxError) Is(target error) bool { return target == ErrSyntax }

// syntaxf returns an error wrapping ErrSyntax.
func syntaxf(format string, args ...any) error {
	return &syntaxError{problem: fmt.Sprintf(format, args...)}
}
