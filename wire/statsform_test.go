package wire

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// statsShape says what statsBody writes: a match of players players, each
// with playerFields fields and six inventory slots, and events events of
// each optional list (items, abilities, frags), four values each.
type statsShape struct {
	players      int
	playerFields int
	events       int
}

// The match as the notes size it: a plain 5v5 is about 1,040 values, a
// long one with every optional list about 4,500.
var (
	plain5v5  = statsShape{players: 10, playerFields: 94}
	longMatch = statsShape{players: 10, playerFields: 94, events: 288} // + 3 lists × 288 events × 4 values
)

const (
	statsMatchFields = 36
	statsTeamFields  = 1
)

func (s statsShape) values() int {
	return 2 + statsMatchFields + 2*statsTeamFields + s.players*(s.playerFields+6) + 3*4*s.events
}

// playerFieldNames are the first of a player's fields, as the game names
// them; the rest are padded with statNN.
var playerFieldNames = []string{
	"nickname", "clan_tag", "clan_id", "team", "position", "group_num", "benefit", "hero_id",
	"wins", "losses", "discos", "concedes", "kicked", "herokills", "deaths", "heroassists",
}

// statsBody writes a submission in the game server's order: the
// url-encoded body and, per name, the value it sent.
func statsBody(s statsShape) (body []byte, sent map[string]string) {
	sent = map[string]string{}
	var b strings.Builder
	add := func(name, value string) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(name))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(value))
		sent[name] = value
	}
	add("f", "submit_stats")
	add("session", "0123456789abcdef0123456789abcdef")
	add("match_stats[match_id]", "4021")
	add("match_stats[server_id]", "77")
	add("match_stats[map]", "caldavar")
	for i := 3; i < statsMatchFields; i++ {
		add(fmt.Sprintf("match_stats[awd_%02d]", i), fmt.Sprint(i*7))
	}
	add("team_stats[1][score]", "12")
	add("team_stats[2][score]", "31")
	for p := range s.players {
		hero := fmt.Sprintf("Hero_Number%d", p)
		for i := range s.playerFields {
			field := fmt.Sprintf("stat%02d", i)
			if i < len(playerFieldNames) {
				field = playerFieldNames[i]
			}
			value := fmt.Sprint(p*1000 + i)
			switch field {
			case "nickname":
				value = fmt.Sprintf("[Ünï]Player %d&=+%%", p) // a tag in brackets, UTF-8, separators
			case "team":
				value = fmt.Sprint(1 + p%2)
			}
			add(fmt.Sprintf("player_stats[%d][%s][%s]", p, hero, field), value)
		}
		for slot := range 6 {
			add(fmt.Sprintf("inventory[%d][%d]", p, slot), fmt.Sprintf("Item_%d_%d", p, slot))
		}
	}
	for _, list := range []string{"items", "abilities", "frags"} {
		for e := range s.events {
			for _, field := range []string{"account_id", "cli_name", "secs", "action"} {
				add(fmt.Sprintf("%s[%d][%s]", list, e, field), fmt.Sprint(e))
			}
		}
	}
	return []byte(b.String()), sent
}

