package storage

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestDiskGuard(t *testing.T) {
	db, err := Open("", &Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var free atomic.Uint64
	free.Store(10 << 20)
	clock := time.Unix(1000, 0)
	var logs bytes.Buffer
	g := NewDiskGuard("", 1<<20, func() (uint64, error) { return free.Load(), nil }, slog.New(slog.NewTextHandler(&logs, nil)))
	g.now = func() time.Time { return clock }
	db.SetDiskGuard(g)

	put := func(name string) error {
		b := db.NewBatch()
		b.PutMeta(name, []byte("v"))
		return db.Commit(b)
	}
	if err := put("a"); err != nil || db.Health() != nil {
		t.Fatalf("plenty of space: commit %v, health %v", err, db.Health())
	}

	free.Store(100 << 10) // below the 1 MiB margin
	clock = clock.Add(2 * time.Second)
	if err := put("b"); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("below the margin: commit = %v, want ErrDiskFull", err)
	}
	if _, err := db.Meta("b"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a refused commit was written: %v", err)
	}
	if v, err := db.Meta("a"); err != nil || string(v) != "v" {
		t.Errorf("reads stop below the margin: %q %v", v, err)
	}
	if err := db.Health(); !errors.Is(err, ErrDiskFull) {
		t.Errorf("health below the margin: %v", err)
	}
	if !strings.Contains(logs.String(), "below the margin") {
		t.Errorf("no log of the low space: %s", logs.String())
	}

	free.Store(10 << 20) // space returns
	clock = clock.Add(2 * time.Second)
	if err := put("c"); err != nil {
		t.Fatalf("space back: commit %v", err)
	}
	if err := db.Health(); err != nil {
		t.Errorf("space back: health %v", err)
	}
}

func TestDiskGuardFailuresRateLimited(t *testing.T) {
	var logs bytes.Buffer
	clock := time.Unix(1000, 0)
	g := NewDiskGuard("", 0, nil, slog.New(slog.NewTextHandler(&logs, nil)))
	g.now = func() time.Time { return clock }
	for range 1000 {
		if err := g.failed(errors.New("no space left on device")); !errors.Is(err, ErrCommitUncertain) {
			t.Fatalf("failed() = %v, want ErrCommitUncertain", err)
		}
	}
	if n := strings.Count(logs.String(), "storage commit failed"); n != 1 {
		t.Errorf("1000 failures in an instant logged %d times, want 1", n)
	}
	if g.Health() == nil {
		t.Error("health ok right after failed commits")
	}
	g.succeeded()
	if err := g.Health(); err != nil {
		t.Errorf("health after a successful commit: %v", err)
	}
}

func TestRateLimitedLogger(t *testing.T) {
	var logs bytes.Buffer
	l := RateLimitedLogger(slog.New(slog.NewTextHandler(&logs, nil)), time.Hour)
	for range 500 {
		l.Error("pebble: background error: no space left on device", "n", 1)
		l.Info("flushed", "n", 1) // below warning: never dropped
	}
	if n := strings.Count(logs.String(), "no space left"); n != 1 {
		t.Errorf("500 identical errors logged %d times, want 1", n)
	}
	if n := strings.Count(logs.String(), "flushed"); n != 500 {
		t.Errorf("info lines: %d, want 500", n)
	}
}
