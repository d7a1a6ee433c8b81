package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/guides"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/plugins/examples/guidesrank"
	bundledguides "github.com/honmaster/masterserver/plugins/guides"
	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/wire"
)

// ownGuide is one guide of the project's own import format.
type ownGuide struct {
	Gid       int      `json:"gid"`
	Hero      string   `json:"hero_cli_name"`
	HeroName  string   `json:"hero_name"`
	Name      string   `json:"guide_name"`
	Author    string   `json:"author_name"`
	Datetime  string   `json:"datetime"`
	Premium   bool     `json:"premium"`
	Start     []string `json:"i_start"`
	Laning    []string `json:"i_laning"`
	Core      []string `json:"i_core"`
	Luxury    []string `json:"i_luxury"`
	Abil      []string `json:"abilQ"`
	Intro     string   `json:"txt_intro"`
	Upvotes   int      `json:"upvotes"`
	Downvotes int      `json:"downvotes"`
}

func guide(gid int, name, author string, premium bool, up, down int) ownGuide {
	return ownGuide{Gid: gid, Hero: "Hero_Parallax", HeroName: "Parallax", Name: name, Author: author,
		Datetime: "2021-05-09T15:18:47Z", Premium: premium, Start: []string{"Item_A", ""}, Laning: []string{"Item_B"},
		Core: []string{"Item_C"}, Luxury: []string{}, Abil: []string{"Ability_Parallax1", "Ability_Parallax2"},
		Intro: "Intro of " + name, Upvotes: up, Downvotes: down}
}

