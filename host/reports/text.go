package reports

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxRawTextBytes bounds the description as received, before cleaning. The
// client sends at most 210 characters (some 840 bytes of UTF-8, twice that
// with the new path's escaping); a longer body is not from the stock
// client, and storing it would let one request fill the disk. Such a
// report is refused, not cut.
const MaxRawTextBytes = 4096

// UndoMasterQuirk undoes what the client does to the description on
// /master/report/report (protocol-notes §6): it escapes ' as \' and
// appends one '. The steps are undone in reverse order: one trailing '
// is removed, then \' becomes '. Text without the trailing ' (another
// client) only has its \' unescaped.
func UndoMasterQuirk(raw string) string {
	s := strings.TrimSuffix(raw, "'")
	return strings.ReplaceAll(s, `\'`, `'`)
}

// CleanText makes a description safe to store and to print on an
// operator's terminal: invalid UTF-8 becomes U+FFFD, line breaks and tabs
// become spaces, other control characters (escape sequences) are dropped,
// surrounding spaces are trimmed, and the result is cut to maxRunes
// characters (never inside a character). truncated says whether it was
// cut. Longer text is cut rather than refused: the player's report is
// kept, and the client never sends more than 210 characters anyway.
func CleanText(s string, maxRunes int) (clean string, truncated bool) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r):
			// dropped: terminal escapes and direction overrides
		default:
			b.WriteRune(r)
		}
	}
	clean = strings.TrimSpace(b.String())
	if maxRunes >= 0 && utf8.RuneCountInString(clean) > maxRunes {
		i, n := 0, 0
		for i = range clean {
			if n == maxRunes {
				break
			}
			n++
		}
		clean, truncated = strings.TrimRightFunc(clean[:i], unicode.IsSpace), true
	}
	return clean, truncated
}
