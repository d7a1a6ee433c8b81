package guides

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/host/limit"
	bundled "github.com/honmaster/masterserver/plugins/guides"
	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
)

// The area registers itself with the host (host/area): its bundled
// plugin, its routes, its console page (/console/guides: import, the
// heroes' guides with their counts, hide and premium), the operator API's
// GET /api/guides, its demo guides, and its operator commands ("honmaster
// guides import|list|hide|unhide|premium"). Its settings are the [guides]
// table (Settings) and the vote and mark limits of [limits], which a
// reload puts in force at once.
func init() {
	area.Register(area.Module{Area: guidesapi.Area, Bundled: bundled.Plugin, Start: start, Demo: demo,
		LiveSettings: []string{"limits.guide_votes_per_address", "limits.guide_votes_per_guide_address",
			"limits.toggles_per_account", "limits.toggles_per_address"},
		Commands: []area.Command{
			{Name: "guides import", Usage: "FILE [--strict] (own JSON array or captured get_guide replies, see docs/areas.md; --strict: refuse the file if any guide is refused)",
				Flags: func(fs *flag.FlagSet) area.CommandRequest {
					r := &importRequest{}
					fs.BoolVar(&r.Strict, "strict", false, "refuse the whole file, importing nothing, if any guide of it is refused")
					return r
				}},
			{Name: "guides list", Usage: "[--hero Hero_X] (guides with flags and counts; all heroes without --hero)",
				Flags: func(fs *flag.FlagSet) area.CommandRequest {
					r := &listRequest{}
					fs.StringVar(&r.Hero, "hero", "", "hero CLI name, e.g. Hero_Pyromancer")
					return r
				}},
			{Name: "guides hide", Usage: "--gid N", Flags: hideFlags(true)},
			{Name: "guides unhide", Usage: "--gid N", Flags: hideFlags(false)},
			{Name: "guides premium", Usage: "--gid N [--off]", Flags: premiumFlags},
		}})
}

// VoteBudgetOf is the per-address vote budget of [limits].
func VoteBudgetOf(l config.Limits) VoteBudget {
	return VoteBudget{PerAddress: limit.Rate{Burst: l.GuideVotesAddress.Burst, Every: l.GuideVotesAddress.Every.Duration},
		PerGuideAddress: limit.Rate{Burst: l.GuideVotesGuideAddress.Burst, Every: l.GuideVotesGuideAddress.Every.Duration},
		Keys:            l.TrackedKeys}
}

func start(e area.Env) (*area.Live, error) {
	c, set := e.Config, SettingsOf(e.Config)
	s, err := NewService(Deps{Sys: e.Sys, Login: e.Login, Decider: e.Plugin, Log: e.Log,
		RankReuse: RankReuse{Staleness: set.RankStaleness.Duration, Entries: set.RankCacheEntries},
		Votes:     VoteBudgetOf(c.Limits), Marks: area.Toggles(c.Limits), NewAccountAge: c.Limits.NewAccountAge.Duration})
	if err != nil {
		return nil, err
	}
	tally := s.Tally()
	p := &page{sys: e.Sys, log: e.Log.With("area", string(guidesapi.Area)), tally: tally}
	live := &area.Live{Routes: s.Routes(), Value: tally,
		Reload: func(c *config.Config) {
			s.SetVoteBudget(VoteBudgetOf(c.Limits))
			s.SetMarkBudget(area.Toggles(c.Limits))
		},
		Pages: []consolepage.Page{{Path: "/console/guides", Title: "Guides", Handler: http.HandlerFunc(p.show),
			Routes: map[string]http.Handler{
				"POST /console/guides/import":   http.HandlerFunc(p.importFile),
				"POST /console/guides/moderate": http.HandlerFunc(p.moderate),
			}}},
		API:       map[string]area.APIHandler{"GET " + PathOperatorAPI: p.apiGuides},
		APIFields: map[string]area.APIFields{"GET " + PathOperatorAPI: {Names: []string{"hero"}}}}
	if e.Cluster {
		// Votes cast on other nodes reach this node's counts here.
		live.Sync = func() error { _, err := ResyncTally(tally, e.Sys.DB()); return err }
	}
	return live, nil
}

