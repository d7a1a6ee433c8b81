package storage

import (
	"errors"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// A commit whose log write fails (ENOSPC, injected with Pebble's errorfs)
// makes Pebble panic. Commit turns that into an uncertain error (the request
// is answered "outcome unknown", not "failed"), reports storage failing, and
// refuses later commits at once instead of hanging on the broken engine.
func TestCommitOnFailingLog(t *testing.T) {
	var failing atomic.Bool
	fs := errorfs.Wrap(vfs.NewMem(), errorfs.InjectorFunc(func(op errorfs.Op) error {
		if failing.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite && strings.HasSuffix(op.Path, ".log") {
			return syscall.ENOSPC
		}
		return nil
	}))
	pdb, err := pebble.Open("db", &pebble.Options{FS: fs, Logger: pebbleLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	db := &DB{eng: &pebbleEngine{db: pdb}}
	db.SetDiskGuard(NewDiskGuard("", 0, nil, nil))
	put := func(name string) error {
		b := db.NewBatch()
		b.PutMeta(name, []byte("v"))
		return db.Commit(b)
	}
	if err := put("a"); err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	err = put("b")
	if !errors.Is(err, ErrCommitUncertain) || !errors.Is(err, ErrEngineFailed) {
		t.Fatalf("commit on a failing log: %v; want uncertain and engine failed", err)
	}
	if db.Health() == nil {
		t.Error("health ok after the engine failed")
	}
	done := make(chan error, 1)
	go func() { done <- put("c") }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrEngineFailed) || errors.Is(err, ErrCommitUncertain) {
			t.Errorf("commit after the failure: %v; want a plain refusal", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("commit after the engine failed hangs")
	}
	if v, err := db.Meta("a"); err != nil || string(v) != "v" {
		t.Errorf("reads after the failure: %q %v", v, err)
	}
}
