package cli

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"testing"
)

// TestRestoreMakesItsRenamesDurable: restore renamed the database in
// place (and wrote the operator token) without syncing the data
// directory, then said "restored": a power loss right after could leave
// no database, and serve would start an empty one. It syncs the data
// directory after them now, and (third review) the parents of the data
// directory it created, whose names were not durable either. (From a
// review of the operator commands; no sync of them before.)
func TestRestoreMakesItsRenamesDurable(t *testing.T) {
	root := t.TempDir()
	data, bk := filepath.Join(root, "data"), filepath.Join(root, "bk")
	ctx := context.Background()
	if code := Main(ctx, []string{"account", "create", "--data", data, "--init", "--login", "keep", "--password", "pw"}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("create: %d", code)
	}
	if code := Main(ctx, []string{"backup", "--data", data, "--to", bk}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("backup: %d", code)
	}
	var synced []string
	old := syncDir
	syncDir = func(dir string) error { synced = append(synced, filepath.Clean(dir)); return old(dir) }
	t.Cleanup(func() { syncDir = old })
	parent := filepath.Join(root, "srv")
	into := filepath.Join(parent, "restored") // neither exists yet
	if code := Main(ctx, []string{"restore", "--from", bk, "--data", into}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("restore: %d", code)
	}
	for _, dir := range []string{into, parent, root} {
		if !slices.Contains(synced, filepath.Clean(dir)) {
			t.Errorf("restore synced %v, not %s (the data directory it renamed the database into, and the directories holding the names it created)", synced, dir)
		}
	}
}
