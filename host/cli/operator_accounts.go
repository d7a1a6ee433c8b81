package cli

import (
	"context"
	"net/http"

	"github.com/honmaster/masterserver/host/guides"
)

// Operator API paths for deleting accounts and reading guides' counts
// (the load tester removes its accounts and checks its votes with them).
const (
	// DELETE ?login=L: deletes the account and its sub-accounts
	// (accounts.Service.Delete); answers DeletedJSON.
	apiAccountDelete = apiAccount
	// GET [?hero=H]: every stored guide (hidden ones included) with its
	// full counts; answers []GuideCountsJSON in gid order.
	apiGuides = "/operator/v1/guides"
)

// DeletedJSON is the operator API's answer to a deletion.
type DeletedJSON struct {
	Accounts []DeletedAccountJSON `json:"accounts"` // sub-accounts first
	Records  int                  `json:"records"`
}

// DeletedAccountJSON is one deleted account.
type DeletedAccountJSON struct {
	ID      uint32         `json:"id"`
	Login   string         `json:"login"`
	Records int            `json:"records"`
	Counts  map[string]int `json:"counts"` // records by key family or keyspace
}

// GuideCountsJSON is one guide with its counts: imported plus players'.
type GuideCountsJSON struct {
	Gid         uint32 `json:"gid"`
	Hero        string `json:"hero"`
	Name        string `json:"name"`
	Hidden      bool   `json:"hidden"`
	Up          uint32 `json:"up"`
	Down        uint32 `json:"down"`
	PlayersUp   uint32 `json:"players_up"`
	PlayersDown uint32 `json:"players_down"`
}

func mountAccountAPI(op interface {
	HandleAPI(string, http.Handler)
}, app *App) {
	op.HandleAPI("DELETE "+apiAccountDelete, apiHandler(func(ctx context.Context, r *http.Request) (any, error) {
		out, err := deleteAccount(ctx, app, r.FormValue("login"))
		if err != nil {
			return nil, err
		}
		return out, nil
	}))
	op.HandleAPI("GET "+apiGuides, apiHandler(func(ctx context.Context, r *http.Request) (any, error) {
		gs, err := guides.LoadGuides(app.DB, r.FormValue("hero"))
		if err != nil {
			return nil, err
		}
		t, err := app.GuideTally()
		if err != nil {
			return nil, err
		}
		out := make([]GuideCountsJSON, 0, len(gs))
		for i := range gs {
			g := &gs[i]
			c, p := t.Counts(g), t.Derived(g.Gid)
			out = append(out, GuideCountsJSON{Gid: uint32(g.Gid), Hero: g.Hero, Name: g.Name, Hidden: g.Hidden,
				Up: c.Up, Down: c.Down, PlayersUp: p.Up, PlayersDown: p.Down})
		}
		return out, nil
	}))
}
