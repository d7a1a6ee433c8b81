package logflood

import (
	"strconv"
	"unicode/utf8"
)

// ClipBytes is the most a value a client supplied (a login, a path, a user
// agent ...) keeps of itself in a log line: whatever a client sends, a line
// grows by at most this much per such value (issue 36: one 1 MiB login used
// to write 1 MiB of access log per request).
const ClipBytes = 64

// Clip returns s as a log line may carry a value a client supplied: s
// itself when it is at most ClipBytes long, else its first ClipBytes
// (cut at a character boundary) followed by "...(N bytes)", N the length
// of s. The handler escapes what needs escaping (text quotes a value
// with spaces, quotes or control characters; JSON escapes): a clipped
// value cannot start a line of its own.
func Clip(s string) string { return ClipTo(s, ClipBytes) }

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
