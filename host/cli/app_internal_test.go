package cli

import (
	"io"
	"log/slog"
	"testing"

	"github.com/honmaster/masterserver/config"
)

// openTestApp opens an App with the default configuration over a fresh data
// directory, closed when the test ends (in-package tests; other packages
// use clitest.OpenApp).
func openTestApp(t *testing.T) *App {
	t.Helper()
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	app, err := OpenApp(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	return app
}
