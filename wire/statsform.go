package wire

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A game server's match statistics (POST /stats_requester.php, f=submit_stats
// or f=resubmit_stats) are a url-encoded form whose names use PHP's
// brackets:
//
//	match_stats[<field>]                          the match
//	team_stats[<team>][<field>]                   each team
//	player_stats[<key>][<hero_cli_name>][<field>] each player, one hero each
//	inventory[<key>][<slot>]                      each player's items
//	items[...], abilities[...], frags[...]        optional event lists
//	f, session                                    submit_stats
//	login, pass, resubmission_key, server_id      resubmit_stats
//
// ParseStatsForm and DecodeStatsForm read it into a StatsForm within
// StatsFormLimits. They are stricter than PHP, which silently renames,
// drops or truncates what it cannot nest: every name must be a plain name
// followed by balanced, non-nested [segments], at most MaxDepth of them;
// names and values must be valid UTF-8; names must not hold control
// characters; and the known names must have their documented shape (a
// match field is match_stats[<field>], never match_stats or
// match_stats[a][b]). What does not fit is a *FormLimitError, never a
// partial form: a match's statistics are recorded whole or not at all.
//
// Names the protocol does not list are kept, in order, in StatsForm.Other
// (a newer game may send more), so that nothing a server sent is lost.

// StatsFormLimits bound what ParseStatsForm and DecodeStatsForm accept. A
// zero field takes the value of DefaultStatsFormLimits; there is
// deliberately no "unlimited".
type StatsFormLimits struct {
	MaxBytes  int64 // bytes of the url-encoded body
	MaxValues int   // name=value pairs
	MaxDepth  int   // [segments] in one name
	MaxKeyLen int   // bytes of one decoded name, brackets included
}

// DefaultStatsFormLimits accept the longest matches with room to spare: a
// plain 5v5 sends about 1,040 values and a long match with every optional
// event list about 4,500 (the best-known peer lost matches at its 8,192);
// the deepest legitimate name, player_stats[<key>][<hero>][<field>], has
// three segments, and the longest is well under 100 bytes.
var DefaultStatsFormLimits = StatsFormLimits{
	MaxBytes:  32 << 20,
	MaxValues: 20_000,
	MaxDepth:  3,
	MaxKeyLen: 256,
}

func (l StatsFormLimits) withDefaults() StatsFormLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultStatsFormLimits.MaxBytes
	}
	if l.MaxValues <= 0 {
		l.MaxValues = DefaultStatsFormLimits.MaxValues
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultStatsFormLimits.MaxDepth
	}
	if l.MaxKeyLen <= 0 {
		l.MaxKeyLen = DefaultStatsFormLimits.MaxKeyLen
	}
	return l
}

// FormRefusal says why a statistics form was refused. Its values are
// stable and short, fit for a metric label.
type FormRefusal string

// The reasons a statistics form is refused.
const (
	// RefusedTooLarge: the body is longer than MaxBytes.
	RefusedTooLarge FormRefusal = "too_large"
	// RefusedTooManyValues: more than MaxValues name=value pairs.
	RefusedTooManyValues FormRefusal = "too_many_values"
	// RefusedNameTooLong: a name longer than MaxKeyLen.
	RefusedNameTooLong FormRefusal = "name_too_long"
	// RefusedTooDeep: a name with more than MaxDepth [segments].
	RefusedTooDeep FormRefusal = "too_deep"
	// RefusedBadName: unbalanced or nested brackets, text after a
	// closing bracket, an empty name or a control character in a name.
	RefusedBadName FormRefusal = "bad_name"
	// RefusedBadEncoding: a broken %-escape, or a name or value that is
	// not valid UTF-8.
	RefusedBadEncoding FormRefusal = "bad_encoding"
	// RefusedBadShape: a known name with the wrong number of segments, an
	// empty segment where a key is needed, or a player with two heroes.
	RefusedBadShape FormRefusal = "bad_shape"
)

