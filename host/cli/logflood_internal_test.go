package cli

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
)

// TestLoggerLimitsFloods (issue 22 item 5): the server's logger lets a few
// lines of a flood through (the storage engine's errors, each naming
// another object; a hung plugin's failed calls), not thousands. Before, all
// of them were written.
func TestLoggerLimitsFloods(t *testing.T) {
	var buf bytes.Buffer
	log := newLogger(config.Default(), &buf, slog.LevelInfo)
	plugin := log.With("plugin", "guides")
	for i := range 2000 {
		log.Error(fmt.Sprintf("background error: open db/%06d.sst: too many open files", i), "component", "pebble")
		plugin.Error("guide request failed", "err", fmt.Sprintf("call %d: context deadline exceeded", i))
	}
	log.Info("still here")
	n := strings.Count(buf.String(), "\n")
	if want := 2*config.Default().Server.LogRepeatLimit + 1; n != want {
		t.Errorf("%d lines for two floods of 2000, want %d", n, want)
	}

	cfg := config.Default()
	cfg.Server.LogRepeatLimit = 0
	buf.Reset()
	log = newLogger(cfg, &buf, slog.LevelInfo)
	for range 100 {
		log.Error("same")
	}
	if n := strings.Count(buf.String(), "\n"); n != 100 {
		t.Errorf("log_repeat_limit = 0: %d lines of 100", n)
	}
}
