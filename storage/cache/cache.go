// Package cache is a bounded, concurrency-safe LRU cache with a fill guard:
// a value read from storage before an invalidation is never cached after it.
package cache

import (
	"container/list"
	"sync"
)

const shards = 16

// LRU holds at most about Size entries (split over shards); the least
// recently used entry of a full shard is evicted.
type LRU[K comparable, V any] struct {
	shard [shards]lruShard[K, V]
	hash  func(K) uint32
}

type lruShard[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	gen   uint64 // bumped by every Set and Remove
	items map[K]*list.Element
	order list.List // front: most recently used
}

type entry[K comparable, V any] struct {
	k K
	v V
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
		c.shard[i].max = per
		c.shard[i].items = map[K]*list.Element{}
	}
	return c
}

func (c *LRU[K, V]) of(k K) *lruShard[K, V] { return &c.shard[c.hash(k)%shards] }

// Get returns the cached value of k.
func (c *LRU[K, V]) Get(k K) (V, bool) {
	s := c.of(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.items[k]; ok {
		s.order.MoveToFront(e)
		return e.Value.(*entry[K, V]).v, true
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
	if e, ok := s.items[k]; ok {
		s.order.Remove(e)
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

func (s *lruShard[K, V]) put(k K, v V) {
	if s.max == 0 {
		return
	}
	if e, ok := s.items[k]; ok {
		e.Value.(*entry[K, V]).v = v
		s.order.MoveToFront(e)
		return
	}
	for len(s.items) >= s.max {
		last := s.order.Back()
		s.order.Remove(last)
		delete(s.items, last.Value.(*entry[K, V]).k)
	}
	s.items[k] = s.order.PushFront(&entry[K, V]{k, v})
}