// FormLimitError is why ParseStatsForm or DecodeStatsForm refused a form.
// Its Error text is one sentence for an operator's log, naming the field
// (clipped, quoted) and the limit; it never names an internal package.
// errors.Is(err, ErrBodyTooLarge) holds for RefusedTooLarge and
// errors.Is(err, ErrMalformed) for every other reason.
type FormLimitError struct {
	Reason FormRefusal
	Field  string // the offending name as sent, clipped; "" for the whole form
	Detail string // the sentence, without the field
}

func (e *FormLimitError) Error() string {
	if e.Field == "" {
		return "statistics form refused: " + e.Detail
	}
	return fmt.Sprintf("statistics form refused: field %q: %s", e.Field, e.Detail)
}

// Unwrap lets errors.Is pick the reply shape as for ReadRequest's errors.
func (e *FormLimitError) Unwrap() error {
	if e.Reason == RefusedTooLarge {
		return ErrBodyTooLarge
	}
	return ErrMalformed
}

// StatsForm is a decoded statistics submission. Every string is owned;
// nothing refers to the request's memory. Where a name is sent twice the
// last value wins, as in PHP, except in the raw lists, which keep all.
type StatsForm struct {
	Function string // f
	Session  string // submit_stats: the game server's session

	// resubmit_stats: the manager's credentials and the match's key.
	Login           string
	Pass            string // lowercase hex MD5 of the password, as sent
	ResubmissionKey string
	ServerID        string

	Match     map[string]string            // match_stats[<field>]
	Teams     map[string]map[string]string // team_stats[<team>][<field>]
	Players   []StatsPlayer                // player_stats, by key (see StatsPlayer)
	Inventory map[string]map[string]string // inventory[<key>][<slot>] = item

	// The optional event lists, each value with the segments of its name
	// after the list's own name, in the order received (ParseStatsForm)
	// or sorted by name (DecodeStatsForm, whose input has no order).
	Items     []StatsValue
	Abilities []StatsValue
	Frags     []StatsValue

	// Names the protocol does not list, whole (Path[0] is the plain name).
	Other []StatsValue

	Values int // name=value pairs read
}

// StatsPlayer is one player_stats[<key>][<hero>][...] entry. Key is the
// segment as sent: the sources disagree whether it is an account id or a
// slot index, so the caller decides. Players are sorted by Key, as
// integers where both are decimal integers, else bytewise.
type StatsPlayer struct {
	Key    string
	Hero   string            // the hero's cli name
	Fields map[string]string // <field> = value
}

// StatsValue is one value of a list kept as sent: Path holds the
// segments of its name (an empty segment is PHP's "append", []).
type StatsValue struct {
	Path  []string
	Value string
}

// MatchID returns match_stats[match_id] as a decimal integer.
func (f *StatsForm) MatchID() (int64, error) {
	text, ok := f.Match["match_id"]
	if !ok {
		return 0, &FieldError{Field: "match_stats[match_id]", Problem: "not sent", Err: ErrMissingField}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, &FieldError{Field: "match_stats[match_id]", Problem: fmt.Sprintf("%q is not a decimal integer", truncate([]byte(text))), Err: ErrBadField}
	}
	return n, nil
}

// Player returns the player whose key is key.
func (f *StatsForm) Player(key string) (StatsPlayer, bool) {
	i, ok := slices.BinarySearchFunc(f.Players, key, func(p StatsPlayer, k string) int { return comparePlayerKeys(p.Key, k) })
	if !ok {
		return StatsPlayer{}, false
	}
	return f.Players[i], true
}