// checkStatsForm asserts that f holds every value statsBody sent, each
// where the protocol puts it.
func checkStatsForm(t *testing.T, s statsShape, f *StatsForm, sent map[string]string) {
	t.Helper()
	if f.Values != s.values() {
		t.Errorf("Values = %d, want %d", f.Values, s.values())
	}
	if f.Function != "submit_stats" || f.Session != sent["session"] {
		t.Errorf("f, session = %q, %q", f.Function, f.Session)
	}
	if id, err := f.MatchID(); err != nil || id != 4021 {
		t.Errorf("MatchID() = %d, %v; want 4021", id, err)
	}
	if len(f.Match) != statsMatchFields || f.Match["map"] != "caldavar" {
		t.Errorf("Match has %d fields (map %q), want %d", len(f.Match), f.Match["map"], statsMatchFields)
	}
	if f.Teams["1"]["score"] != "12" || f.Teams["2"]["score"] != "31" || len(f.Teams) != 2 {
		t.Errorf("Teams = %v", f.Teams)
	}
	if len(f.Players) != s.players {
		t.Fatalf("%d players, want %d", len(f.Players), s.players)
	}
	for i, p := range f.Players {
		if want := fmt.Sprint(i); p.Key != want {
			t.Errorf("player %d has key %q, want %q (sorted)", i, p.Key, want)
		}
		if want := fmt.Sprintf("Hero_Number%d", i); p.Hero != want {
			t.Errorf("player %s hero %q, want %q", p.Key, p.Hero, want)
		}
		if len(p.Fields) != s.playerFields {
			t.Errorf("player %s has %d fields, want %d", p.Key, len(p.Fields), s.playerFields)
		}
		for field, value := range p.Fields {
			if name := fmt.Sprintf("player_stats[%s][%s][%s]", p.Key, p.Hero, field); sent[name] != value {
				t.Errorf("%s = %q, sent %q", name, value, sent[name])
			}
		}
		if k, ok := p.Int("herokills"); !ok || k != int64(i*1000+13) {
			t.Errorf("player %s herokills = %d, %v", p.Key, k, ok)
		}
		if got, ok := f.Player(p.Key); !ok || got.Hero != p.Hero {
			t.Errorf("Player(%q) = %v, %v", p.Key, got.Hero, ok)
		}
		if len(f.Inventory[p.Key]) != 6 || f.Inventory[p.Key]["5"] != fmt.Sprintf("Item_%d_5", i) {
			t.Errorf("inventory of %s = %v", p.Key, f.Inventory[p.Key])
		}
	}
	for list, got := range map[string][]StatsValue{"items": f.Items, "abilities": f.Abilities, "frags": f.Frags} {
		if len(got) != 4*s.events {
			t.Errorf("%s: %d values, want %d", list, len(got), 4*s.events)
		}
		for _, v := range got {
			if name := list + "[" + strings.Join(v.Path, "][") + "]"; sent[name] != v.Value {
				t.Errorf("%s = %q, sent %q", name, v.Value, sent[name])
			}
		}
	}
	if len(f.Other) != 0 {
		t.Errorf("Other = %v, want none", f.Other)
	}
}

func TestParseStatsForm(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shape  statsShape
		values int
	}{
		{"plain 5v5", plain5v5, 1040},
		{"long match", longMatch, 4496},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.shape.values() != tc.values {
				t.Fatalf("the generator writes %d values, want %d", tc.shape.values(), tc.values)
			}
			body, sent := statsBody(tc.shape)
			f, err := ParseStatsForm(body, StatsFormLimits{})
			if err != nil {
				t.Fatal(err)
			}
			checkStatsForm(t, tc.shape, f, sent)
		})
	}
}

// TestDecodeStatsFormFromRequest reads a long match as the host reads a
// request, then decodes its Form: the same form as ParseStatsForm's.
func TestDecodeStatsFormFromRequest(t *testing.T) {
	body, sent := statsBody(longMatch)
	var req fasthttp.Request
	req.Header.SetMethod("POST")
	req.SetRequestURI("/stats_requester.php")
	req.Header.SetContentType("application/x-www-form-urlencoded")
	req.SetBody(body)
	ctx := &fasthttp.RequestCtx{}
	ctx.Init(&req, clientAddr, nil)
	r, err := ReadRequest(ctx, Limits{MaxBody: DefaultStatsFormLimits.MaxBytes, MaxFields: DefaultStatsFormLimits.MaxValues})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeStatsForm(r.Form, StatsFormLimits{})
	if err != nil {
		t.Fatal(err)
	}
	checkStatsForm(t, longMatch, got, sent)
	parsed, err := ParseStatsForm(body, StatsFormLimits{})
	if err != nil {
		t.Fatal(err)
	}
	sortStatsLists(got)
	sortStatsLists(parsed)
	if !reflect.DeepEqual(got, parsed) {
		t.Error("DecodeStatsForm and ParseStatsForm differ")
	}
}

// sortStatsLists orders the raw lists by name, as DecodeStatsForm does,
// so that forms decoded by both functions compare equal.
func sortStatsLists(f *StatsForm) {
	for _, list := range [][]StatsValue{f.Items, f.Abilities, f.Frags, f.Other} {
		slices.SortStableFunc(list, func(a, b StatsValue) int { return slices.Compare(a.Path, b.Path) })
	}
}

