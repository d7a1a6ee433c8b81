package logflood

import (
	"strconv"
	"sync/atomic"
	"unicode/utf8"
)

// DefaultClipBytes is the default of server.log_value_limit: the most a
// value a client supplied (a login, a path ...) keeps of itself in a log
// line, so that whatever a client sends, a line grows by at most this much
// per such value (issue 36: one 1 MiB login used to write 1 MiB of access
// log per request).
const DefaultClipBytes = 64

// clipBytes is the bound in force (SetClipBytes), process wide.
var clipBytes atomic.Int64

func init() { clipBytes.Store(DefaultClipBytes) }

// SetClipBytes sets the bound of Clip (server.log_value_limit); n below 1
// is the default.
func SetClipBytes(n int) {
	if n < 1 {
		n = DefaultClipBytes
	}
	clipBytes.Store(int64(n))
}

// ClipBytes is the bound of Clip in force.
func ClipBytes() int { return int(clipBytes.Load()) }

// Clip returns s as a log line may carry a value a client supplied: s
// itself when it is at most ClipBytes long, else its first ClipBytes
// (cut at a character boundary) followed by "...(N bytes)", N the length
// of s. The handler escapes what needs escaping (text quotes a value
// with spaces, quotes or control characters; JSON escapes): a clipped
// value cannot start a line of its own.
func Clip(s string) string { return ClipTo(s, ClipBytes()) }

// ClipTo is Clip with a bound of max bytes.
func ClipTo(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "...(" + strconv.Itoa(len(s)) + " bytes)"
}
