package guides

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/storage"
)

// Import formats, told apart by the file's first non-blank byte.
const (
	// FormatOwn is the project's own format: a JSON array of guides with
	// gids and counts ('[').
	FormatOwn = 1
	// FormatArchive is captured replies: a JSON object keyed by hero CLI
	// name, each value a list of get_guide replies as decoded JSON ('{').
	FormatArchive = 2
)

// MaxImportedVotes bounds an imported count, so that counts plus players'
// votes stay far from overflowing.
const MaxImportedVotes = 1_000_000_000

// ArchiveVotes is the number of starting votes given to a guide imported
// from captured replies: up = round(rating*100), down = 100 - up, so the
// rating FormatRating shows is the archived one byte for byte. A rating of
// 0.00 gets no votes at all (the original showed 0.00 for unvoted guides).
const ArchiveVotes = 100

// ErrImport matches every import error with errors.Is.
var ErrImport = errors.New("guide import")

// ImportError is one problem of an import file, naming the guide.
type ImportError struct {
	Guide   string // "guide 3 (gid 415077, \"Name\")" or "Hero_X guide 2 (\"Name\")"
	Problem string
}

func (e *ImportError) Error() string { return e.Guide + ": " + e.Problem }

// Is makes every ImportError match ErrImport.
func (e *ImportError) Is(target error) bool { return target == ErrImport }

// GidTaken reports the archive key of the stored guide holding gid, if any
// (key "" for a guide not imported from an archive). ParseImport uses it to
// give archive guides gids that are stable across imports.
type GidTaken func(gid GuideID) (archiveKey string, taken bool)