func TestParseStatsFormManyValuesRefused(t *testing.T) {
	var b strings.Builder
	for i := range 200_000 {
		fmt.Fprintf(&b, "frags[%d][secs]=%d&", i, i)
	}
	_, err := ParseStatsForm([]byte(b.String()), StatsFormLimits{})
	var fe *FormLimitError
	if !errors.As(err, &fe) || fe.Reason != RefusedTooManyValues || !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v, want a FormLimitError of reason %s", err, RefusedTooManyValues)
	}
	if want := "statistics form refused: more than 20000 values"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}

	// The same through a Request's Form.
	form := Values{}
	for i := range 200_000 {
		form[fmt.Sprintf("frags[%d][secs]", i)] = []string{"1"}
	}
	if _, err := DecodeStatsForm(form, StatsFormLimits{}); !errors.As(err, &fe) || fe.Reason != RefusedTooManyValues {
		t.Fatalf("DecodeStatsForm: err = %v, want reason %s", err, RefusedTooManyValues)
	}
}

func TestParseStatsFormLimitsAreSettings(t *testing.T) {
	body, _ := statsBody(plain5v5)
	for _, tc := range []struct {
		lim    StatsFormLimits
		reason FormRefusal
	}{
		{StatsFormLimits{MaxValues: 1039}, RefusedTooManyValues},
		{StatsFormLimits{MaxBytes: int64(len(body) - 1)}, RefusedTooLarge},
		{StatsFormLimits{MaxDepth: 2}, RefusedTooDeep},
		{StatsFormLimits{MaxKeyLen: 20}, RefusedNameTooLong},
	} {
		_, err := ParseStatsForm(body, tc.lim)
		var fe *FormLimitError
		if !errors.As(err, &fe) || fe.Reason != tc.reason {
			t.Errorf("limits %+v: err = %v, want reason %s", tc.lim, err, tc.reason)
		}
	}
	if _, err := ParseStatsForm(body, StatsFormLimits{MaxValues: 1040, MaxBytes: int64(len(body)), MaxDepth: 3, MaxKeyLen: 64}); err != nil {
		t.Errorf("at exactly its limits: %v", err)
	}
	_, err := ParseStatsForm(body, StatsFormLimits{MaxBytes: 100})
	if !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("too large: err = %v, want ErrBodyTooLarge", err)
	}
}

