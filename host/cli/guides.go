package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/guides"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// The guides area's routes, operator commands and demo seed.

func guidesRoutes(app *App, decider sdk.Caller) ([]server.Route, error) {
	s, err := guides.NewService(guides.Deps{Sys: app.Sys, Login: app.Login, Decider: decider, Log: app.Log,
		RankReuse: guides.RankReuse{Staleness: app.Cfg.Guides.RankStaleness.Duration, Entries: app.Cfg.Guides.RankCacheEntries},
		Votes:     voteBudget(app.Cfg.Limits), NewAccountAge: app.Cfg.Limits.NewAccountAge.Duration})
	if err != nil {
		return nil, err
	}
	app.guideTally.Store(s.Tally())
	app.guidesService = s
	return s.Routes(), nil
}

func init() {
	ops = append(ops,
		op{name: "guides import", usage: "FILE [--strict] (own JSON array or captured get_guide replies, see docs/areas.md; --strict: refuse the file if any guide is refused)",
			parse: parseGuidesImport, empty: func() Request { return new(GuidesImportRequest) }},
		op{name: "guides list", usage: "[--hero Hero_X] (guides with flags and counts; all heroes without --hero)",
			parse: parseGuidesList, empty: func() Request { return new(GuidesListRequest) }},
		op{name: "guides hide", usage: "--gid N",
			parse: parseGuideHide(true), empty: func() Request { return &GuideHideRequest{Hidden: true} }},
		op{name: "guides unhide", usage: "--gid N",
			parse: parseGuideHide(false), empty: func() Request { return &GuideHideRequest{} }},
		op{name: "guides premium", usage: "--gid N [--off]",
			parse: parseGuidePremium, empty: func() Request { return new(GuidePremiumRequest) }},
	)
}

// seedDemoGuides stores the demo guides that are not stored yet.
func seedDemoGuides(ctx context.Context, app *App) error {
	_, err := guides.Seed(ctx, app.Sys, guides.DemoGuides())
	return err
}

// GuidesImportRequest imports the guides of File (an absolute path, read
// by whichever process runs the request): its valid guides, listing the
// refused ones, or with Strict nothing when any guide is refused.
type GuidesImportRequest struct {
	File   string `json:"file"`
	Strict bool   `json:"strict,omitempty"`
}

func (*GuidesImportRequest) Op() string { return "guides import" }

func (r *GuidesImportRequest) Validate() error { return needFile("guides import", r.File) }

