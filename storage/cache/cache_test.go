package cache

import (
	"fmt"
	"hash/fnv"
	"testing"
)

func strHash(s string) uint32 { h := fnv.New32a(); h.Write([]byte(s)); return h.Sum32() }

func TestBoundedAndLRU(t *testing.T) {
	c := New[string, int](32, strHash)
	for i := 0; i < 1000; i++ {
		c.Set(fmt.Sprint(i), i)
	}
	if n := c.Len(); n > 32 {
		t.Fatalf("Len = %d, want <= 32", n)
	}
	if v, ok := c.Get("999"); !ok || v != 999 {
		t.Errorf("most recent entry evicted: %v %v", v, ok)
	}
	if _, ok := c.Get("0"); ok {
		t.Error("oldest entry kept")
	}
}

func TestFillAfterInvalidationIsRefused(t *testing.T) {
	c := New[string, int](64, strHash)
	gen := c.Gen("k") // a reader reads storage ...
	c.Remove("k")     // ... the writer deletes meanwhile ...
	c.Fill("k", 1, gen)
	if _, ok := c.Get("k"); ok {
		t.Fatal("stale fill was cached")
	}
	c.Fill("k", 2, c.Gen("k"))
	if v, ok := c.Get("k"); !ok || v != 2 {
		t.Fatalf("fresh fill: %v %v", v, ok)
	}
}

func TestDisabled(t *testing.T) {
	c := New[string, int](0, strHash)
	c.Set("a", 1)
	if _, ok := c.Get("a"); ok {
		t.Fatal("size 0 cached")
	}
}

func TestGetRefreshesAndRemoveUnlinks(t *testing.T) {
	c := New[string, int](2*shards, func(string) uint32 { return 0 }) // one shard of 2
	c.Set("a", 1)
	c.Set("b", 2)
	c.Get("a") // a is now the most recent: b goes first
	c.Set("c", 3)
	if _, ok := c.Get("b"); ok {
		t.Error("b kept although least recently used")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	c.Remove("a")
	c.Set("d", 4)
	c.Set("d", 5) // replace in place
	if v, ok := c.Get("d"); !ok || v != 5 || c.Len() != 2 {
		t.Fatalf("d = %v %v, len %d", v, ok, c.Len())
	}
	c.Set("e", 6) // evicts c (d was used after it)
	if _, ok := c.Get("c"); ok || c.Len() != 2 {
		t.Errorf("c kept (len %d)", c.Len())
	}
}

// TestCompactKeepsEntriesAndOrder: after Compact every entry is there with
// its value, in the same recency order (the least recently used is evicted
// first), and the cache goes on working (set, remove, evict).
func TestCompactKeepsEntriesAndOrder(t *testing.T) {
	one := func(string) uint32 { return 0 } // one shard: its order is the whole order
	c := New[string, int](4*shards, one)
	for i := range 4 {
		c.Set(fmt.Sprint(i), i)
	}
	c.Get("0") // most recent first: 0 3 2 1
	c.Compact(nil)
	if n := c.Len(); n != 4 {
		t.Fatalf("Len after Compact = %d, want 4", n)
	}
	c.Set("4", 4) // evicts the least recently used: 1
	if _, ok := c.Get("1"); ok {
		t.Fatal("the least recently used entry was not the one evicted")
	}
	for _, i := range []int{0, 3, 2, 4} {
		if v, ok := c.Get(fmt.Sprint(i)); !ok || v != i {
			t.Fatalf("Get(%d) = %v, %v", i, v, ok)
		}
	}
	c.Remove("2")
	if _, ok := c.Get("2"); ok || c.Len() != 3 {
		t.Errorf("after Remove: Len %d", c.Len())
	}
}

// TestCompactKeep: Compact with a keep function drops the other entries
// (as evictions: gone from Get and Len) and keeps the rest in their
// recency order.
func TestCompactKeep(t *testing.T) {
	one := func(string) uint32 { return 0 }
	c := New[string, int](6*shards, one)
	for i := range 6 {
		c.Set(fmt.Sprint(i), i)
	}
	c.Get("0") // most recent first: 0 5 4 3 2 1
	c.Compact(func(_ string, v int) bool { return v%2 == 0 })
	if n := c.Len(); n != 3 {
		t.Fatalf("Len after Compact(keep) = %d, want 3", n)
	}
	for _, i := range []int{1, 3, 5} {
		if _, ok := c.Get(fmt.Sprint(i)); ok {
			t.Errorf("entry %d was not dropped", i)
		}
	}
	// Kept in order 0 4 2: four more entries evict 2, 4, 0 first, in that order.
	c.Set("a", 10)
	c.Set("b", 11)
	c.Set("c", 12)
	c.Set("d", 13)
	if _, ok := c.Get("2"); ok {
		t.Error("2, the least recently used kept entry, was not evicted first")
	}
	if _, ok := c.Get("0"); !ok {
		t.Error("0, the most recently used kept entry, was evicted")
	}
}