// demo stores the demo guides that are not stored yet.
func demo(ctx context.Context, e area.CommandEnv) error {
	_, err := Seed(ctx, e.Sys, DemoGuides())
	return err
}

// tallyOf is the players' vote counts: the serving area's live ones, else
// rebuilt from the vote records (a scan of every account's votes; both
// agree, see Tally).
func tallyOf(e area.CommandEnv) (*Tally, error) {
	if t, ok := e.Live.(*Tally); ok {
		return t, nil
	}
	return LoadTally(e.Sys.DB())
}

// importRequest is "guides import FILE [--strict]", read by whichever
// process runs the request.
type importRequest struct {
	area.FileArg
	Strict bool `json:"strict,omitempty"`
}

func (r *importRequest) Validate() error { return r.Check("guides import") }

// Run succeeds when the file's valid guides were stored, refused ones or
// not (they are listed after the count); it fails, storing nothing, when
// the file is unreadable, when every guide is refused, or with Strict when
// any is.
func (r *importRequest) Run(ctx context.Context, e area.CommandEnv, out io.Writer) error {
	f, err := r.Open("guide file")
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("cannot read the guide file: %v", err)}
	}
	res, err := Import(ctx, e.Sys, data, ImportOptions{Strict: r.Strict})
	if errors.Is(err, ErrImport) {
		return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("guide file %s is not valid, nothing imported:\n%s", r.File, err)}
	} else if err != nil {
		return err
	}
	fmt.Fprintf(out, "imported %d guides: %d added, %d updated\n", res.Added+res.Updated, res.Added, res.Updated)
	if len(res.Refused) > 0 {
		fmt.Fprintf(out, "refused %d guides, not imported (fix them and import the file again; --strict refuses the whole file):\n", len(res.Refused))
		for _, e := range res.Refused {
			fmt.Fprintf(out, "  %s\n", e)
		}
	}
	return nil
}

// listRequest is "guides list [--hero H]".
type listRequest struct {
	Hero string `json:"hero,omitempty"`
}

func (*listRequest) Validate() error { return nil }

func (r *listRequest) Run(_ context.Context, e area.CommandEnv, out io.Writer) error {
	gs, err := LoadGuides(e.Sys.DB(), r.Hero)
	if err != nil {
		return err
	}
	t, err := tallyOf(e)
	if err != nil {
		return err
	}
	if len(gs) == 0 {
		fmt.Fprintln(out, "no guides")
		return nil
	}
	return WriteGuideTable(out, gs, t)
}

// gid is the --gid of a moderation command: the flag's text, checked by
// Validate, and the id that travels to the server.
type gid struct {
	text string // as typed; "" over the admin socket
	Gid  uint32 `json:"gid"`
}

func (g *gid) flags(fs *flag.FlagSet) {
	fs.StringVar(&g.text, "gid", "", "guide id (see guides list)")
}

func (g *gid) Validate() error {
	if g.text != "" {
		n, err := strconv.ParseUint(g.text, 10, 32)
		if err != nil || n == 0 {
			return fmt.Errorf("--gid %q: want a guide id (a number from 'honmaster guides list')", g.text)
		}
		g.Gid = uint32(n)
	}
	if g.Gid == 0 {
		return errors.New("--gid is required (see 'honmaster guides list')")
	}
	return nil
}

// moderate changes the guide's flags (nil: unchanged) and says what it
// did.
func (g *gid) moderate(ctx context.Context, e area.CommandEnv, out io.Writer, hidden, premium *bool) error {
	id := GuideID(g.Gid)
	gd, err := Moderate(ctx, e.Sys, id, hidden, premium)
	if ReasonOf(err) == ReasonNotFound {
		return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("no guide with gid %d (see 'honmaster guides list')", id)}
	} else if err != nil {
		return err
	}
	if hidden != nil {
		fmt.Fprintf(out, "guide %d (%s, %q): hidden=%t\n", gd.Gid, gd.Hero, gd.Name, gd.Hidden)
	} else {
		fmt.Fprintf(out, "guide %d (%s, %q): premium=%t\n", gd.Gid, gd.Hero, gd.Name, gd.Premium)
	}
	return nil
}

