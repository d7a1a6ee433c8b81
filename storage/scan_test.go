package storage

import (
	"bytes"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// A record rewritten many times leaves one version per write in the
// memtable. A prefix scan must still see each key once, with its newest
// value, and step over the old versions without visiting them one by one
// (it did: a cloud store's quota scan cost grew with every store since the
// last flush).
func TestScanSkipsOldVersions(t *testing.T) {
	db := openMem(t)
	const rewrites = 500
	put := func(bucket string, size int) {
		b := db.NewBatch()
		b.PutCloud(&CloudObject{AccountID: 7, Bucket: bucket, ModifyTime: "2024-01-02 03:04:05",
			Stored: time.Unix(1700000000, 0).UTC(), Data: bytes.Repeat([]byte{'z'}, size)})
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	put("a", 1)
	for i := range rewrites {
		put("b", 10+i)
	}
	put("c", 3)
	want := map[string]int64{}
	for _, bucket := range []string{"a", "b", "c"} {
		o, err := db.Cloud(7, bucket, true)
		if err != nil {
			t.Fatal(err)
		}
		v, err := encodeCloud(o)
		if err != nil {
			t.Fatal(err)
		}
		want[bucket] = int64(len(v))
	}

	var steps int
	scanObserver = func(s pebble.IteratorStats) {
		steps = s.ForwardStepCount[pebble.InternalIterCall] + s.ForwardSeekCount[pebble.InternalIterCall]
	}
	t.Cleanup(func() { scanObserver = nil })
	got, err := db.CloudSizes(7)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("CloudSizes = %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("CloudSizes = %v, want %v", got, want)
		}
	}
	// Three keys: a handful of steps and seeks each, not one per version.
	if steps > 60 {
		t.Fatalf("scan of 3 keys took %d internal steps and seeks after %d rewrites of one", steps, rewrites)
	}
}