// writeOwn writes guides as an own-format import file.
func writeOwn(t *testing.T, gs ...ownGuide) string {
	t.Helper()
	b, err := json.Marshal(gs)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "guides.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// guideClient calls the guide functions as one logged-in account.
type guideClient struct {
	c       *client.Client
	account string
	cookie  string
}

func loginGuides(t testing.TB, ts *clitest.Server, login string) *guideClient {
	t.Helper()
	s, err := ts.Client.Login(context.Background(), login, "pw")
	if err != nil {
		t.Fatal(err)
	}
	return &guideClient{c: ts.Client, account: s.AccountID, cookie: s.Cookie}
}

// call posts f with the caller's fields and extra form fields; hosttime is
// a distinctive string that every reply must echo.
func (g *guideClient) call(ctx context.Context, f string, kv ...string) (*wire.Array, error) {
	form := url.Values{"f": {f}, "account": {g.account}, "cookie": {g.cookie}, "hosttime": {"0001620573527"}}
	for i := 0; i+1 < len(kv); i += 2 {
		form.Set(kv[i], kv[i+1])
	}
	r, err := g.c.PostForm(ctx, "/client_requester.php", form)
	if err != nil {
		return nil, err
	}
	a, err := r.PHP()
	if err != nil {
		return nil, err
	}
	if h, _ := a.String("hosttime"); h != "0001620573527" {
		return a, fmt.Errorf("%s: hosttime %q, want the echo", f, h)
	}
	return a, nil
}

func (g *guideClient) must(t testing.TB, f string, kv ...string) *wire.Array {
	t.Helper()
	a, err := g.call(context.Background(), f, kv...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// ok checks a success reply of n entries.
func okReply(t testing.TB, a *wire.Array, n int) {
	t.Helper()
	if e, _ := a.String("errors"); e != "" || num(a, "success") != 1 || a.Len() != n {
		t.Fatalf("reply %v: want success with %d entries", a, n)
	}
}

// failReply checks a failure reply with errors text want (5 entries).
func failReply(t testing.TB, a *wire.Array, want string) {
	t.Helper()
	if e, _ := a.String("errors"); e != want || num(a, "success") != 0 || a.Len() != 5 {
		t.Fatalf("reply %v: want the 5-entry failure %q", a, want)
	}
}

// listEntry is one parsed list entry.
type listEntry struct {
	gid                           string
	def, fav, yours, rating, prem string
	name                          string
}

func (g *guideClient) list(t testing.TB, hero string) []listEntry {
	t.Helper()
	a := g.must(t, "get_guide_list_filtered", "hero", hero)
	okReply(t, a, 6)
	s, _ := a.String("guide_list")
	var out []listEntry
	if s == "" {
		return out
	}
	for _, e := range strings.Split(s, "`") {
		f := strings.Split(e, "|")
		if len(f) != 9 {
			t.Fatalf("list entry %q: %d fields, want 9", e, len(f))
		}
		out = append(out, listEntry{gid: f[0], name: f[3], def: f[4], fav: f[5], rating: f[6], yours: f[7], prem: f[8]})
	}
	return out
}

func gids(es []listEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.gid
	}
	return out
}

func wantOrder(t testing.TB, es []listEntry, want ...string) {
	t.Helper()
	if got := gids(es); !slices.Equal(got, want) {
		t.Fatalf("list order %v, want %v", got, want)
	}
}

// TestGuidesEndToEnd exercises every guide function over HTTP on a server
// with imported guides: ordering with premium guides, ratings, a default
// and favorites; set/remove round trips; votes; the probe gid; unknown
// gids; bad cookies; and the operator commands.
func TestGuidesEndToEnd(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits) // its players vote again and again from 127.0.0.1
	for _, l := range []string{"author1", "player"} {
		ts.Host(t, "account", "create", "--login", l, "--password", "pw")
	}
	file := writeOwn(t,
		guide(101, "Good one", "author1", false, 90, 10),
		guide(102, "Featured", "HoNGuides", true, 1, 9),
		guide(103, "Half and half", "x", false, 50, 50),
		guide(104, "A very long guide name that the list must cut", "y", false, 0, 0),
	)
	if out := ts.Host(t, "guides", "import", file); !strings.Contains(out, "4 added, 0 updated") {
		t.Fatalf("import: %q", out)
	}
	if out := ts.Host(t, "guides", "import", file); !strings.Contains(out, "0 added, 4 updated") {
		t.Fatalf("re-import: %q", out)
	}
	p := loginGuides(t, ts, "player")
	a := loginGuides(t, ts, "author1")
	const hero = "Hero_Parallax"

	// Premium first, then by rating; no votes is 0.00; names cut to 36.
	l := p.list(t, hero)
	wantOrder(t, l, "102", "101", "103", "104")
	if l[0].prem != "1" || l[1].rating != "0.90" || l[3].rating != "0.00" || l[3].name != "A very long guide name that the list" {
		t.Errorf("list entries %+v", l)
	}
	if l[1].yours != "not_yours" {
		t.Errorf("player sees %+v as theirs", l[1])
	}
	if al := a.list(t, hero); al[1].gid != "101" || al[1].yours != "is_yours" {
		t.Errorf("author's list %+v: want 101 is_yours", al)
	}

	// The probe gid and an unknown gid.
	failReply(t, p.must(t, "get_guide", "hero", hero, "gid", "99999"), "no_guides_found")
	failReply(t, p.must(t, "get_guide", "hero", hero, "gid", "424242"), "no_guides_found")
	failReply(t, p.must(t, "guide_vote", "gid", "424242", "v", "1"), "no_guides_found")

	// get_guide: 22 entries before a vote.
	g := p.must(t, "get_guide", "hero", hero, "gid", "101")
	okReply(t, g, 22)
	if r, _ := g.String("rating"); r != "0.90" {
		t.Errorf("rating %q", r)
	}
	if th, _ := g.String("thumb"); th != "noVote" {
		t.Errorf("thumb %q", th)
	}

	// Default: set, replace, remove.
	okReply(t, p.must(t, "guide_default_set", "gid", "103"), 6)
	l = p.list(t, hero)
	wantOrder(t, l, "103", "102", "101", "104")
	if l[0].def != "is_def" {
		t.Errorf("default entry %+v", l[0])
	}
	if d := num(p.must(t, "get_guide", "hero", hero, "gid", "103"), "default"); d != 1 {
		t.Errorf("get_guide default = %d", d)
	}
	set := p.must(t, "guide_default_set", "gid", "104")
	if num(set, "set") != 1 {
		t.Errorf("set reply %v", set)
	}
	l = p.list(t, hero)
	wantOrder(t, l, "104", "102", "101", "103")
	if l[3].def != "not_def" {
		t.Errorf("replaced default still marked: %+v", l[3])
	}
	rm := p.must(t, "guide_default_remove", "gid", "104")
	okReply(t, rm, 6)
	if num(rm, "set") != 0 {
		t.Errorf("remove reply %v", rm)
	}
	wantOrder(t, p.list(t, hero), "102", "101", "103", "104")
	// Another account's default is not the player's.
	okReply(t, a.must(t, "guide_default_set", "gid", "104"), 6)
	wantOrder(t, p.list(t, hero), "102", "101", "103", "104")

	// Favorites come right after premium guides.
	okReply(t, p.must(t, "guide_favorite_set", "gid", "104"), 6)
	l = p.list(t, hero)
	wantOrder(t, l, "102", "104", "101", "103")
	if l[1].fav != "is_fav" {
		t.Errorf("favorite entry %+v", l[1])
	}
	if f := num(p.must(t, "get_guide", "hero", hero, "gid", "104"), "favorite"); f != 1 {
		t.Errorf("get_guide favorite = %d", f)
	}
	okReply(t, p.must(t, "guide_favorite_remove", "gid", "104"), 6)
	wantOrder(t, p.list(t, hero), "102", "101", "103", "104")

	// Votes: up, repeated, changed.
	v := p.must(t, "guide_vote", "gid", "104", "v", "1")
	okReply(t, v, 6)
	if num(v, "vote") != 1 {
		t.Errorf("vote reply %v", v)
	}
	g = p.must(t, "get_guide", "hero", hero, "gid", "104")
	okReply(t, g, 23)
	if r, _ := g.String("rating"); r != "1.00" || num(g, "vote") != 1 {
		t.Errorf("after an up vote: %v", g)
	}
	if th, _ := g.String("thumb"); th != "up" {
		t.Errorf("thumb %q", th)
	}
	okReply(t, p.must(t, "guide_vote", "gid", "104", "v", "1"), 6)
	okReply(t, a.must(t, "guide_vote", "gid", "104", "v", "0"), 6)
	if r, _ := p.must(t, "get_guide", "hero", hero, "gid", "104").String("rating"); r != "0.50" {
		t.Errorf("rating after a repeated up and another's down: %q, want 0.50", r)
	}
	okReply(t, p.must(t, "guide_vote", "gid", "104", "v", "0"), 6)
	if r, _ := p.must(t, "get_guide", "hero", hero, "gid", "104").String("rating"); r != "0.00" {
		t.Errorf("rating after the vote changed: %q, want 0.00", r)
	}
	if out := ts.Host(t, "guides", "list", "--hero", hero); !regexp.MustCompile(`(?m)^104\s+Hero_Parallax\s+-\s+-\s+0\s+2\s`).MatchString(out) {
		t.Errorf("guides list:\n%s", out)
	}

	// A bad cookie and another account's id: a clear failure, nothing changed.
	bad := &guideClient{c: ts.Client, account: p.account, cookie: strings.Repeat("0", 32)}
	failReply(t, bad.must(t, "guide_vote", "gid", "101", "v", "0"), "invalid_cookie")
	failReply(t, bad.must(t, "get_guide_list_filtered", "hero", hero), "invalid_cookie")
	wrong := &guideClient{c: ts.Client, account: a.account, cookie: p.cookie}
	failReply(t, wrong.must(t, "guide_default_set", "gid", "101"), "wrong_account")
	if r, _ := p.must(t, "get_guide", "hero", hero, "gid", "101").String("rating"); r != "0.90" {
		t.Errorf("a refused vote changed the rating: %q", r)
	}

	// Operator: hide, unhide, premium.
	ts.Host(t, "guides", "hide", "--gid", "101")
	wantOrder(t, p.list(t, hero), "102", "103", "104")
	failReply(t, p.must(t, "get_guide", "hero", hero, "gid", "101"), "no_guides_found")
	failReply(t, p.must(t, "guide_favorite_set", "gid", "101"), "no_guides_found")
	ts.Host(t, "guides", "unhide", "--gid", "101")
	ts.Host(t, "guides", "premium", "--gid", "103")
	wantOrder(t, p.list(t, hero), "103", "102", "101", "104")
	ts.Host(t, "guides", "premium", "--gid", "103", "--off")
	wantOrder(t, p.list(t, hero), "102", "101", "103", "104")
	if code, _, errOut := ts.Run("guides", "hide", "--gid", "7777"); code == 0 || !strings.Contains(errOut, "no guide with gid 7777") {
		t.Errorf("hide unknown gid: exit %d, %q", code, errOut)
	}
	// A bad import file names its guide and stores nothing.
	badFile := writeOwn(t, guide(105, "Too long intro", "x", false, 0, 0))
	raw, _ := os.ReadFile(badFile)
	os.WriteFile(badFile, []byte(strings.Replace(string(raw), "Intro of Too long intro", strings.Repeat("i", 201), 1)), 0o600)
	if code, _, errOut := ts.Run("guides", "import", badFile); code == 0 || !strings.Contains(errOut, "Too long intro") {
		t.Errorf("bad import: exit %d, %q", code, errOut)
	}
	failReply(t, p.must(t, "get_guide", "hero", hero, "gid", "105"), "no_guides_found")
}

// TestGuidesArchiveImport imports captured get_guide replies: each guide
// shows its archived name, rating and content byte for byte, the author
// who is an account gets is_yours, and re-importing changes nothing.
func TestGuidesArchiveImport(t *testing.T) {
	ts := clitest.Start(t, nil)
	ts.Host(t, "account", "create", "--login", "someone", "--password", "pw")
	file, err := filepath.Abs("../guides/testdata/import_archive.json")
	if err != nil {
		t.Fatal(err)
	}
	ts.Host(t, "guides", "import", file)
	if out := ts.Host(t, "guides", "import", file); !strings.Contains(out, "0 added") {
		t.Fatalf("re-import: %q", out)
	}
	var archive map[string][]map[string]any
	raw, _ := os.ReadFile(file)
	if err := json.Unmarshal(raw, &archive); err != nil {
		t.Fatal(err)
	}
	p := loginGuides(t, ts, "someone")
	l := p.list(t, "Hero_Parallax")
	if len(l) != len(archive["Hero_Parallax"]) {
		t.Fatalf("list %+v", l)
	}
	for _, e := range l {
		g := p.must(t, "get_guide", "hero", "Hero_Parallax", "gid", e.gid)
		okReply(t, g, 22)
		name, _ := g.String("guide_name")
		var want map[string]any
		for _, w := range archive["Hero_Parallax"] {
			if w["guide_name"] == name {
				want = w
			}
		}
		if want == nil {
			t.Fatalf("gid %s: name %q not in the archive", e.gid, name)
		}
		for _, k := range []string{"datetime", "author_name", "rating", "premium", "i_start", "i_laning", "i_core", "i_luxury", "abilQ", "txt_intro"} {
			if got, _ := g.String(k); got != fmt.Sprint(want[k]) {
				t.Errorf("gid %s %s = %q, archived %q", e.gid, k, got, want[k])
			}
		}
		if a, _ := g.String("author_name"); (a == "someone") != (e.yours == "is_yours") {
			t.Errorf("gid %s by %s: %s", e.gid, a, e.yours)
		}
	}
}

// TestGuidesImportLineBreaks imports a captured archive whose descriptions
// break lines with CR LF, as the original service's do, and one guide with
// an escape character: --strict refuses the file and stores nothing; the
// default stores the other guides, lists the refused one with its reason,
// and get_guide serves the CR LF description byte for byte, its PHP
// string length in bytes.
func TestGuidesImportLineBreaks(t *testing.T) {
	ts := clitest.Start(t, nil)
	ts.Host(t, "account", "create", "--login", "reader", "--password", "pw")
	file, err := filepath.Abs("../guides/testdata/import_archive_crlf.json")
	if err != nil {
		t.Fatal(err)
	}
	p := loginGuides(t, ts, "reader")
	if code, _, errOut := ts.Run("guides", "import", file, "--strict"); code == 0 || !strings.Contains(errOut, `"Coloured guide"`) {
		t.Fatalf("strict import: exit %d, %q; want a failure naming the refused guide", code, errOut)
	}
	if l := p.list(t, "Hero_Parallax"); len(l) != 0 {
		t.Fatalf("strict import stored %+v", l)
	}

	out := ts.Host(t, "guides", "import", file)
	for _, want := range []string{"imported 2 guides: 2 added, 0 updated", "refused 1 guides",
		`Hero_Parallax guide 2 ("Coloured guide"): txt_intro holds the control character U+001B`} {
		if !strings.Contains(out, want) {
			t.Fatalf("import output %q lacks %q", out, want)
		}
	}
	l := p.list(t, "Hero_Parallax")
	if len(l) != 1 || l[0].name != "Parallax, step by step" {
		t.Fatalf("list %+v, want the valid guide only", l)
	}
	intro := "Step one: farm.\r\nStep two:\r\n\t- rotate\r\n\t- gank (café break)\r\n"
	r, err := ts.Client.PostForm(context.Background(), "/client_requester.php", url.Values{"f": {"get_guide"}, "account": {p.account},
		"cookie": {p.cookie}, "hosttime": {"1"}, "hero": {"Hero_Parallax"}, "gid": {l[0].gid}})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`s:9:"txt_intro";s:%d:"%s";`, len(intro), intro); !strings.Contains(string(r.Body), want) {
		t.Fatalf("get_guide body %q lacks %q", r.Body, want)
	}
}

