package cli

import (
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// TestANodeOfAnotherClusterIsRefused: nodes whose cluster.name differs
// shared one database; now the first node's name is recorded and a node
// of another is refused with a sentence naming both and the setting
// (exit status 2: a configuration mistake).
func TestANodeOfAnotherClusterIsRefused(t *testing.T) {
	pc := config.StoragePostgres{URL: storagetest.PostgresURL(t), MaxConns: 2}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	eu, err := openPostgres(pc, log, "", "eu")
	if err != nil {
		t.Fatal(err)
	}
	defer eu.Close()
	db, err := openPostgres(pc, log, "", "us")
	if err == nil {
		db.Close()
		t.Fatal("a node of cluster us opened cluster eu's database")
	}
	msg := explain(err)
	for _, want := range []string{`belongs to cluster "eu"`, `cluster.name is "us"`, "a database of its own"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if !errors.Is(err, errConfig) || strings.Contains(msg, "storage:") {
		t.Errorf("%q: want a configuration mistake worded for the operator", msg)
	}
}