// hideRequest is "guides hide --gid N" (hide) or "guides unhide --gid N".
type hideRequest struct {
	gid
	hide bool // the command's, not the request's: the two commands carry the same fields
}

func hideFlags(hide bool) func(*flag.FlagSet) area.CommandRequest {
	return func(fs *flag.FlagSet) area.CommandRequest {
		r := &hideRequest{hide: hide}
		r.flags(fs)
		return r
	}
}

func (r *hideRequest) Run(ctx context.Context, e area.CommandEnv, out io.Writer) error {
	return r.moderate(ctx, e, out, new(r.hide), nil)
}

// premiumRequest is "guides premium --gid N [--off]".
type premiumRequest struct {
	gid
	Premium bool `json:"premium"`
}

func premiumFlags(fs *flag.FlagSet) area.CommandRequest {
	r := &premiumRequest{Premium: true}
	r.flags(fs)
	fs.Var(offFlag{&r.Premium}, "off", "remove the premium mark")
	return r
}

func (r *premiumRequest) Run(ctx context.Context, e area.CommandEnv, out io.Writer) error {
	return r.moderate(ctx, e, out, nil, new(r.Premium))
}

// offFlag is --off: it clears the flag it points to.
type offFlag struct{ p *bool }

func (o offFlag) String() string   { return "false" }
func (o offFlag) IsBoolFlag() bool { return true }
func (o offFlag) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*o.p = !on
	return nil
}

// page is the area's console page: import, list and moderate hero guides
// with the functions of the "honmaster guides" commands.
type page struct {
	sys   *actors.System
	log   *slog.Logger
	tally *Tally
}

//go:embed templates/guides.html
var templates embed.FS

var pageTemplate = template.Must(template.ParseFS(templates, "templates/guides.html"))

// pageTimeout bounds one page's work.
const pageTimeout = 10 * time.Second

type heroRow struct {
	Hero          string
	Guides        int
	Hidden, Prime int
}

type guideRow struct {
	Gid                  GuideID
	Name, Author         string
	Premium, Hidden      bool
	Up, Down             uint32
	ImpUp, ImpDown       uint32
	Rating, Edited, Hero string
}

type pageData struct {
	CSRF   template.HTML
	Hero   string
	Heroes []heroRow
	Rows   []guideRow
}

// pageError shows err above the page, worded for the operator.
func (p *page) pageError(r *http.Request, err error) {
	p.log.Error("console: guides page", "err", err)
	q := r.URL.Query()
	q.Set("error", "the guides could not be read (see the server's log)")
	r.URL.RawQuery = q.Encode()
}

func (p *page) show(w http.ResponseWriter, r *http.Request) {
	hero := r.URL.Query().Get("hero")
	d := pageData{CSRF: consolepage.CSRFField(r), Hero: hero}
	all, err := LoadGuides(p.sys.DB(), "")
	if err != nil {
		p.pageError(r, err)
	}
	by := map[string]*heroRow{}
	for i := range all {
		g := &all[i]
		h := by[g.Hero]
		if h == nil {
			h = &heroRow{Hero: g.Hero}
			by[g.Hero] = h
		}
		h.Guides++
		if g.Hidden {
			h.Hidden++
		}
		if g.Premium {
			h.Prime++
		}
	}
	for _, h := range by {
		d.Heroes = append(d.Heroes, *h)
	}
	slices.SortFunc(d.Heroes, func(a, b heroRow) int { return strings.Compare(a.Hero, b.Hero) })
	if hero != "" {
		for i := range all {
			g := &all[i]
			if g.Hero != hero {
				continue
			}
			n := p.tally.Counts(g)
			d.Rows = append(d.Rows, guideRow{Gid: g.Gid, Hero: g.Hero, Name: g.Name, Author: g.AuthorName, Premium: g.Premium,
				Hidden: g.Hidden, Up: n.Up, Down: n.Down, ImpUp: g.Up, ImpDown: g.Down, Rating: FormatRating(n),
				Edited: FormatDate(g.Edited)})
		}
	}
	title := "Guides"
	if hero != "" {
		title = "Guides of " + hero
	}
	if err := consolepage.RenderTemplate(w, r, title, pageTemplate, d); err != nil {
		p.log.Error("console: guides page", "err", err)
	}
}