// TestGuidesConcurrentVotes: 100 accounts vote on one guide at once; the
// counts are exact, and a repeated vote changes nothing.
func TestGuidesConcurrentVotes(t *testing.T) {
	ts := clitest.Start(t, clitest.LoadTestLimits) // 100 voters from 127.0.0.1
	ts.Host(t, "guides", "import", writeOwn(t, guide(7, "Target", "nobody", false, 10, 0)))
	const n = 100
	cs := make([]*guideClient, n)
	for i := range n {
		ts.Host(t, "account", "create", "--login", fmt.Sprintf("voter%d", i), "--password", "pw")
		cs[i] = loginGuides(t, ts, fmt.Sprintf("voter%d", i))
	}
	voteAll(t, cs)
	up, down := n/2, n-n/2
	want := regexp.MustCompile(fmt.Sprintf(`(?m)^7\s+Hero_Parallax\s+-\s+-\s+%d\s+%d\s`, 10+up, down))
	if out := ts.Host(t, "guides", "list", "--hero", "Hero_Parallax"); !want.MatchString(out) {
		t.Errorf("counts after %d votes:\n%s", n, out)
	}
	voteAll(t, cs) // the same votes again
	if out := ts.Host(t, "guides", "list", "--hero", "Hero_Parallax"); !want.MatchString(out) {
		t.Errorf("counts after repeating every vote:\n%s", out)
	}
}

