// Package cloud provides the cloud storage of client settings.
package cloud

import (
	"context"
	"io"
	"log/slog"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
)

// Deps are what the cloud area needs.
type Deps struct {
	Sys    *actors.System
	Login  *login.Service
	Config config.Cloud
	Log    *slog.Logger
}

// Area serves the cloud storage endpoints.
type Area struct{ d Deps }

// New builds the area, validating its configuration.
func New(d Deps) (*Area, error) { return &Area{d: d}, nil }

// Routes are the paths the area serves.
func (a *Area) Routes() []server.Route { return nil }

// Show prints an account's stored settings readably for operators.
func Show(ctx context.Context, db *storage.DB, loginName, bucket string, out io.Writer) error {
	return nil
}
