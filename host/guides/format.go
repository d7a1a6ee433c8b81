package guides

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DateLayout is the wire's date format: MM/DD/YY hh:mm:ss and am or pm,
// lowercase, zero-padded 12-hour clock. Dates are written in UTC.
const DateLayout = "01/02/06 03:04:05pm"

// FormatDate writes t in DateLayout, in UTC.
func FormatDate(t time.Time) string { return t.UTC().Format(DateLayout) }

// EscapeName escapes apostrophes with a backslash, as the original service
// did for names; nothing else is escaped (a backslash stays as it is).
func EscapeName(s string) string { return strings.ReplaceAll(s, `'`, `\'`) }

// UnescapeName undoes EscapeName exactly: every `\'` becomes `'`.
func UnescapeName(s string) string { return strings.ReplaceAll(s, `\'`, `'`) }

// CutRunes returns the first n characters of s. Cutting by characters never
// splits a UTF-8 sequence, and cutting before escaping never splits an
// escape.
func CutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// listText makes a name safe inside a list entry: the list separates
// entries with backticks and fields with pipes, so a name holding one would
// shift every later field. Each becomes a look-alike that cannot ('/' and
// '), and invalid UTF-8 becomes U+FFFD.
func listText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.ContainsAny(s, "|`") {
		s = strings.NewReplacer("|", "/", "`", "'").Replace(s)
	}
	return s
}

// ListName is a guide name as list field 4 shows it: made list-safe, cut to
// ListNameRunes characters, then apostrophes escaped.
func ListName(name string) string { return EscapeName(CutRunes(listText(name), ListNameRunes)) }

// FormatRating writes the upvote fraction with two decimals ("0.98"),
// "0.00" when there are no votes. It rounds half up in integer arithmetic,
// so a count and its rating never disagree by a float's error.
func FormatRating(c Counts) string {
	total := uint64(c.Up) + uint64(c.Down)
	if total == 0 {
		return "0.00"
	}
	h := (uint64(c.Up)*200 + total) / (2 * total) // round(100*up/total)
	return strconv.FormatUint(h/100, 10) + "." + string(rune('0'+h%100/10)) + string(rune('0'+h%10))
}

// ListEntry is one guide of a list reply with everything its text shows.
type ListEntry struct {
	Gid        GuideID
	Edited     time.Time
	AuthorName string
	Name       string
	Counts     Counts // full counts: imported plus players' votes
	Premium    bool
	Default    bool // the requester's default for the hero
	Favorite   bool // a favorite of the requester
	Yours      bool // authored by the requester

	// head, when set, is AppendHead of this entry's guide, computed once
	// per guide and catalog version (Service.List); "" computes it.
	head string
}

func pick(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// AppendEntry appends one list entry: nine fields separated by pipes, in
// the specification's order (gid, date, author, name, default, favorite,
// rating, ownership, premium). The author is made list-safe and escaped
// like the name, but never cut.
func AppendEntry(dst []byte, e ListEntry) []byte {
	if e.head != "" {
		dst = append(dst, e.head...)
	} else {
		dst = appendHead(dst, e.Gid, e.Edited, e.AuthorName, e.Name)
	}
	dst = append(dst, pick(e.Default, "is_def", "not_def")...)
	dst = append(dst, '|')
	dst = append(dst, pick(e.Favorite, "is_fav", "not_fav")...)
	dst = append(dst, '|')
	dst = append(dst, FormatRating(e.Counts)...)
	dst = append(dst, '|')
	dst = append(dst, pick(e.Yours, "is_yours", "not_yours")...)
	dst = append(dst, '|')
	dst = append(dst, pick(e.Premium, "1", "0")...)
	return dst
}

// appendHead appends the fields of an entry that depend on the guide alone
// (gid, date, author, name), each followed by its pipe.
func appendHead(dst []byte, gid GuideID, edited time.Time, author, name string) []byte {
	dst = strconv.AppendUint(dst, uint64(gid), 10)
	dst = append(dst, '|')
	dst = edited.UTC().AppendFormat(dst, DateLayout)
	dst = append(dst, '|')
	dst = append(dst, EscapeName(listText(author))...)
	dst = append(dst, '|')
	dst = append(dst, ListName(name)...)
	return append(dst, '|')
}

// FormatList writes guide_list: at most MaxListEntries entries (later ones
// are dropped) separated by backticks; "" for no entries.
func FormatList(entries []ListEntry) string {
	if len(entries) > MaxListEntries {
		entries = entries[:MaxListEntries]
	}
	buf := make([]byte, 0, 96*len(entries))
	for i, e := range entries {
		if i > 0 {
			buf = append(buf, '`')
		}
		buf = AppendEntry(buf, e)
	}
	return string(buf)
}
