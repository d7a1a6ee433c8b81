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

// openFailingLog opens a database on Pebble over memory whose log writes
// fail (ENOSPC) once failing is set, with a disk guard.
func openFailingLog(t *testing.T) (*DB, *atomic.Bool) {
	t.Helper()
	failing := new(atomic.Bool)
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
	return db, failing
}

// A commit whose log write fails (ENOSPC, injected with Pebble's errorfs)
// makes Pebble panic. Commit turns that into an uncertain error (the request
// is answered "outcome unknown", not "failed"), reports storage failing, and
// refuses later commits at once instead of hanging on the broken engine.
func TestCommitOnFailingLog(t *testing.T) {
	db, failing := openFailingLog(t)
	put := func(name string) error {
		b := db.NewBatch()
		b.PutMeta(name, []byte("v"))
		return db.Commit(b)
	}
	if err := put("a"); err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	err := put("b")
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

// TestCountCommitOnFailingLog: a batch whose only conditions are kept
// counts commits by another path (applied under the counts' lock, its
// sync awaited after): when its log cannot be synced, the engine is
// marked failed as on the plain path, and later commits are refused with
// nothing applied. Before, the sync's error came back alone: the guard
// never learnt of it, and every later count commit was applied in memory
// and answered "uncertain".
func TestCountCommitOnFailingLog(t *testing.T) {
	db, failing := openFailingLog(t)
	add := func() error {
		b := db.NewBatch()
		AddMember(writerOf{b.ForAccount(1)}, testMembers.At("m"), 1, testSets.At("s"))
		return db.Commit(b)
	}
	if err := add(); err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	if err := add(); !errors.Is(err, ErrCommitUncertain) || !errors.Is(err, ErrEngineFailed) {
		t.Fatalf("count commit on a failing log: %v; want uncertain and engine failed", err)
	}
	if db.Health() == nil {
		t.Error("health ok after the engine failed")
	}
	if err := add(); !errors.Is(err, ErrEngineFailed) || errors.Is(err, ErrCommitUncertain) {
		t.Errorf("count commit after the failure: %v; want a plain refusal", err)
	}
	if n, err := testMembers.Get(db, "m"); err != nil || n > 2 {
		t.Errorf("count after the refused commit: %d %v, want at most 2 (one stored, one uncertain)", n, err)
	}
}

// TestPanickingCallbacksCloseTheirIterators: a scan's or a read's
// callback that panics (an area's bug, recovered by the actors) leaves no
// iterator open: the database still closes.
func TestPanickingCallbacksCloseTheirIterators(t *testing.T) {
	db, err := Open("", &Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.PutMeta("a", []byte("1"))
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() { _ = recover() }()
		_ = db.scan([]byte(prefixMeta), func(k, v []byte) error { panic("test: a scan callback") })
	}()
	func() {
		defer func() { _ = recover() }()
		_ = db.view(metaKey("a"), func(v []byte) error { panic("test: a read callback") })
	}()
	if err := db.Close(); err != nil {
		t.Fatalf("close after callbacks panicked: %v", err)
	}
}