// Int returns the player's field as a decimal integer; ok is false when
// the field is missing or is not one.
func (p StatsPlayer) Int(field string) (n int64, ok bool) {
	text, sent := p.Fields[field]
	if !sent {
		return 0, false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return n, err == nil
}

// ParseStatsForm decodes an application/x-www-form-urlencoded body. It
// splits on '&' and decodes escapes as ReadRequest does. Time and memory
// are linear in len(body); the limits are checked before the work they
// bound (the length before anything, the count before a value is
// decoded). Errors are *FormLimitError.
func ParseStatsForm(body []byte, lim StatsFormLimits) (*StatsForm, error) {
	lim = lim.withDefaults()
	if int64(len(body)) > lim.MaxBytes {
		return nil, &FormLimitError{Reason: RefusedTooLarge, Detail: fmt.Sprintf("the body of %d bytes exceeds the limit of %d bytes", len(body), lim.MaxBytes)}
	}
	// Every name and value is decoded into one buffer that then becomes
	// one string, of which the form's strings are substrings: the text of
	// the whole form costs one allocation, never larger than the body.
	type span struct{ start, mid, end int } // name buf[start:mid], value buf[mid:end]
	spans := make([]span, 0, min(bytes.Count(body, []byte{'&'})+1, lim.MaxValues))
	buf := make([]byte, 0, len(body))
	values := 0
	for data := body; len(data) > 0; {
		var segment []byte
		if i := bytes.IndexByte(data, '&'); i >= 0 {
			segment, data = data[:i], data[i+1:]
		} else {
			segment, data = data, nil
		}
		if len(segment) == 0 {
			continue
		}
		if values++; values > lim.MaxValues {
			return nil, tooManyValues(lim)
		}
		rawName, rawValue, _ := bytes.Cut(segment, []byte{'='})
		// An escaped byte takes three; a longer raw name cannot fit.
		if len(rawName) > 3*lim.MaxKeyLen {
			return nil, nameTooLong(rawName, lim)
		}
		sp := span{start: len(buf)}
		var ok bool
		if buf, ok = appendUnescaped(buf, rawName); !ok {
			return nil, &FormLimitError{Reason: RefusedBadEncoding, Field: clip(rawName), Detail: "the name has a broken %-escape"}
		}
		sp.mid = len(buf)
		if buf, ok = appendUnescaped(buf, rawValue); !ok {
			return nil, &FormLimitError{Reason: RefusedBadEncoding, Field: clip(buf[sp.start:sp.mid]), Detail: "the value has a broken %-escape"}
		}
		sp.end = len(buf)
		spans = append(spans, sp)
	}
	text := string(buf)
	b := newStatsBuilder(lim)
	for _, sp := range spans {
		if err := b.count(); err != nil {
			return nil, err
		}
		if err := b.add(text[sp.start:sp.mid], text[sp.mid:sp.end]); err != nil {
			return nil, err
		}
	}
	return b.finish(), nil
}

// appendUnescaped appends raw, url-decoded as ReadRequest decodes it (see
// unescapeFormText: '+' is a space, %XX a byte, any other '%' an error),
// to dst; ok is false for a broken escape. FuzzStatsForm holds the two
// to the same results.
func appendUnescaped(dst, raw []byte) (_ []byte, ok bool) {
	for len(raw) > 0 {
		i := 0
		for i < len(raw) && raw[i] != '%' && raw[i] != '+' {
			i++
		}
		dst, raw = append(dst, raw[:i]...), raw[i:]
		switch {
		case len(raw) == 0:
		case raw[0] == '+':
			dst, raw = append(dst, ' '), raw[1:]
		case len(raw) < 3:
			return dst, false
		default:
			hi, okHi := unhex(raw[1])
			lo, okLo := unhex(raw[2])
			if !okHi || !okLo {
				return dst, false
			}
			dst, raw = append(dst, hi<<4|lo), raw[3:]
		}
	}
	return dst, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// DecodeStatsForm decodes the fields ReadRequest put in a Request's Form,
// for a host that has already read the body (with a MaxFields of at least
// lim.MaxValues). It applies the same limits and rules as ParseStatsForm,
// counting a name's bytes, its value's and two separators per value
// against MaxBytes. Names are visited sorted, so the result does not
// depend on map order. Errors are *FormLimitError.
func DecodeStatsForm(form Values, lim StatsFormLimits) (*StatsForm, error) {
	lim = lim.withDefaults()
	values, size := 0, int64(0)
	for name, vs := range form {
		values += len(vs)
		for _, v := range vs {
			size += int64(len(name) + len(v) + 2)
		}
	}
	if values > lim.MaxValues {
		return nil, &FormLimitError{Reason: RefusedTooManyValues, Detail: fmt.Sprintf("%d values exceed the limit of %d", values, lim.MaxValues)}
	}
	if size > lim.MaxBytes {
		return nil, &FormLimitError{Reason: RefusedTooLarge, Detail: fmt.Sprintf("the form of about %d bytes exceeds the limit of %d bytes", size, lim.MaxBytes)}
	}
	names := make([]string, 0, len(form))
	for name := range form {
		names = append(names, name)
	}
	slices.Sort(names)
	b := newStatsBuilder(lim)
	for _, name := range names {
		for _, v := range form[name] {
			if err := b.count(); err != nil {
				return nil, err
			}
			if err := b.add(name, v); err != nil {
				return nil, err
			}
		}
	}
	return b.finish(), nil
}

func clip(name []byte) string { return strings.ToValidUTF8(truncate(name), "\uFFFD") }

// statsBuilder assembles a StatsForm one name=value at a time.
type statsBuilder struct {
	lim     StatsFormLimits
	f       *StatsForm
	players map[string]*StatsPlayer
	segs    []string
	paths   []string // backing array of the raw lists' paths (see path)
}

func newStatsBuilder(lim StatsFormLimits) *statsBuilder {
	return &statsBuilder{
		lim: lim,
		f: &StatsForm{
			Match:     map[string]string{},
			Teams:     map[string]map[string]string{},
			Inventory: map[string]map[string]string{},
		},
		players: map[string]*StatsPlayer{},
		segs:    make([]string, 0, lim.MaxDepth+1),
	}
}

func (b *statsBuilder) count() error {
	if b.f.Values++; b.f.Values > b.lim.MaxValues {
		return tooManyValues(b.lim)
	}
	return nil
}

func tooManyValues(lim StatsFormLimits) error {
	return &FormLimitError{Reason: RefusedTooManyValues, Detail: fmt.Sprintf("more than %d values", lim.MaxValues)}
}

func nameTooLong(name []byte, lim StatsFormLimits) error {
	return &FormLimitError{Reason: RefusedNameTooLong, Field: clip(name), Detail: fmt.Sprintf("the name is longer than %d bytes", lim.MaxKeyLen)}
}

// path returns parts as one slice cut from a shared backing array, capped
// so that appending to it copies (one allocation per many paths).
func (b *statsBuilder) path(parts ...[]string) []string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if cap(b.paths)-len(b.paths) < n {
		b.paths = make([]string, 0, max(n, 512))
	}
	start := len(b.paths)
	for _, p := range parts {
		b.paths = append(b.paths, p...)
	}
	return b.paths[start:len(b.paths):len(b.paths)]
}

// add files one decoded name=value.
func (b *statsBuilder) add(name, value string) error {
	if len(name) > b.lim.MaxKeyLen {
		return nameTooLong([]byte(name), b.lim)
	}
	if !utf8.ValidString(name) {
		return &FormLimitError{Reason: RefusedBadEncoding, Field: clip([]byte(name)), Detail: "the name is not valid UTF-8"}
	}
	if !utf8.ValidString(value) {
		return &FormLimitError{Reason: RefusedBadEncoding, Field: clip([]byte(name)), Detail: "the value is not valid UTF-8"}
	}
	base, segs, err := b.split(name)
	if err != nil {
		return err
	}
	shape := func(want string) error {
		return &FormLimitError{Reason: RefusedBadShape, Field: clip([]byte(name)), Detail: "expected " + want}
	}
	switch base {
	case "f", "session", "login", "pass", "resubmission_key", "server_id":
		if len(segs) != 0 {
			return shape("a plain value, without brackets")
		}
		switch base {
		case "f":
			b.f.Function = value
		case "session":
			b.f.Session = value
		case "login":
			b.f.Login = value
		case "pass":
			b.f.Pass = value
		case "resubmission_key":
			b.f.ResubmissionKey = value
		case "server_id":
			b.f.ServerID = value
		}
	case "match_stats":
		if len(segs) != 1 || segs[0] == "" {
			return shape("match_stats[<field>]")
		}
		b.f.Match[segs[0]] = value
	case "team_stats":
		if len(segs) != 2 || segs[0] == "" || segs[1] == "" {
			return shape("team_stats[<team>][<field>]")
		}
		inner(b.f.Teams, segs[0])[segs[1]] = value
	case "inventory":
		if len(segs) != 2 || segs[0] == "" || segs[1] == "" {
			return shape("inventory[<key>][<slot>]")
		}
		inner(b.f.Inventory, segs[0])[segs[1]] = value
	case "player_stats":
		if len(segs) != 3 || segs[0] == "" || segs[1] == "" || segs[2] == "" {
			return shape("player_stats[<key>][<hero>][<field>]")
		}
		p := b.players[segs[0]]
		if p == nil {
			p = &StatsPlayer{Key: segs[0], Hero: segs[1], Fields: map[string]string{}}
			b.players[segs[0]] = p
		} else if p.Hero != segs[1] {
			return &FormLimitError{Reason: RefusedBadShape, Field: clip([]byte(name)), Detail: fmt.Sprintf("player %q is sent with two heroes", truncate([]byte(segs[0])))}
		}
		p.Fields[segs[2]] = value
	case "items", "abilities", "frags":
		if len(segs) == 0 {
			return shape(base + "[...]")
		}
		v := StatsValue{Path: b.path(segs), Value: value}
		switch base {
		case "items":
			b.f.Items = append(b.f.Items, v)
		case "abilities":
			b.f.Abilities = append(b.f.Abilities, v)
		default:
			b.f.Frags = append(b.f.Frags, v)
		}
	default:
		b.f.Other = append(b.f.Other, StatsValue{Path: b.path([]string{base}, segs), Value: value})
	}
	return nil
}

func inner(m map[string]map[string]string, key string) map[string]string {
	in := m[key]
	if in == nil {
		in = map[string]string{}
		m[key] = in
	}
	return in
}

// split cuts name into its plain part and its bracket segments, which are
// substrings of name held in b.segs until the next call.
func (b *statsBuilder) split(name string) (base string, segs []string, err error) {
	bad := func(detail string) error {
		return &FormLimitError{Reason: RefusedBadName, Field: clip([]byte(name)), Detail: detail}
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == 0x7f {
			return "", nil, bad("the name holds a control character")
		}
	}
	open := strings.IndexByte(name, '[')
	if open < 0 {
		open = len(name)
	}
	base = name[:open]
	if base == "" {
		return "", nil, bad("the name is empty before its brackets")
	}
	if strings.IndexByte(base, ']') >= 0 {
		return "", nil, bad("a closing bracket without an opening one")
	}
	segs = b.segs[:0]
	for rest := name[open:]; rest != ""; {
		if rest[0] != '[' {
			return "", nil, bad("text after a closing bracket")
		}
		if len(segs) == b.lim.MaxDepth {
			return "", nil, &FormLimitError{Reason: RefusedTooDeep, Field: clip([]byte(name)), Detail: fmt.Sprintf("more than %d levels of brackets", b.lim.MaxDepth)}
		}
		end := 0
		for end < len(rest)-1 && rest[1+end] != ']' && rest[1+end] != '[' {
			end++
		}
		if end == len(rest)-1 {
			return "", nil, bad("an opening bracket without a closing one")
		}
		if rest[1+end] == '[' {
			return "", nil, bad("a bracket inside brackets")
		}
		segs = append(segs, rest[1:1+end])
		rest = rest[1+end+1:]
	}
	b.segs = segs
	return base, segs, nil
}

func (b *statsBuilder) finish() *StatsForm {
	f := b.f
	f.Players = make([]StatsPlayer, 0, len(b.players))
	for _, p := range b.players {
		f.Players = append(f.Players, *p)
	}
	slices.SortFunc(f.Players, func(x, y StatsPlayer) int { return comparePlayerKeys(x.Key, y.Key) })
	return f
}

// comparePlayerKeys orders decimal integer keys numerically, before any other
// key, and the others bytewise.
func comparePlayerKeys(x, y string) int {
	nx, ex := strconv.ParseInt(x, 10, 64)
	ny, ey := strconv.ParseInt(y, 10, 64)
	switch {
	case ex == nil && ey == nil:
		if c := cmp.Compare(nx, ny); c != 0 {
			return c
		}
		return strings.Compare(x, y) // "07" and "7"
	case ex == nil:
		return -1
	case ey == nil:
		return 1
	}
	return strings.Compare(x, y)
}
