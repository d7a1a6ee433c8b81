package actors

import (
	"maps"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// DefaultReleaseMemoryAfter is the default of Options.ReleaseMemoryAfter.
const DefaultReleaseMemoryAfter = 5000

// The releaser's pace: how often it looks at the passivations, the least
// time between two releases (each is a full collection and a scavenge of
// the whole heap), and how long a wave that never pauses may go on before
// its memory is released anyway.
const (
	releaseCheckEvery = 2 * time.Second
	releaseMinGap     = 30 * time.Second
	releaseMaxWait    = time.Minute
)

// compactMinPeak is the least peak size of a shard's table worth
// rebuilding when it has shrunk; below it the table's buckets are a few
// KiB.
const compactMinPeak = 1024

// releaseState is what the releaser decides from.
type releaseState struct {
	at       int64     // passivations counted at the last release
	last     time.Time // the last release
	seen     int64     // passivations counted at the last check
	reached  time.Time // when the passivations since the last release reached the threshold (zero: not yet)
	releases atomic.Int64
}

// due reports whether the memory of the passivations so far (total, as
// counted now) should be released: at least threshold since the last
// release, the least gap since then passed, and the wave over (no
// passivation since the previous check) or going on for releaseMaxWait.
func (r *releaseState) due(now time.Time, total int64, threshold int) bool {
	settled := total == r.seen
	r.seen = total
	if total-r.at < int64(threshold) {
		r.reached = time.Time{}
		return false
	}
	if r.reached.IsZero() {
		r.reached = now
	}
	if now.Sub(r.last) < releaseMinGap {
		return false
	}
	return settled || now.Sub(r.reached) >= releaseMaxWait
}

// released records a release of the passivations counted as total.
func (r *releaseState) released(now time.Time, total int64) {
	r.at, r.last, r.reached = total, now, time.Time{}
	r.releases.Add(1)
}

// releaser gives the memory of passivated accounts back to the operating
// system after each wave of Options.ReleaseMemoryAfter passivations, in a
// goroutine of its own (never in an actor or a request): the Go runtime
// keeps freed heap pages for reuse and returns them only slowly (its
// background scavenger), so after 100,000 accounts went idle the process's
// RSS stayed near its peak for minutes. It first rebuilds the shards'
// tables that shrank well below their peak (a Go map never shrinks), keeps
// only the live accounts' sessions in the session cache and empties
// storage's block cache (see releaseMemory), then runs debug.FreeOSMemory:
// a full collection and a scavenge of every free page.
func (s *System) releaser() {
	t := time.NewTicker(releaseCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			total := s.passivations.Load()
			if !s.released.due(now, total, s.opts.ReleaseMemoryAfter) {
				continue
			}
			s.releaseMemory()
			s.released.released(time.Now(), total)
		}
	}
}

// releaseMemory compacts the shards' tables and the session cache, then
// returns the free heap to the operating system. The session cache keeps
// only the sessions of accounts that are live: the others' accounts were
// passivated, so their players sent nothing for the idle timeout; their
// sessions are still valid and are read from storage at their next
// request, which activates the account anyway. The entries kept are packed
// (each was allocated at a login beside the account's state and would keep
// the pages of the passivated states in use). The release hooks
// (OnMemoryRelease) do the same with what they cache per account. Storage
// empties its block cache (see storage.DB.ReleaseMemory), and the
// dispatcher's parked workers end (workerDispatcher.shed).
//
// It collects first: the passivated accounts' states are garbage by then
// but not yet collected, so the tables and entries rebuilt next would be
// allocated in whatever free slots earlier collections left among them,
// spread over many pages; after a collection those pages are wholly free
// and the rebuilt ones fill few. With 100k accounts passivated, the RSS a
// minute later was 70.0 MiB in two bench/memory runs against 72.8-72.9 in
// two without it (47 MiB empty).
func (s *System) releaseMemory() {
	runtime.GC()
	for _, sh := range s.shards {
		sh.compact()
	}
	s.sessions.Compact(func(_ sessionCacheKey, c storage.CompactSession) bool { return s.isLive(c.AccountID()) })
	if s.homeSessions != nil {
		s.homeSessions.Compact(func(_ sessionCacheKey, c homeSession) bool { return s.isLive(c.s.AccountID()) })
	}
	s.releaseHooks.mu.Lock()
	hooks := append([]ReleaseHook(nil), s.releaseHooks.hs...)
	s.releaseHooks.mu.Unlock()
	for _, h := range hooks {
		h(s.isLive)
	}
	s.db.ReleaseMemory()
	s.dispatcher.shed()
	debug.FreeOSMemory()
}

// A ReleaseHook runs at each memory release (see releaseMemory), given a
// test of whether an account has a live actor: a service that caches
// entries per account outside the actors drops the passivated accounts'
// ones, and packs the rest (storage/cache's LRU.Compact), so that they do
// not keep the pages of the freed accounts in use. It runs in the
// releaser's goroutine, never in an actor.
type ReleaseHook func(live func(storage.AccountID) bool)

type releaseHooks struct {
	mu sync.Mutex
	hs []ReleaseHook
}

// OnMemoryRelease registers a hook that runs at every memory release (call
// it while the server is being built, before it serves).
func (s *System) OnMemoryRelease(h ReleaseHook) {
	s.releaseHooks.mu.Lock()
	defer s.releaseHooks.mu.Unlock()
	s.releaseHooks.hs = append(s.releaseHooks.hs, h)
}

// isLive reports whether account id has an actor in its shard's table
// (running, or stopping).
func (s *System) isLive(id storage.AccountID) bool {
	sh := s.shardOf(id)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.children[id] != nil
}

// MemoryReleases counts the times the system gave passivated accounts'
// memory back to the operating system (for metrics and tests).
func (s *System) MemoryReleases() int64 { return s.released.releases.Load() }

// compact rebuilds the shard's table once it holds under a quarter of its
// peak: a Go map keeps the buckets it grew to, so the table of a shard that
// once held thousands of live accounts would keep their memory after they
// are all passivated. Reports whether it rebuilt.
func (sh *shard) compact() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	n := len(sh.children)
	if sh.peak < compactMinPeak || n > sh.peak/4 {
		return false
	}
	m := make(map[storage.AccountID]*child, n)
	maps.Copy(m, sh.children)
	sh.children, sh.peak = m, n
	return true
}
