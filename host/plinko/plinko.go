// Package plinko provides the Plinko prize game and the ticket exchange.
package plinko

import (
	"context"
	"io"
	"log/slog"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// Deps are what the plinko area needs.
type Deps struct {
	Sys     *actors.System
	Login   *login.Service
	Decider sdk.Plinko
	Config  config.Plinko
	Log     *slog.Logger
}

// Area serves the Plinko and ticket exchange endpoints.
type Area struct{ d Deps }

// New builds the area.
func New(d Deps) (*Area, error) { return &Area{d: d}, nil }

// Routes are the paths the area serves.
func (a *Area) Routes() []server.Route { return nil }

// ImportCatalog reads a catalog in the documented JSON format and stores it.
func ImportCatalog(ctx context.Context, sys *actors.System, r io.Reader, out io.Writer) error {
	return nil
}

// DemoCatalog is the synthetic catalog seeded by serve --demo.
func DemoCatalog() *storage.Catalog { return &storage.Catalog{} }