// ParseImport reads an import file of either format into guides, all
// validated. A guide with problems is left out and reported in refused, one
// *ImportError per guide naming it and listing its problems, in file order;
// the file's other guides are still returned, so that one bad guide of a
// captured archive does not hold back the rest (Import decides whether to
// store them). err is a problem of the file as a whole (empty, not JSON,
// not a guide file): then there are no guides. taken may be nil (an empty
// store). Authors are not resolved to accounts here: the caller sets
// Guide.Author from the account whose login equals AuthorName.
func ParseImport(data []byte, taken GidTaken) (gs []Guide, refused []*ImportError, err error) {
	if taken == nil {
		taken = func(GuideID) (string, bool) { return "", false }
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff") // blanks and a byte-order mark
	if len(trimmed) == 0 {
		return nil, nil, &ImportError{Guide: "file", Problem: "empty"}
	}
	switch trimmed[0] {
	case '[':
		return parseOwn(trimmed)
	case '{':
		return parseArchive(trimmed, taken)
	}
	return nil, nil, &ImportError{Guide: "file", Problem: "not a guide file: want a JSON array (own format) or a JSON object keyed by hero (captured replies)"}
}

// problems collects the problems of one guide of a file.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// refusal is the guide's refusal, nil when it has no problem.
func (p problems) refusal(guide string) *ImportError {
	if len(p) == 0 {
		return nil
	}
	return &ImportError{Guide: guide, Problem: strings.Join(p, "; ")}
}

// ownGuide is one guide of the own format.
type ownGuide struct {
	Gid         uint64   `json:"gid"`
	HeroCLIName string   `json:"hero_cli_name"`
	HeroName    string   `json:"hero_name"`
	GuideName   string   `json:"guide_name"`
	AuthorName  string   `json:"author_name"`
	Datetime    string   `json:"datetime"` // RFC 3339
	Premium     bool     `json:"premium"`
	Hidden      bool     `json:"hidden"`
	IStart      []string `json:"i_start"`
	ILaning     []string `json:"i_laning"`
	ICore       []string `json:"i_core"`
	ILuxury     []string `json:"i_luxury"`
	AbilQ       []string `json:"abilQ"`
	TxtIntro    string   `json:"txt_intro"`
	Upvotes     uint64   `json:"upvotes"`
	Downvotes   uint64   `json:"downvotes"`
}

func parseOwn(data []byte) ([]Guide, []*ImportError, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, nil, &ImportError{Guide: "file", Problem: "not a JSON array: " + err.Error()}
	}
	var refused []*ImportError
	var out []Guide
	seen := map[GuideID]int{}
	for i, msg := range raw {
		var o ownGuide
		dec := json.NewDecoder(bytes.NewReader(msg))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			refused = append(refused, &ImportError{Guide: fmt.Sprintf("guide %d", i+1), Problem: err.Error()})
			continue
		}
		var bad problems
		switch {
		case o.Gid == 0 || o.Gid > uint64(MaxOwnGid):
			bad.add("gid must be 1..%d (larger ids are kept for archived guides)", MaxOwnGid)
		case GuideID(o.Gid) == ProbeGid:
			bad.add("gid %d is reserved: the client asks for it to get no_guides_found", ProbeGid)
		case seen[GuideID(o.Gid)] > 0:
			bad.add("gid also used by guide %d", seen[GuideID(o.Gid)])
		}
		seen[GuideID(o.Gid)] = i + 1
		edited, err := time.Parse(time.RFC3339, o.Datetime)
		if err != nil {
			bad.add("datetime %q: want RFC 3339, e.g. 2021-05-09T15:18:47Z", o.Datetime)
		}
		if o.Upvotes > MaxImportedVotes || o.Downvotes > MaxImportedVotes {
			bad.add("upvotes and downvotes must be at most %d", MaxImportedVotes)
		}
		g := Guide{
			Gid: GuideID(o.Gid), Hero: o.HeroCLIName, HeroName: o.HeroName, Name: o.GuideName,
			AuthorName: o.AuthorName, Edited: edited.UTC(), Premium: o.Premium, Hidden: o.Hidden,
			Start: nonNil(o.IStart), Laning: nonNil(o.ILaning), Core: nonNil(o.ICore), Luxury: nonNil(o.ILuxury),
			Abil: nonNil(o.AbilQ), Intro: o.TxtIntro,
			Up: uint32(min(o.Upvotes, MaxImportedVotes)), Down: uint32(min(o.Downvotes, MaxImportedVotes)),
		}
		bad = append(bad, validate(&g)...)
		if r := bad.refusal(fmt.Sprintf("guide %d (gid %d, %q)", i+1, o.Gid, o.GuideName)); r != nil {
			refused = append(refused, r)
			continue
		}
		out = append(out, g)
	}
	return out, refused, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// validate returns the problems of g's content, shared by both formats.
func validate(g *Guide) []string {
	var ps []string
	if !validHero(g.Hero) {
		ps = append(ps, fmt.Sprintf("hero_cli_name %q is not a hero identifier (Hero_<name>)", g.Hero))
	}
	checkText := func(field, s string, maxRunes int, required bool) {
		switch n := utf8.RuneCountInString(s); {
		case required && strings.TrimSpace(s) == "":
			ps = append(ps, field+" is empty")
		case !utf8.ValidString(s):
			ps = append(ps, field+" is not valid UTF-8")
		case n > maxRunes:
			ps = append(ps, fmt.Sprintf("%s has %d characters, at most %d", field, n, maxRunes))
		default:
			if i := strings.IndexFunc(s, forbiddenControl); i >= 0 {
				r, _ := utf8.DecodeRuneInString(s[i:])
				ps = append(ps, fmt.Sprintf("%s holds the control character %U", field, r))
			}
		}
	}
	checkText("guide_name", g.Name, MaxNameRunes, true)
	checkText("author_name", g.AuthorName, MaxNameRunes, true)
	if login.CheckVisible(g.AuthorName) != nil { // an author shown as another (a right-to-left override, a zero-width space)
		ps = append(ps, "author_name holds an invisible or text-direction character")
	}
	checkText("hero_name", g.HeroName, MaxNameRunes, false)
	checkText("txt_intro", g.Intro, MaxIntroRunes, false)
	if g.Edited.IsZero() {
		ps = append(ps, "datetime is missing")
	}
	for _, l := range []struct {
		field string
		ids   []string
	}{{"i_start", g.Start}, {"i_laning", g.Laning}, {"i_core", g.Core}, {"i_luxury", g.Luxury}, {"abilQ", g.Abil}} {
		if len(l.ids) > 64 {
			ps = append(ps, fmt.Sprintf("%s has %d entries, at most 64", l.field, len(l.ids)))
		}
		for j, id := range l.ids {
			if len(id) > 64 || strings.ContainsFunc(id, func(r rune) bool { return r == '|' || r == '`' || unicode.IsSpace(r) || unicode.IsControl(r) }) {
				ps = append(ps, fmt.Sprintf("%s entry %d %q is not an identifier", l.field, j+1, id))
			}
		}
	}
	return ps
}

