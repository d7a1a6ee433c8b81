package cli

import (
	"context"
	"net/http"

	"github.com/honmaster/masterserver/host/guides"
	"github.com/honmaster/masterserver/host/operator"
)

func mountAccountAPI(op interface {
	HandleAPI(string, http.Handler)
}, app *App) {
	op.HandleAPI("DELETE "+operator.PathAccount, apiHandler(func(ctx context.Context, r *http.Request) (any, error) {
		out, err := deleteAccount(ctx, app, r.FormValue("login"))
		if err != nil {
			return nil, err
		}
		return out, nil
	}))
	op.HandleAPI("GET "+operator.PathGuides, apiHandler(func(ctx context.Context, r *http.Request) (any, error) {
		gs, err := guides.LoadGuides(app.DB, r.FormValue("hero"))
		if err != nil {
			return nil, err
		}
		t, err := app.GuideTally()
		if err != nil {
			return nil, err
		}
		out := make([]operator.GuideCounts, 0, len(gs))
		for i := range gs {
			g := &gs[i]
			c, p := t.Counts(g), t.Derived(g.Gid)
			out = append(out, operator.GuideCounts{Gid: uint32(g.Gid), Hero: g.Hero, Name: g.Name, Hidden: g.Hidden,
				Up: c.Up, Down: c.Down, PlayersUp: p.Up, PlayersDown: p.Down})
		}
		return out, nil
	}))
}