// maxGuidesFile bounds an uploaded guides file (the console bounds the
// whole POST body too).
const maxGuidesFile = 4 << 20

func (p *page) importFile(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	f, hdr, err := r.FormFile("guides")
	if err != nil {
		consolepage.Back(w, r, "/console/guides", "", errors.New("choose a guides file (JSON) to import"))
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGuidesFile))
	if err != nil {
		consolepage.Back(w, r, "/console/guides", "", err)
		return
	}
	res, err := Import(ctx, p.sys, data, ImportOptions{})
	if err != nil {
		consolepage.Back(w, r, "/console/guides", "", fmt.Errorf("%s was not imported: %w", hdr.Filename, err))
		return
	}
	to := "/console/guides"
	if len(res.Gids) > 0 {
		if g, err := LoadGuide(p.sys.DB(), res.Gids[0]); err == nil {
			to += "?hero=" + url.QueryEscape(g.Hero)
		}
	}
	notice := fmt.Sprintf("imported %d guides: %d added, %d updated", res.Added+res.Updated, res.Added, res.Updated)
	if len(res.Refused) > 0 {
		// The valid guides are stored; the refused ones are named, as
		// "guides import" lists them. The notice travels in the redirect's
		// URL, so it names a few; the command lists them all.
		names := make([]string, 0, min(len(res.Refused), maxRefusedNamed)+1)
		for _, r := range res.Refused[:min(len(res.Refused), maxRefusedNamed)] {
			names = append(names, r.Error())
		}
		if n := len(res.Refused) - maxRefusedNamed; n > 0 {
			names = append(names, fmt.Sprintf("and %d more (honmaster guides import lists them all)", n))
		}
		notice += fmt.Sprintf("; refused %d: %s", len(res.Refused), strings.Join(names, "; "))
	}
	consolepage.Back(w, r, to, notice, nil)
}

// maxRefusedNamed is how many refused guides an import's notice names.
const maxRefusedNamed = 5

// moderate hides, unhides or marks one guide premium: form fields gid,
// and "hidden" or "premium" set to 1 or 0.
func (p *page) moderate(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	to := "/console/guides?hero=" + url.QueryEscape(r.PostFormValue("hero"))
	n, err := strconv.ParseUint(r.PostFormValue("gid"), 10, 32)
	if err != nil || n == 0 {
		consolepage.Back(w, r, to, "", errors.New("no guide chosen"))
		return
	}
	gid := GuideID(n)
	flag := func(name string) *bool {
		v := r.PostFormValue(name)
		if v == "" {
			return nil
		}
		return new(v == "1")
	}
	hidden, premium := flag("hidden"), flag("premium")
	if hidden == nil && premium == nil {
		consolepage.Back(w, r, to, "", errors.New("nothing to change"))
		return
	}
	g, err := Moderate(ctx, p.sys, gid, hidden, premium)
	if err != nil {
		if ReasonOf(err) == ReasonNotFound {
			err = fmt.Errorf("no guide with gid %d", gid)
		}
		consolepage.Back(w, r, to, "", err)
		return
	}
	p.log.Info("console guide changed", "operator", consolepage.Operator(r), "gid", g.Gid, "hidden", g.Hidden, "premium", g.Premium)
	consolepage.Back(w, r, to, fmt.Sprintf("guide %d (%q): hidden %t, premium %t", g.Gid, g.Name, g.Hidden, g.Premium), nil)
}

// apiGuides is GET /api/guides[?hero=H]: the guides with their counts.
func (p *page) apiGuides(_ context.Context, r *http.Request) (any, error) {
	gs, err := LoadGuides(p.sys.DB(), r.FormValue("hero"))
	if err != nil {
		return nil, err
	}
	out := make([]APIGuide, 0, len(gs))
	for i := range gs {
		g := &gs[i]
		c, d := p.tally.Counts(g), p.tally.Derived(g.Gid)
		out = append(out, APIGuide{Gid: uint32(g.Gid), Hero: g.Hero, Name: g.Name, Hidden: g.Hidden,
			Up: c.Up, Down: c.Down, PlayersUp: d.Up, PlayersDown: d.Down})
	}
	return out, nil
}