// forbiddenControl reports the control characters a text field may not
// hold: all but tab, line feed and carriage return. The original service's
// descriptions break lines with CR LF, and get_guide serves them as they
// are (a PHP string's length counts bytes, so they need no escaping).
func forbiddenControl(r rune) bool {
	return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r'
}

// archiveKey identifies an archived guide: hero, author, name and date.
func archiveKey(hero, author, name string, edited time.Time) string {
	return hero + "\x00" + author + "\x00" + name + "\x00" + strconv.FormatInt(edited.Unix(), 10)
}

// archiveGid is the first gid tried for an archive key: an FNV-1a hash into
// [ArchiveGidBase, ArchiveGidEnd).
func archiveGid(key string) GuideID {
	h := fnv.New64a()
	h.Write([]byte(key))
	return ArchiveGidBase + GuideID(h.Sum64()%uint64(ArchiveGidEnd-ArchiveGidBase))
}

// nextArchiveGid is the probe after gid, wrapping within the range.
func nextArchiveGid(gid GuideID) GuideID {
	if gid+1 >= ArchiveGidEnd {
		return ArchiveGidBase
	}
	return gid + 1
}

// archived is one captured get_guide reply as decoded JSON; values may be
// strings or numbers depending on the tool that decoded them.
type archived map[string]any

func (a archived) text(key string) (string, bool) {
	switch v := a[key].(type) {
	case string:
		return v, true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case bool:
		return map[bool]string{true: "1", false: "0"}[v], true
	case nil:
		return "", false
	}
	return "", false
}

func splitPipes(s string) []string { return strings.Split(s, "|") }

