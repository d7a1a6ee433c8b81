// Package cache is a bounded, concurrency-safe LRU cache with a fill guard:
// a value read from storage before an invalidation is never cached after it.
package cache

import "sync"

const shards = 16

// LRU holds at most about Size entries (split over shards); the least
// recently used entry of a full shard is evicted.
//
// Values are stored inline in the entries of an intrusive list (one
// allocation per entry, no container/list element nor boxed value): with
// a small value type, an entry costs its key and value plus two pointers,
// and its slot in the shard's map.
type LRU[K comparable, V any] struct {
	shard [shards]lruShard[K, V]
	hash  func(K) uint32
}

type lruShard[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	gen   uint64 // bumped by every Set and Remove
	items map[K]*node[K, V]
	head  node[K, V] // sentinel: head.next is the most recently used
}

type node[K comparable, V any] struct {
	k          K
	v          V
	prev, next *node[K, V]
}

// New returns a cache of about size entries (at least one per shard);
// hash spreads keys over the shards. size <= 0 disables caching.
func New[K comparable, V any](size int, hash func(K) uint32) *LRU[K, V] {
	c := &LRU[K, V]{hash: hash}
	per := 0
	if size > 0 {
		per = max(1, size/shards)
	}
	for i := range c.shard {
		s := &c.shard[i]
		s.max = per
		s.items = map[K]*node[K, V]{}
		s.head.prev, s.head.next = &s.head, &s.head
	}
	return c
}

func (c *LRU[K, V]) of(k K) *lruShard[K, V] { return &c.shard[c.hash(k)%shards] }

// Get returns the cached value of k.
func (c *LRU[K, V]) Get(k K) (V, bool) {
	s := c.of(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.items[k]; ok {
		s.toFront(n)
		return n.v, true
	}
	var zero V
	return zero, false
}

// Gen returns the generation of k's shard: pass it to Fill after reading
// the value from its source.
func (c *LRU[K, V]) Gen(k K) uint64 {
	s := c.of(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// Fill caches v for k unless a Set or Remove happened in k's shard since
// gen was read: a reader never caches a value its writer has replaced.
func (c *LRU[K, V]) Fill(k K, v V, gen uint64) {
	s := c.of(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == gen {
		s.put(k, v)
	}
}

// Set caches v for k (the writer of k's source calls it after a write).
func (c *LRU[K, V]) Set(k K, v V) {
	s := c.of(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.put(k, v)
}

// Remove drops k (the writer calls it after deleting k's source).
func (c *LRU[K, V]) Remove(k K) {
	s := c.of(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	if n, ok := s.items[k]; ok {
		unlink(n)
		delete(s.items, k)
	}
}

// Len is the number of cached entries.
func (c *LRU[K, V]) Len() int {
	n := 0
	for i := range c.shard {
		s := &c.shard[i]
		s.mu.Lock()
		n += len(s.items)
		s.mu.Unlock()
	}
	return n
}

func unlink[K comparable, V any](n *node[K, V]) {
	n.prev.next, n.next.prev = n.next, n.prev
	n.prev, n.next = nil, nil
}

// toFront makes n the most recently used. s.mu is held.
func (s *lruShard[K, V]) toFront(n *node[K, V]) {
	if s.head.next == n {
		return
	}
	unlink(n)
	s.pushFront(n)
}

func (s *lruShard[K, V]) pushFront(n *node[K, V]) {
	n.prev, n.next = &s.head, s.head.next
	s.head.next.prev = n
	s.head.next = n
}

func (s *lruShard[K, V]) put(k K, v V) {
	if s.max == 0 {
		return
	}
	if n, ok := s.items[k]; ok {
		n.v = v
		s.toFront(n)
		return
	}
	for len(s.items) >= s.max {
		last := s.head.prev
		unlink(last)
		delete(s.items, last.k)
	}
	n := &node[K, V]{k: k, v: v}
	s.pushFront(n)
	s.items[k] = n
}

// Compact moves every entry into one new allocation per shard, in the same
// order, and rebuilds the shards' maps. Entries allocated one by one among
// other objects (a session cached at each login, beside the account's
// state) keep those objects' pages in use after the others are freed: after
// 100,000 players went idle, their sessions alone held ~60 MiB of heap
// pages for ~15 MiB of entries. Packed together, they free those pages.
// A pack stays in memory until its last entry is evicted (at most the
// cache's size). O(entries), under each shard's lock in turn.
//
// keep, unless nil, chooses the entries that stay: the others leave the
// cache as an eviction would (a cache read misses them). It runs under the
// shard's lock, so it must not use the cache.
func (c *LRU[K, V]) Compact(keep func(K, V) bool) {
	for i := range c.shard {
		s := &c.shard[i]
		s.mu.Lock()
		// The entries that stay, least recently used first: keep is asked
		// once per entry, and the pack is sized to them exactly.
		kept := make([]*node[K, V], 0, len(s.items))
		for e := s.head.prev; e != &s.head; e = e.prev {
			if keep == nil || keep(e.k, e.v) {
				kept = append(kept, e)
			}
		}
		pack := make([]node[K, V], len(kept))
		items := make(map[K]*node[K, V], len(kept))
		for j, e := range kept {
			p := &pack[j]
			p.k, p.v = e.k, e.v
			items[p.k] = p
		}
		s.items = items
		s.head.prev, s.head.next = &s.head, &s.head
		for j := range pack { // the most recently used pushed last: at the front
			s.pushFront(&pack[j])
		}
		s.mu.Unlock()
	}
}