// Run exits 0 when the file's valid guides were stored, refused ones or
// not (they are listed after the count); it fails, storing nothing, when
// the file is unreadable, when every guide is refused, or with Strict when
// any is.
func (r *GuidesImportRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	data, err := os.ReadFile(r.File)
	if err != nil {
		return &opError{cause: err, msg: fmt.Sprintf("cannot read the guide file: %v", unwrapPath(err))}
	}
	res, err := guides.Import(ctx, app.Sys, data, guides.ImportOptions{Strict: r.Strict})
	if errors.Is(err, guides.ErrImport) {
		return &opError{cause: err, msg: fmt.Sprintf("guide file %s is not valid, nothing imported:\n%s", r.File, err)}
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

func parseGuidesImport(args []string) (Request, error) {
	fs := newFlags("guides import", nil)
	var r GuidesImportRequest
	fs.BoolVar(&r.Strict, "strict", false, "refuse the whole file, importing nothing, if any guide of it is refused")
	// The file may come before or after --strict.
	var files []string
	for {
		if err := parseWithArgs(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		files, args = append(files, fs.Arg(0)), fs.Args()[1:]
	}
	if len(files) != 1 {
		return nil, usageError("guides import FILE: give one file")
	}
	file, err := absPath(files[0])
	if err != nil {
		return nil, err
	}
	r.File = file
	return checked(&r)
}

// GuidesListRequest lists the guides of Hero (every hero's when empty),
// with their flags and counts.
type GuidesListRequest struct {
	Hero string `json:"hero,omitempty"`
}

func (*GuidesListRequest) Op() string { return "guides list" }

func (*GuidesListRequest) Validate() error { return nil }

func (r *GuidesListRequest) Run(_ context.Context, app *App, out io.Writer) error {
	gs, err := guides.LoadGuides(app.DB, r.Hero)
	if err != nil {
		return err
	}
	t, err := app.GuideTally()
	if err != nil {
		return err
	}
	if len(gs) == 0 {
		fmt.Fprintln(out, "no guides")
		return nil
	}
	return guides.WriteGuideTable(out, gs, t)
}

func parseGuidesList(args []string) (Request, error) {
	fs := newFlags("guides list", nil)
	var r GuidesListRequest
	fs.StringVar(&r.Hero, "hero", "", "hero CLI name, e.g. Hero_Pyromancer")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	return checked(&r)
}

// gidFlag parses --gid.
func gidFlag(s string) (uint32, error) {
	if s == "" {
		return 0, usageError("--gid is required (see '%s guides list')", Name)
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 0 {
		return 0, usageError("--gid %q: want a guide id (a number from '%s guides list')", s, Name)
	}
	return uint32(n), nil
}

// GuideHideRequest hides the guide Gid from players (Hidden) or shows it
// again: the commands "guides hide" and "guides unhide".
type GuideHideRequest struct {
	Gid    uint32 `json:"gid"`
	Hidden bool   `json:"hidden"`
}

func (r *GuideHideRequest) Op() string {
	if r.Hidden {
		return "guides hide"
	}
	return "guides unhide"
}

func (r *GuideHideRequest) Validate() error { return needGid(r.Gid) }

func (r *GuideHideRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	gid := guides.GuideID(r.Gid)
	g, err := guides.Moderate(ctx, app.Sys, gid, &r.Hidden, nil)
	if err != nil {
		return guideOpError(gid, err)
	}
	fmt.Fprintf(out, "guide %d (%s, %q): hidden=%t\n", g.Gid, g.Hero, g.Name, g.Hidden)
	return nil
}

func parseGuideHide(hide bool) func([]string) (Request, error) {
	return func(args []string) (Request, error) {
		r := &GuideHideRequest{Hidden: hide}
		fs := newFlags(r.Op(), nil)
		gidText := fs.String("gid", "", "guide id (see guides list)")
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		var err error
		if r.Gid, err = gidFlag(*gidText); err != nil {
			return nil, err
		}
		return checked(r)
	}
}

// GuidePremiumRequest marks the guide Gid premium, or not.
type GuidePremiumRequest struct {
	Gid     uint32 `json:"gid"`
	Premium bool   `json:"premium"`
}

func (*GuidePremiumRequest) Op() string { return "guides premium" }

func (r *GuidePremiumRequest) Validate() error { return needGid(r.Gid) }

func (r *GuidePremiumRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	gid := guides.GuideID(r.Gid)
	g, err := guides.Moderate(ctx, app.Sys, gid, nil, &r.Premium)
	if err != nil {
		return guideOpError(gid, err)
	}
	fmt.Fprintf(out, "guide %d (%s, %q): premium=%t\n", g.Gid, g.Hero, g.Name, g.Premium)
	return nil
}

func parseGuidePremium(args []string) (Request, error) {
	fs := newFlags("guides premium", nil)
	gidText := fs.String("gid", "", "guide id (see guides list)")
	off := fs.Bool("off", false, "remove the premium mark")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	r := &GuidePremiumRequest{Premium: !*off}
	var err error
	if r.Gid, err = gidFlag(*gidText); err != nil {
		return nil, err
	}
	return checked(r)
}

func needGid(gid uint32) error {
	if gid == 0 {
		return usageError("--gid is required (see '%s guides list')", Name)
	}
	return nil
}

// guideOpError names an unknown gid plainly for the operator.
func guideOpError(gid guides.GuideID, err error) error {
	if guides.ReasonOf(err) == guides.ReasonNotFound {
		return &opError{cause: err, msg: fmt.Sprintf("no guide with gid %d (see '%s guides list')", gid, Name)}
	}
	return err
}

// voteBudget is the guides area's per-address vote budget from [limits].
func voteBudget(l config.Limits) guides.VoteBudget {
	return guides.VoteBudget{PerAddress: limit.Rate{Burst: l.GuideVotesAddress.Burst, Every: l.GuideVotesAddress.Every.Duration},
		PerGuideAddress: limit.Rate{Burst: l.GuideVotesGuideAddress.Burst, Every: l.GuideVotesGuideAddress.Every.Duration},
		Keys:            l.TrackedKeys}
}
