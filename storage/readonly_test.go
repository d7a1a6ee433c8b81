package storage

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestReadOnlyLeavesTheDirectoryAsItWas: a database opened with
// Options.ReadOnly (storage copy's source, which may be a backup whose
// files restore checks) answers reads, refuses writes, and leaves every
// file of its directory as it was; opened for writing, Pebble rewrote its
// log and manifest.
func TestReadOnlyLeavesTheDirectoryAsItWas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.PutAccount(sampleAccount(1, "keep"), nil)
	b.PutLogin("keep", 1)
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirSums(t, dir)

	ro, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := ro.LoginID("keep"); err != nil || id != 1 {
		t.Errorf("LoginID = %d, %v", id, err)
	}
	w := ro.NewBatch()
	w.PutLogin("other", 2)
	if err := ro.Commit(w); err == nil {
		t.Error("a write to a read-only database succeeded")
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	after := dirSums(t, dir)
	for name, sum := range before {
		if after[name] != sum {
			t.Errorf("%s changed or went", name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s appeared", name)
		}
	}
}

// TestReadOnlyRefusesAnEarlierSchema: migrating writes, so a read-only
// open of a database of an earlier schema is refused (ErrNeedsMigration).
func TestReadOnlyRefusesAnEarlierSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.PutMeta(metaSchema, binary.BigEndian.AppendUint32(nil, SchemaVersion-1))
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(dir, &Options{ReadOnly: true}); !errors.Is(err, ErrNeedsMigration) {
		t.Errorf("read-only open of schema %d: %v, want ErrNeedsMigration", SchemaVersion-1, err)
	}
}

// dirSums maps each file under dir to its SHA-256.
func dirSums(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