// voteAll has every client vote on gid 7 at once: even clients up, odd down.
func voteAll(t *testing.T, cs []*guideClient) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := "1"
			if i%2 == 1 {
				v = "0"
			}
			a, err := c.call(ctx, "guide_vote", "gid", "7", "v", v)
			if err != nil {
				t.Errorf("voter %d: %v", i, err)
				return
			}
			if e, _ := a.String("errors"); e != "" {
				t.Errorf("voter %d: %q", i, e)
			}
		}()
	}
	wg.Wait()
}

// TestGuidesSwappablePlugin points the guides area at the reversed-ranking
// example plugin: the list follows its order.
func TestGuidesSwappablePlugin(t *testing.T) {
	ts := clitest.Start(t, func(c *config.Config) {
		p := c.Plugins[string(guidesapi.Area)]
		p.Path, p.Args = os.Args[0], []string{"-test.run=^$"}
		p.Env = []string{pluginRoleEnv + "=guidesrank", "GORACE=atexit_sleep_ms=0"}
		p.StartTimeout = config.Duration{Duration: 30 * time.Second}
		c.Plugins[string(guidesapi.Area)] = p
	})
	if st, _ := ts.Runtime.App.Plugins.Status(guidesapi.Area); st.Plugin != guidesrank.Name {
		t.Fatalf("guides plugin = %+v, want the example", st)
	}
	ts.Host(t, "account", "create", "--login", "player", "--password", "pw")
	ts.Host(t, "guides", "import", writeOwn(t,
		guide(101, "Good one", "a", false, 90, 10),
		guide(102, "Featured", "b", true, 1, 9),
		guide(103, "Half and half", "c", false, 50, 50),
	))
	p := loginGuides(t, ts, "player")
	wantOrder(t, p.list(t, "Hero_Parallax"), "103", "101", "102")
}

