package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/honmaster/masterserver/host/guides"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// The guides area's routes, operator commands and demo seed.

func guidesRoutes(app *App, decider sdk.Caller) ([]server.Route, error) {
	s, err := guides.NewService(guides.Deps{Sys: app.Sys, Login: app.Login, Decider: decider, Log: app.Log,
		RankReuse: guides.RankReuse{Staleness: app.Cfg.Guides.RankStaleness.Duration, Entries: app.Cfg.Guides.RankCacheEntries}})
	if err != nil {
		return nil, err
	}
	return s.Routes(), nil
}

func init() {
	ops = append(ops,
		op{name: "guides import", usage: "FILE (own JSON array or captured get_guide replies, see README)", run: opGuidesImport, pathArgs: true},
		op{name: "guides list", usage: "[--hero Hero_X] (guides with flags and counts; all heroes without --hero)", run: opGuidesList},
		op{name: "guides hide", usage: "--gid N", run: opGuidesHide(true)},
		op{name: "guides unhide", usage: "--gid N", run: opGuidesHide(false)},
		op{name: "guides premium", usage: "--gid N [--off]", run: opGuidesPremium},
	)
}

// seedDemoGuides stores the demo guides that are not stored yet.
func seedDemoGuides(ctx context.Context, app *App) error {
	_, err := guides.Seed(ctx, app.Sys, guides.DemoGuides())
	return err
}

func opGuidesImport(ctx context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("guides import", out)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: guides import FILE", errUsage)
	}
	data, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	res, err := guides.Import(ctx, app.Sys, data)
	if err != nil {
		return fmt.Errorf("import %s: %w", fs.Arg(0), err)
	}
	fmt.Fprintf(out, "imported %d guides: %d added, %d updated\n", res.Added+res.Updated, res.Added, res.Updated)
	return nil
}

func opGuidesList(_ context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("guides list", out)
	var hero string
	fs.StringVar(&hero, "hero", "", "hero CLI name, e.g. Hero_Pyromancer")
	if err := parse(fs, args); err != nil {
		return err
	}
	gs, err := guides.LoadGuides(app.DB, hero)
	if err != nil {
		return err
	}
	t, err := guides.LoadTally(app.DB)
	if err != nil {
		return err
	}
	if len(gs) == 0 {
		fmt.Fprintln(out, "no guides")
		return nil
	}
	return guides.WriteGuideTable(out, gs, t)
}

// gidFlag parses --gid.
func gidFlag(s string) (guides.GuideID, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%w: --gid %q: want a guide id", errUsage, s)
	}
	return guides.GuideID(n), nil
}

func opGuidesHide(hide bool) func(context.Context, *App, []string, io.Writer) error {
	name := map[bool]string{true: "guides hide", false: "guides unhide"}[hide]
	return func(ctx context.Context, app *App, args []string, out io.Writer) error {
		fs := newFlags(name, out)
		gidText := fs.String("gid", "", "guide id")
		if err := parse(fs, args); err != nil {
			return err
		}
		gid, err := gidFlag(*gidText)
		if err != nil {
			return err
		}
		g, err := guides.Moderate(ctx, app.Sys, gid, &hide, nil)
		if err != nil {
			return guideOpError(gid, err)
		}
		fmt.Fprintf(out, "guide %d (%s, %q): hidden=%t\n", g.Gid, g.Hero, g.Name, g.Hidden)
		return nil
	}
}

func opGuidesPremium(ctx context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("guides premium", out)
	gidText := fs.String("gid", "", "guide id")
	off := fs.Bool("off", false, "remove the premium mark")
	if err := parse(fs, args); err != nil {
		return err
	}
	gid, err := gidFlag(*gidText)
	if err != nil {
		return err
	}
	on := !*off
	g, err := guides.Moderate(ctx, app.Sys, gid, nil, &on)
	if err != nil {
		return guideOpError(gid, err)
	}
	fmt.Fprintf(out, "guide %d (%s, %q): premium=%t\n", g.Gid, g.Hero, g.Name, g.Premium)
	return nil
}

// guideOpError names an unknown gid plainly for the operator.
func guideOpError(gid guides.GuideID, err error) error {
	if guides.ReasonOf(err) == guides.ReasonNotFound {
		return fmt.Errorf("no guide with gid %d", gid)
	}
	return err
}
