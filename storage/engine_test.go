package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/honmaster/masterserver/storage/storagetest"
)

// The engine contract: every test here runs on each engine (the PostgreSQL
// half when HONMASTER_TEST_POSTGRES_URL is set), through the calls the
// rest of the package makes (view, scan, batch, commit).

// eachEngine runs fn on a fresh database of each engine, as subtests.
func eachEngine(t *testing.T, fn func(t *testing.T, db *DB)) {
	t.Helper()
	t.Run("pebble", func(t *testing.T) { fn(t, openMem(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, openPostgresTest(t)) })
}

// openPostgresTest opens a fresh PostgreSQL database of the test's own
// (skipping without a server).
func openPostgresTest(t *testing.T) *DB {
	t.Helper()
	db, err := OpenPostgres(PostgresOptions{URL: storagetest.PostgresURL(t), MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func commitRaw(t *testing.T, db *DB, fill func(b *Batch)) {
	t.Helper()
	b := db.NewBatch()
	fill(b)
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
}

func scanKeys(t *testing.T, db *DB, prefix []byte) []string {
	t.Helper()
	var keys []string
	if err := db.scan(prefix, func(k, _ []byte) error { keys = append(keys, string(k)); return nil }); err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestEngineGetSetDelete(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		if _, err := db.get([]byte("k/missing")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("get of a missing key: %v; want ErrNotFound", err)
		}
		commitRaw(t, db, func(b *Batch) {
			b.set([]byte("k/a"), []byte("1"), nil)
			b.set([]byte("k/empty"), nil, nil) // an empty value is a value
			b.set([]byte("k/twice"), []byte("first"), nil)
			b.set([]byte("k/twice"), []byte("second"), nil) // a later write wins
			b.set([]byte("k/gone"), []byte("x"), nil)
			b.del([]byte("k/gone"))
			b.del([]byte("k/back"))
			b.set([]byte("k/back"), []byte("again"), nil)
			_ = b.setEncoded([]byte("k/enc"), 3, func(dst []byte) ([]byte, error) { return append(dst, "abc"...), nil })
		})
		want := map[string]string{"k/a": "1", "k/empty": "", "k/twice": "second", "k/back": "again", "k/enc": "abc"}
		for k, v := range want {
			got, err := db.get([]byte(k))
			if err != nil || string(got) != v {
				t.Errorf("get %s = %q, %v; want %q", k, got, err, v)
			}
		}
		if ok, err := db.has([]byte("k/gone")); ok || err != nil {
			t.Errorf("has k/gone = %v, %v; want deleted", ok, err)
		}
		if ok, err := db.has([]byte("k/empty")); !ok || err != nil {
			t.Errorf("has k/empty = %v, %v; want present", ok, err)
		}
		commitRaw(t, db, func(b *Batch) { b.del([]byte("k/a")); b.del([]byte("k/never")) })
		if _, err := db.get([]byte("k/a")); !errors.Is(err, ErrNotFound) {
			t.Errorf("get after delete: %v", err)
		}
		// An empty batch commits without a round trip; a failed one writes nothing.
		if err := db.Commit(db.NewBatch()); err != nil {
			t.Errorf("empty commit: %v", err)
		}
		b := db.NewBatch()
		b.set([]byte("k/half"), []byte("x"), nil)
		b.set([]byte("k/bad"), nil, errors.New("cannot encode"))
		if err := db.Commit(b); err == nil {
			t.Error("a batch with an encoding error committed")
		}
		if ok, _ := db.has([]byte("k/half")); ok {
			t.Error("a failed batch wrote part of its records")
		}
	})
}

// edgeKeys are ordered bytewise (memcmp, then length): the order both
// engines must give, 0x00 and 0xff bytes and keys that prefix others
// included.
var edgeKeys = []string{
	"\x00", "\x00\x00", "\x00\xff",
	"a", "a\x00", "a/", "a/\x00", "a/\x7f", "a/\x80", "a/\xff", "a/\xff\x00", "a/\xff\xff", "a0",
	"b", "\x7f", "\x80", "\xfe\xff", "\xff", "\xff\x00", "\xff\xff", "\xff\xff\xff",
}

func TestEngineOrderAndPrefixEdges(t *testing.T) {
	sorted := append([]string{string(metaKey(metaSchema))}, edgeKeys...) // Open wrote it
	sort.Slice(sorted, func(i, j int) bool { return bytes.Compare([]byte(sorted[i]), []byte(sorted[j])) < 0 })
	eachEngine(t, func(t *testing.T, db *DB) {
		commitRaw(t, db, func(b *Batch) {
			for i := len(edgeKeys) - 1; i >= 0; i-- { // written out of order
				b.set([]byte(edgeKeys[i]), []byte{byte(i)}, nil)
			}
		})
		for _, p := range []string{"", "\x00", "a", "a/", "a/\xff", "\xff", "\xff\xff", "\xff\xff\xff", "\xff\xff\xff\xff", "c"} {
			var want []string
			for _, k := range sorted {
				if bytes.HasPrefix([]byte(k), []byte(p)) {
					want = append(want, k)
				}
			}
			var prefix []byte
			if p != "" {
				prefix = []byte(p)
			}
			if got := scanKeys(t, db, prefix); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
				t.Errorf("scan %q = %q\nwant %q", p, got, want)
			}
		}
		// The values come with their keys.
		err := db.scan([]byte("a/"), func(k, v []byte) error {
			if i := v[0]; edgeKeys[i] != string(k) {
				return fmt.Errorf("key %q came with the value of %q", k, edgeKeys[i])
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		// A scan stops at its function's first error, which it returns.
		stop := errors.New("stop here")
		n := 0
		if err := db.scan(nil, func(_, _ []byte) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
			t.Errorf("stopped scan: %d calls, %v", n, err)
		}
	})
}

// A scan longer than a PostgreSQL page (512 rows) sees every key once, in
// order, and its function may read the database meanwhile.
func TestEngineLongScan(t *testing.T) {
	const n = 1300
	eachEngine(t, func(t *testing.T, db *DB) {
		commitRaw(t, db, func(b *Batch) {
			for i := range n {
				b.set(binary.BigEndian.AppendUint32([]byte("p/"), uint32(i)), []byte{byte(i)}, nil)
			}
			b.set([]byte("p0"), []byte("after"), nil)
		})
		i := 0
		err := db.scan([]byte("p/"), func(k, v []byte) error {
			if got := binary.BigEndian.Uint32(k[2:]); got != uint32(i) || v[0] != byte(i) {
				return fmt.Errorf("row %d: key %d", i, got)
			}
			if _, err := db.get([]byte("p0")); err != nil { // a nested read
				return err
			}
			i++
			return nil
		})
		if err != nil || i != n {
			t.Fatalf("scan saw %d of %d rows: %v", i, n, err)
		}
	})
}

// Concurrent writers each commit their own keys and a shared one; every
// commit is acknowledged and every write is there after.
func TestEngineConcurrentWriters(t *testing.T) {
	const writers, commits = 6, 15
	eachEngine(t, func(t *testing.T, db *DB) {
		var wg sync.WaitGroup
		errs := make(chan error, writers*commits)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for c := range commits {
					b := db.NewBatch()
					b.set(fmt.Appendf(nil, "w/%d/%03d", w, c), []byte("v"), nil)
					b.set([]byte("shared"), fmt.Appendf(nil, "%d/%d", w, c), nil)
					if err := db.Commit(b); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if got := len(scanKeys(t, db, []byte("w/"))); got != writers*commits {
			t.Errorf("%d records after %d acknowledged commits", got, writers*commits)
		}
		if v, err := db.get([]byte("shared")); err != nil || len(v) == 0 {
			t.Errorf("shared key: %q %v", v, err)
		}
	})
}

// A database written by a newer version is refused at open, on each engine.
func TestEngineRefusesNewerSchema(t *testing.T) {
	newer := binary.BigEndian.AppendUint32(nil, SchemaVersion+1)
	t.Run("pebble", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "db")
		db, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		commitRaw(t, db, func(b *Batch) { b.PutMeta(metaSchema, newer) })
		db.Close()
		if db, err := Open(dir, nil); !errors.Is(err, ErrNewerSchema) {
			if err == nil {
				db.Close()
			}
			t.Fatalf("open: %v; want ErrNewerSchema", err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		url := storagetest.PostgresURL(t)
		db, err := OpenPostgres(PostgresOptions{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		if v, err := db.Meta(metaSchema); err != nil || binary.BigEndian.Uint32(v) != SchemaVersion {
			t.Fatalf("a fresh database's schema: %x %v", v, err)
		}
		commitRaw(t, db, func(b *Batch) { b.PutMeta(metaSchema, newer) })
		db.Close()
		if db, err := OpenPostgres(PostgresOptions{URL: url}); !errors.Is(err, ErrNewerSchema) {
			if err == nil {
				db.Close()
			}
			t.Fatalf("open: %v; want ErrNewerSchema", err)
		}
	})
}

func TestEngineCheckpoint(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		db := openPostgresTest(t)
		if err := db.Checkpoint(filepath.Join(t.TempDir(), "c")); !errors.Is(err, ErrNoCheckpoint) {
			t.Errorf("checkpoint on PostgreSQL: %v; want ErrNoCheckpoint", err)
		}
	})
	// Pebble's: TestReopenAndCheckpoint.
}

// Stats and EngineStats report the database's size on either engine (the
// rest of EngineStats is Pebble's own). (Close: every test's cleanup.)
func TestEngineStats(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		commitRaw(t, db, func(b *Batch) { b.set([]byte("k"), bytes.Repeat([]byte("v"), 4096), nil) })
		if s := db.Stats(); s.DiskBytesUsed == 0 {
			t.Errorf("Stats: %+v; want a size", s)
		}
		if s := db.EngineStats(); s.DiskSpaceBytes == 0 {
			t.Errorf("EngineStats: %+v; want a size", s)
		}
	})
}

// TestReleaseMemoryEmptiesBlockCache: on Pebble, ReleaseMemory leaves the
// block cache empty and every record readable (the cache refills); on
// PostgreSQL it does nothing and reads still work.
func TestReleaseMemoryEmptiesBlockCache(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		for i := range 200 {
			commitRaw(t, db, func(b *Batch) { b.set(fmt.Appendf(nil, "k%04d", i), bytes.Repeat([]byte{byte(i)}, 512), nil) })
		}
		pe, isPebble := db.eng.(*pebbleEngine)
		if isPebble {
			if err := pe.db.Flush(); err != nil { // into a table, read through the block cache
				t.Fatal(err)
			}
		}
		read := func() {
			t.Helper()
			for i := range 200 {
				v, err := db.get(fmt.Appendf(nil, "k%04d", i))
				if err != nil || len(v) != 512 || v[0] != byte(i) {
					t.Fatalf("k%04d: %d bytes, %v", i, len(v), err)
				}
			}
		}
		read()
		if isPebble && pe.cache.Size() == 0 {
			t.Fatal("the block cache is empty after reading a table: nothing to release")
		}
		db.ReleaseMemory()
		if isPebble {
			if n := pe.cache.Size(); n != 0 {
				t.Errorf("block cache after ReleaseMemory: %d bytes, want 0", n)
			}
		}
		read()
		if isPebble && pe.cache.Size() == 0 {
			t.Error("the block cache did not refill after the release")
		}
	})
}