// TestGuidesDemo: serve --demo seeds guides for the demo heroes, one
// premium guide per hero listed first and one of the demo account's.
func TestGuidesDemo(t *testing.T) {
	ts := clitest.StartDemo(t, nil)
	s, err := ts.Client.Login(context.Background(), "demo", "demo-pass")
	if err != nil {
		t.Fatal(err)
	}
	p := &guideClient{c: ts.Client, account: s.AccountID, cookie: s.Cookie}
	for _, hero := range []string{"Hero_Pyromancer", "Hero_Devourer", "Hero_Hammerstorm"} {
		l := p.list(t, hero)
		if len(l) < 3 || l[0].prem != "1" {
			t.Fatalf("%s: %+v, want a premium guide first", hero, l)
		}
		premium, yours := 0, 0
		for _, e := range l {
			if e.prem == "1" {
				premium++
			}
			if e.yours == "is_yours" {
				yours++
			}
		}
		if premium != 1 || yours != 1 {
			t.Errorf("%s: %d premium, %d of the demo account's: %+v", hero, premium, yours, l)
		}
	}
}

// TestGuidesVotesSurviveKill9: 100 accounts vote at once on the built
// server, which is then killed with SIGKILL; after a restart the counts
// (rebuilt from the accounts' vote records) are exact, read both by the
// operator command and over HTTP.
func TestGuidesVotesSurviveKill9(t *testing.T) {
	bin := buildHost(t)
	data := t.TempDir()
	cmd, addr := startHost(t, bin, data)
	runHost(t, bin, "guides", "import", "--data", data, writeOwn(t, guide(7, "Target", "nobody", false, 0, 0)))
	const n = 100
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				runHost(t, bin, "account", "create", "--data", data, "--login", fmt.Sprintf("voter%d", i), "--password", "pw")
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	c := client.New("http://" + addr)
	defer c.HTTP.CloseIdleConnections()
	cs := make([]*guideClient, n)
	for i := range n {
		s, err := c.Login(context.Background(), fmt.Sprintf("voter%d", i), "pw")
		if err != nil {
			t.Fatal(err)
		}
		cs[i] = &guideClient{c: c, account: s.AccountID, cookie: s.Cookie}
	}
	voteAll(t, cs)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	want := regexp.MustCompile(fmt.Sprintf(`(?m)^7\s+Hero_Parallax\s+-\s+-\s+%d\s+%d\s`, n/2, n-n/2))
	if out := runHost(t, bin, "guides", "list", "--data", data, "--hero", "Hero_Parallax"); !want.MatchString(out) {
		t.Errorf("counts after kill -9 (server stopped):\n%s", out)
	}
	_, addr = startHost(t, bin, data)
	c2 := client.New("http://" + addr)
	defer c2.HTTP.CloseIdleConnections()
	s, err := c2.Login(context.Background(), "voter0", "pw")
	if err != nil {
		t.Fatal(err)
	}
	p := &guideClient{c: c2, account: s.AccountID, cookie: s.Cookie}
	g := p.must(t, "get_guide", "hero", "Hero_Parallax", "gid", "7")
	if r, _ := g.String("rating"); r != "0.50" || num(g, "vote") != 1 {
		t.Errorf("after restart: %v, want rating 0.50 and voter0's up vote", g)
	}
	if out := runHost(t, bin, "guides", "list", "--data", data, "--hero", "Hero_Parallax"); !want.MatchString(out) {
		t.Errorf("counts after restart (through the server):\n%s", out)
	}
}