// parseArchive reads captured replies. Guides get gids in a canonical
// order (hero, then key), so that collisions resolve the same way on every
// import of the same file.
func parseArchive(data []byte, taken GidTaken) ([]Guide, []*ImportError, error) {
	var file map[string][]archived
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, nil, &ImportError{Guide: "file", Problem: "not an object of hero → list of get_guide replies: " + err.Error()}
	}
	var refused []*ImportError
	byKey := map[string]Guide{}
	for _, hero := range slices.Sorted(maps.Keys(file)) {
		for i, a := range file[hero] {
			rawName, _ := a.text("guide_name")
			name := fmt.Sprintf("%s guide %d (%q)", hero, i+1, rawName)
			var bad problems
			if s, ok := a.text("success"); ok && s != "1" {
				bad.add("success is %q: not a guide reply (no_guides_found?)", s)
				refused = append(refused, bad.refusal(name))
				continue
			}
			if h, ok := a.text("hero_cli_name"); ok && h != hero {
				bad.add("hero_cli_name %q differs from its key %q", h, hero)
			}
			g := Guide{Hero: hero, Name: UnescapeName(rawName)}
			author, _ := a.text("author_name")
			g.AuthorName = UnescapeName(author)
			g.HeroName, _ = a.text("hero_name")
			g.Intro, _ = a.text("txt_intro")
			if dt, ok := a.text("datetime"); !ok {
				bad.add("datetime is missing")
			} else if t, err := time.Parse(DateLayout, strings.ToLower(dt)); err != nil { // PM too
				bad.add("datetime %q: want %s", dt, DateLayout)
			} else {
				g.Edited = t
			}
			switch p, _ := a.text("premium"); p {
			case "1":
				g.Premium = true
			case "0", "":
			default:
				bad.add("premium %q: want \"0\" or \"1\"", p)
			}
			r, _ := a.text("rating")
			up, err := ratingVotes(r)
			if err != nil {
				bad.add("rating %q: %v", r, err)
			}
			if up > 0 {
				g.Up, g.Down = up, ArchiveVotes-up
			}
			for _, l := range []struct {
				key string
				dst *[]string
			}{{"i_start", &g.Start}, {"i_laning", &g.Laning}, {"i_core", &g.Core}, {"i_luxury", &g.Luxury}, {"abilQ", &g.Abil}} {
				s, _ := a.text(l.key)
				*l.dst = splitPipes(s)
			}
			bad = append(bad, validate(&g)...)
			if r := bad.refusal(name); r != nil {
				refused = append(refused, r)
				continue
			}
			// The same guide captured twice is one guide; the later
			// valid capture wins.
			g.ArchiveKey = archiveKey(g.Hero, g.AuthorName, g.Name, g.Edited)
			byKey[g.ArchiveKey] = g
		}
	}
	keys := slices.Sorted(maps.Keys(byKey))
	out := make([]Guide, 0, len(keys))
	used := map[GuideID]bool{}
	for _, k := range keys {
		g := byKey[k]
		gid, err := assignArchiveGid(k, taken, used)
		if err != nil {
			refused = append(refused, &ImportError{Guide: fmt.Sprintf("%s guide %q", g.Hero, g.Name), Problem: err.Error()})
			continue
		}
		g.Gid = gid
		used[gid] = true
		out = append(out, g)
	}
	return out, refused, nil
}

// assignArchiveGid gives key its stable gid: the hash's gid, or on a
// collision (a stored guide of another key, or another guide of this file)
// the next free one in the range. A stored guide with the same key keeps
// its gid, so re-importing updates it.
func assignArchiveGid(key string, taken GidTaken, used map[GuideID]bool) (GuideID, error) {
	start := archiveGid(key)
	gid := start
	for {
		if !used[gid] {
			k, isTaken := taken(gid)
			if !isTaken || k == key {
				return gid, nil
			}
		}
		if gid = nextArchiveGid(gid); gid == start {
			return 0, errors.New("no free gid left in the archive range")
		}
	}
}

// ratingVotes turns an archived rating ("0.98") into the upvotes out of
// ArchiveVotes that show it again.
func ratingVotes(s string) (uint32, error) {
	if s == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
		return 0, errors.New("want a fraction 0.00..1.00")
	}
	return uint32(math.Round(f * ArchiveVotes)), nil
}

// ResolveAuthors makes each guide whose AuthorName is an account's login
// that account's guide (Guide.Author; is_yours for it), and clears Author
// where no login matches. Logins match exactly, as they are stored.
func ResolveAuthors(gs []Guide, login func(name string) (storage.AccountID, bool)) {
	for i := range gs {
		gs[i].Author = 0
		if id, ok := login(gs[i].AuthorName); ok {
			gs[i].Author = id
		}
	}
}

// Merge returns the guide a re-import stores over stored (same gid): the
// file's content, counts and premium mark replace the stored ones (players'
// votes are separate records and stay), while a guide an operator hid stays
// hidden — a file can hide a guide (own format, "hidden": true) but only
// the operator's unhide command shows it again, so re-importing an archive
// never undoes moderation.
func Merge(stored *Guide, imported Guide) Guide {
	if stored != nil && stored.Hidden {
		imported.Hidden = true
	}
	return imported
}
