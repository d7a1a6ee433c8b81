package storage

import (
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

var scanKS = NewAccountKeyspace[string]("test.scan", rawCodec{})

// A record rewritten many times leaves one version per write in the
// memtable. A prefix scan must still see each key once, with its newest
// value, and step over the old versions without visiting them one by one
// (it did: a cloud store's quota scan cost grew with every store since the
// last flush).
func TestScanSkipsOldVersions(t *testing.T) {
	db := openMem(t)
	const rewrites = 500
	put := func(key string, size int) {
		b := db.NewBatch()
		if err := scanKS.Put(batchWriter{b, 7}, key, strings.Repeat("z", size)); err != nil {
			t.Fatal(err)
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	put("a", 1)
	for i := range rewrites {
		put("b", 10+i)
	}
	put("c", 3)
	want := map[string]int{"a": 1, "b": 10 + rewrites - 1, "c": 3}

	var steps int
	scanObserver = func(s pebble.IteratorStats) {
		steps = s.ForwardStepCount[pebble.InternalIterCall] + s.ForwardSeekCount[pebble.InternalIterCall]
	}
	t.Cleanup(func() { scanObserver = nil })
	got := map[string]int{}
	if err := scanKS.EachSize(db, 7, func(k string, n int) error { got[k] = n; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("sizes = %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("sizes = %v, want %v", got, want)
		}
	}
	// Three keys: a handful of steps and seeks each, not one per version.
	if steps > 60 {
		t.Fatalf("scan of 3 keys took %d internal steps and seeks after %d rewrites of one", steps, rewrites)
	}
}