// strictGuidesPlugin breaks the ranking contract (it lists its first
// candidate twice) and refuses authors' votes on their own guides.
func strictGuidesPlugin() *sdk.Plugin {
	return bundledguides.RulesPlugin("strict",
		func(f bundledguides.RankFacts) bundledguides.RankDecision {
			if len(f.Candidates) == 0 {
				return bundledguides.RankDecision{}
			}
			g := f.Candidates[0].Gid
			return bundledguides.RankDecision{Order: []bundledguides.GuideID{g, g}}
		},
		func(f bundledguides.VoteFacts) bundledguides.VoteDecision {
			return bundledguides.VoteDecision{Counts: f.Author == 0 || f.Author != f.Account}
		})
}

// TestGuidesPluginDecisionsChecked: a ranking that breaks the contract is
// refused (guides_unavailable), never repaired; a vote the plugin does not
// count is refused (vote_refused) and changes nothing.
func TestGuidesPluginDecisionsChecked(t *testing.T) {
	ts := clitest.Start(t, func(c *config.Config) {
		p := c.Plugins[string(guidesapi.Area)]
		p.Path, p.Args = os.Args[0], []string{"-test.run=^$"}
		p.Env = []string{pluginRoleEnv + "=guidesstrict", "GORACE=atexit_sleep_ms=0"}
		p.StartTimeout = config.Duration{Duration: 30 * time.Second}
		c.Plugins[string(guidesapi.Area)] = p
	})
	ts.Host(t, "account", "create", "--login", "author1", "--password", "pw")
	ts.Host(t, "account", "create", "--login", "player", "--password", "pw")
	ts.Host(t, "guides", "import", writeOwn(t, guide(101, "Mine", "author1", false, 3, 1)))
	a, p := loginGuides(t, ts, "author1"), loginGuides(t, ts, "player")
	failReply(t, p.must(t, "get_guide_list_filtered", "hero", "Hero_Parallax"), "guides_unavailable")
	failReply(t, a.must(t, "guide_vote", "gid", "101", "v", "1"), "vote_refused")
	g := a.must(t, "get_guide", "hero", "Hero_Parallax", "gid", "101")
	okReply(t, g, 22) // no vote stored
	if r, _ := g.String("rating"); r != "0.75" {
		t.Errorf("rating after a refused vote: %q, want 0.75", r)
	}
	okReply(t, p.must(t, "guide_vote", "gid", "101", "v", "1"), 6)
	if r, _ := p.must(t, "get_guide", "hero", "Hero_Parallax", "gid", "101").String("rating"); r != "0.80" {
		t.Errorf("rating after a counted vote: %q, want 0.80", r)
	}
}