func TestParseStatsFormRefusals(t *testing.T) {
	tenThousand := "a" + strings.Repeat("[b]", 10_000)
	for _, tc := range []struct {
		name   string
		body   string
		lim    StatsFormLimits
		reason FormRefusal
		msg    string // the whole message
	}{
		{"four levels", "a[b][c][d][e]=1", StatsFormLimits{}, RefusedTooDeep,
			`statistics form refused: field "a[b][c][d][e]": more than 3 levels of brackets`},
		{"player four levels", "player_stats[1][Hero_A][kills][x]=1", StatsFormLimits{}, RefusedTooDeep, ""},
		{"ten thousand brackets", tenThousand + "=1", StatsFormLimits{}, RefusedNameTooLong,
			`statistics form refused: field "a[b][b][b][b][b][b][b][b][b][b][...": the name is longer than 256 bytes`},
		{"ten thousand brackets, long names allowed", tenThousand + "=1", StatsFormLimits{MaxKeyLen: 1 << 20}, RefusedTooDeep, ""},
		{"ten thousand escaped brackets", strings.ReplaceAll(strings.ReplaceAll(tenThousand, "[", "%5B"), "]", "%5D") + "=1", StatsFormLimits{}, RefusedNameTooLong, ""},
		{"ten thousand opening brackets", "a" + strings.Repeat("[", 10_000) + "=1", StatsFormLimits{MaxKeyLen: 1 << 20}, RefusedBadName, ""},
		{"unclosed", "match_stats[map=1", StatsFormLimits{}, RefusedBadName,
			`statistics form refused: field "match_stats[map": an opening bracket without a closing one`},
		{"unopened", "match_stats]map=1", StatsFormLimits{}, RefusedBadName, ""},
		{"text after", "match_stats[map]x=1", StatsFormLimits{}, RefusedBadName, ""},
		{"nested", "match_stats[a[b]]=1", StatsFormLimits{}, RefusedBadName, ""},
		{"no base", "[a]=1", StatsFormLimits{}, RefusedBadName, ""},
		{"control", "match_stats[a%00]=1", StatsFormLimits{}, RefusedBadName, ""},
		{"invalid UTF-8 name", "match_stats[%FF]=1", StatsFormLimits{}, RefusedBadEncoding,
			`statistics form refused: field "match_stats[�]": the name is not valid UTF-8`},
		{"invalid UTF-8 value", "match_stats[map]=%C3%28", StatsFormLimits{}, RefusedBadEncoding, ""},
		{"broken escape name", "match_stats[%zz]=1", StatsFormLimits{}, RefusedBadEncoding, ""},
		{"broken escape value", "match_stats[map]=%4", StatsFormLimits{}, RefusedBadEncoding, ""},
		{"match scalar", "match_stats=1", StatsFormLimits{}, RefusedBadShape,
			`statistics form refused: field "match_stats": expected match_stats[<field>]`},
		{"match deep", "match_stats[a][b]=1", StatsFormLimits{}, RefusedBadShape, ""},
		{"match append", "match_stats[]=1", StatsFormLimits{}, RefusedBadShape, ""},
		{"session array", "session[x]=1", StatsFormLimits{}, RefusedBadShape, ""},
		{"team one level", "team_stats[1]=5", StatsFormLimits{}, RefusedBadShape, ""},
		{"player two levels", "player_stats[1][Hero_A]=5", StatsFormLimits{}, RefusedBadShape, ""},
		{"player empty key", "player_stats[][Hero_A][kills]=5", StatsFormLimits{}, RefusedBadShape, ""},
		{"inventory three levels", "inventory[1][2][3]=x", StatsFormLimits{}, RefusedBadShape, ""},
		{"items plain", "items=x", StatsFormLimits{}, RefusedBadShape, ""},
		{"two heroes", "player_stats[1][Hero_A][kills]=1&player_stats[1][Hero_B][kills]=2", StatsFormLimits{}, RefusedBadShape,
			`statistics form refused: field "player_stats[1][Hero_B][kills]": player "1" is sent with two heroes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseStatsForm([]byte(tc.body), tc.lim)
			var fe *FormLimitError
			if !errors.As(err, &fe) || fe.Reason != tc.reason {
				t.Fatalf("got %v, %v; want reason %s", f, err, tc.reason)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("errors.Is(err, ErrMalformed) is false")
			}
			msg := err.Error()
			if tc.msg != "" && msg != tc.msg {
				t.Errorf("message\n%s\nwant\n%s", msg, tc.msg)
			}
			if strings.Contains(msg, "wire") || len(msg) > 200 {
				t.Errorf("message %q names the package or is long", msg)
			}
		})
	}
}

func TestParseStatsFormKeepsWhatPHPWould(t *testing.T) {
	body := "match_stats[map]=a&match_stats[map]=b" + // the last wins
		"&&" + // empty segments are skipped
		"&x_new[1]=2&plain" + // unknown names are kept whole; a name without '=' is empty
		"&frags[][secs]=3&frags[][secs]=4" + // an append segment is kept, each value too
		"&resubmission_key=k&login=host%3A&pass=p&server_id=7"
	f, err := ParseStatsForm([]byte(body), StatsFormLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Match["map"] != "b" {
		t.Errorf("map = %q, want the last value", f.Match["map"])
	}
	if want := []StatsValue{{Path: []string{"x_new", "1"}, Value: "2"}, {Path: []string{"plain"}, Value: ""}}; !reflect.DeepEqual(f.Other, want) {
		t.Errorf("Other = %v, want %v", f.Other, want)
	}
	if want := []StatsValue{{Path: []string{"", "secs"}, Value: "3"}, {Path: []string{"", "secs"}, Value: "4"}}; !reflect.DeepEqual(f.Frags, want) {
		t.Errorf("Frags = %v, want %v", f.Frags, want)
	}
	if f.Login != "host:" || f.Pass != "p" || f.ResubmissionKey != "k" || f.ServerID != "7" || f.Values != 10 {
		t.Errorf("resubmission fields %q %q %q %q, %d values", f.Login, f.Pass, f.ResubmissionKey, f.ServerID, f.Values)
	}
	if _, err := f.MatchID(); !errors.Is(err, ErrMissingField) {
		t.Errorf("MatchID without match_id: %v", err)
	}
}

func TestStatsFormPlayersSorted(t *testing.T) {
	f, err := ParseStatsForm([]byte("player_stats[x][H][a]=1&player_stats[10][H][a]=1&player_stats[9][H][a]=1&player_stats[-1][H][a]=1"), StatsFormLimits{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, p := range f.Players {
		keys = append(keys, p.Key)
	}
	if want := []string{"-1", "9", "10", "x"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if _, ok := f.Player("10"); !ok {
		t.Error("Player(10) not found")
	}
	if _, ok := f.Player("11"); ok {
		t.Error("Player(11) found")
	}
}

func TestAppendUnescapedAsReadRequest(t *testing.T) {
	for _, raw := range []string{"", "a", "+", "a+b", "%41", "%4a%4A", "%", "%4", "%4g", "%g4", "x%", "x%2", "100%25",
		"%00%FF", "%e2%82%ac", "a%2Bb+c", "++%20"} {
		want, wantErr := unescapeFormText([]byte(raw))
		got, ok := appendUnescaped([]byte("prefix"), []byte(raw))
		if ok != (wantErr == nil) || ok && string(got) != "prefix"+want {
			t.Errorf("%q: %q, %v; ReadRequest decodes %q, %v", raw, got, ok, want, wantErr)
		}
	}
}

// FuzzStatsForm checks that any body is decoded or refused with a
// FormLimitError, never a panic; that a decoded form keeps the limits
// and its invariants; and that ParseStatsForm and DecodeStatsForm (after
// the host's own url-encoded parsing) agree.
func FuzzStatsForm(f *testing.F) {
	body, _ := statsBody(statsShape{players: 2, playerFields: 3, events: 1})
	f.Add(body)
	f.Add([]byte("a[b][c][d][e]=1&match_stats[%FF]=2&x=%C3%28"))
	f.Add([]byte("player_stats[1][H][k]=1&player_stats[1][G][k]=1"))
	f.Add([]byte("a[[[[]]]]=&[=&]=&a[b]c=&%zz&frags[][x]=1&session[]=2"))
	lim := StatsFormLimits{MaxBytes: 1 << 20, MaxValues: 64, MaxDepth: 3, MaxKeyLen: 48}
	f.Fuzz(func(t *testing.T, body []byte) {
		form, err := ParseStatsForm(body, lim)
		if err != nil {
			var fe *FormLimitError
			if !errors.As(err, &fe) || fe.Reason == "" || fe.Detail == "" {
				t.Fatalf("error %v (%T) is not a complete FormLimitError", err, err)
			}
			if strings.Contains(err.Error(), "wire") {
				t.Fatalf("message %q names the package", err)
			}
		} else {
			if form.Values > lim.MaxValues {
				t.Fatalf("%d values accepted, limit %d", form.Values, lim.MaxValues)
			}
			for _, p := range form.Players {
				if p.Key == "" || p.Hero == "" || len(p.Fields) == 0 {
					t.Fatalf("incomplete player %+v", p)
				}
			}
			for _, v := range slices.Concat(form.Items, form.Abilities, form.Frags, form.Other) {
				if len(v.Path) == 0 || len(v.Path) > lim.MaxDepth+1 {
					t.Fatalf("raw value with path %q", v.Path)
				}
			}
		}

		values := Values{}
		fields := 0
		if perr := parseURLEncoded(values, body, &fields, lim.MaxValues); perr != nil {
			return // the host would refuse it before any stats decoding
		}
		decoded, derr := DecodeStatsForm(values, lim)
		if (err == nil) != (derr == nil) {
			t.Fatalf("ParseStatsForm: %v; DecodeStatsForm: %v", err, derr)
		}
		if err == nil {
			sortStatsLists(form)
			sortStatsLists(decoded)
			if !reflect.DeepEqual(form, decoded) {
				t.Fatalf("forms differ:\n%+v\n%+v", form, decoded)
			}
		}
	})
}