// TestGuidesYoungVotesWeighLess: the server passes limits.new_account_age
// to the guides area. Twenty accounts made just now (new: the default age
// is a week) vote the 0.95 guide down; it stays above the 0.70 one, with
// its exact rating shown. With new_account_age = 0 the same votes put it
// below.
func TestGuidesYoungVotesWeighLess(t *testing.T) {
	for _, tc := range []struct {
		name string
		age  time.Duration
		want []string
	}{
		{"default age", 168 * time.Hour, []string{"7", "8"}},
		{"no account new", 0, []string{"8", "7"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := clitest.Start(t, func(c *config.Config) {
				clitest.LoadTestLimits(c) // twenty voters from 127.0.0.1
				c.Limits.NewAccountAge = config.Duration{Duration: tc.age}
				set := guides.SettingsOf(c)
				set.RankStaleness = config.Duration{} // every list ranks the current counts
				config.SetSection(c, "guides", set)
			})
			ts.Host(t, "guides", "import", writeOwn(t, guide(7, "Top", "nobody", false, 19, 1), guide(8, "Runner-up", "nobody", false, 14, 6)))
			var last *guideClient
			for i := range 20 {
				ts.Host(t, "account", "create", "--login", fmt.Sprintf("puppet%d", i), "--password", "pw")
				last = loginGuides(t, ts, fmt.Sprintf("puppet%d", i))
				okReply(t, last.must(t, "guide_vote", "gid", "7", "v", "0"), 6)
			}
			l := last.list(t, "Hero_Parallax")
			wantOrder(t, l, tc.want...)
			for _, e := range l {
				if e.gid == "7" && e.rating != "0.48" {
					t.Errorf("guide 7 rated %s in the list, want the exact 0.48 (19 up, 21 down)", e.rating)
				}
			}
			if r, _ := last.must(t, "get_guide", "gid", "7").String("rating"); r != "0.48" {
				t.Errorf("get_guide 7 rated %s, want the exact 0.48", r)
			}
		})
	}
}
