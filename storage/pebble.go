package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// pebbleEngine is the embedded default engine: one Pebble database in a
// directory of its own.
type pebbleEngine struct {
	db    *pebble.DB
	cache *pebble.Cache // the block cache (the DB holds a reference while open)
	// condMu is held across the checks and the apply of every batch with
	// conditions, and across update (see conditions.go): nothing else
	// writes the keys conditions read.
	condMu sync.Mutex
	// countMu is held while a batch's count operations read the counts
	// and until the batch is applied (counts.go).
	countMu sync.Mutex
}

func openPebble(dir string, opts *Options) (*DB, error) {
	po := &pebble.Options{Logger: pebbleLogger{opts.Logger}, FS: privateFS{vfs.Default}}
	switch {
	case opts.fs != nil:
		po.FS = opts.fs
	case opts.InMemory:
		po.FS = vfs.NewMem()
	}
	size := opts.CacheSize
	if size <= 0 {
		size = DefaultCacheSize
	}
	cache := pebble.NewCache(size)
	defer cache.Unref()
	po.Cache = cache
	po.MemTableSize = DefaultMemTableSize
	if opts.MemTableSize > 0 {
		po.MemTableSize = uint64(opts.MemTableSize)
	}
	if d := opts.WALMinSyncInterval; d > 0 {
		po.WALMinSyncInterval = func() time.Duration { return d }
	}
	bits := opts.BloomBitsPerKey
	if bits == 0 {
		bits = DefaultBloomBitsPerKey
	}
	if bits > 0 {
		for i := range po.Levels {
			po.Levels[i].FilterPolicy = bloom.FilterPolicy(bits)
		}
	}
	po.ReadOnly = opts.ReadOnly
	if !opts.InMemory && !opts.ReadOnly {
		if err := po.FS.MkdirAll(dir, DirMode); err != nil {
			return nil, fmt.Errorf("storage: create %s: %w", dir, err)
		}
	}
	pdb, err := pebble.Open(dir, po)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	return newDB(&pebbleEngine{db: pdb, cache: cache}), nil
}

// Lock takes the lock of the database in dir, as a server holds it while
// it runs, without opening (or migrating) the database; the error is the
// lock's when another process holds it. The caller calls release.
func Lock(dir string) (release func() error, err error) {
	l, err := pebble.LockDirectory(dir, vfs.Default)
	if err != nil {
		return nil, fmt.Errorf("storage: lock %s: %w", dir, err)
	}
	return l.Close, nil
}

func (e *pebbleEngine) close() error { return e.db.Close() }

func (e *pebbleEngine) view(key []byte, fn func([]byte) error) (err error) {
	v, closer, err := e.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	// Closed even when fn panics (an area's codec; the actors recover
	// it): an open Get pins memtables and tables for the process's life.
	defer func() {
		if cerr := closer.Close(); err == nil {
			err = cerr
		}
	}()
	return fn(v)
}

// scan steps with NextPrefix rather than Next: a record rewritten often (a
// cloud archive, a balance) leaves one version per write in the memtable
// until the next flush, and Next walks every older version of the current
// key before it reaches the next key, so a scan of a few keys cost time in
// proportion to the writes since the last flush (a third of a cloud store's
// CPU under load). NextPrefix seeks past them (after a few cheap steps);
// with the default comparer every key is its own prefix, so it visits
// exactly the keys Next would.
//
// The iterator is closed even when fn panics (an area's callback; the
// actors recover it): an open iterator pins memtables and tables for the
// process's life, and Close would then fail with "leaked iterators".
func (e *pebbleEngine) scan(lo, hi []byte, fn func(k, v []byte) error) (err error) {
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := it.Close(); err == nil {
			err = cerr
		}
	}()
	for ok := it.First(); ok; ok = it.NextPrefix() {
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		if err := fn(it.Key(), v); err != nil {
			return err
		}
	}
	if scanObserver != nil {
		scanObserver(it.Stats())
	}
	return nil
}

// scanObserver, set by tests only, sees the statistics of every complete
// scan's iterator.
var scanObserver func(pebble.IteratorStats)

func (e *pebbleEngine) newBatch() engineBatch { return &pebbleBatch{b: e.db.NewBatch()} }

// apply commits synced. Pebble panics on a fatal commit error (its log
// cannot be written, as on a full disk): DiskGuard.apply, its caller,
// recovers it. Every error here may hide a commit.
func (e *pebbleEngine) apply(b engineBatch, c *conditions) error {
	pb := b.(*pebbleBatch).b
	if c.none() {
		return e.db.Apply(pb, pebble.Sync)
	}
	if c.onlyCounts() {
		return e.applyCounts(pb, c)
	}
	e.condMu.Lock()
	defer e.condMu.Unlock()
	if len(c.counts) > 0 {
		e.countMu.Lock()
		defer e.countMu.Unlock()
	}
	if err := c.check(e); err != nil { // a *ConflictError or *FencedError, or a read's failure
		return fmt.Errorf("%w: %w", errNotCommitted, err)
	}
	if err := setCounts(pb, c, e); err != nil {
		return err
	}
	for _, n := range c.news {
		if err := pb.Set(n.k, n.v, nil); err != nil {
			return fmt.Errorf("%w: %w", errNotCommitted, err)
		}
	}
	for _, s := range c.swaps {
		if err := pb.Set(s.k, s.nu, nil); err != nil {
			return fmt.Errorf("%w: %w", errNotCommitted, err)
		}
	}
	return e.db.Apply(pb, pebble.Sync)
}

// applyCounts applies a batch whose only conditions are count operations:
// under countMu until the batch is in the memtable (so the next batch's
// operations read its counts), then waits for the WAL sync unlocked, so
// that concurrent commits share their syncs.
func (e *pebbleEngine) applyCounts(pb *pebble.Batch, c *conditions) error {
	err := func() error {
		e.countMu.Lock()
		defer e.countMu.Unlock()
		if err := setCounts(pb, c, e); err != nil {
			return err
		}
		return e.db.ApplyNoSyncWait(pb, pebble.Sync)
	}()
	if err != nil {
		return err
	}
	if err := pb.SyncWait(); err != nil {
		// The batch is in the memtable, seen by every read, and its log
		// record may be lost: the engine has failed, as when a synced
		// Apply's log write fails (Pebble panics then). Panicking here
		// has DiskGuard.run record it, so that every later commit is
		// refused with nothing applied.
		panic(fmt.Errorf("the write-ahead log could not be synced: %w", err))
	}
	return nil
}

// setCounts writes the counts' new values into pb (countMu held).
func setCounts(pb *pebble.Batch, c *conditions, r reader) error {
	vals, err := c.applyCounts(r)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotCommitted, err)
	}
	for k, v := range vals {
		if v == nil {
			err = pb.Delete([]byte(k), nil)
		} else {
			err = pb.Set([]byte(k), v, nil)
		}
		if err != nil {
			return fmt.Errorf("%w: %w", errNotCommitted, err)
		}
	}
	return nil
}

// update runs fn under condMu (no conditional apply checks key
// meanwhile: see conditions.go) and writes its result synced.
func (e *pebbleEngine) update(key []byte, fn func(old []byte, found bool) ([]byte, error)) error {
	e.condMu.Lock()
	defer e.condMu.Unlock()
	old, err := get(e, key)
	found := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: %w", errNotCommitted, err)
	}
	nu, err := fn(old, found)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotCommitted, err)
	}
	if nu == nil {
		return nil
	}
	b := e.db.NewBatch()
	defer b.Close()
	if err := b.Set(key, nu, nil); err != nil {
		return fmt.Errorf("%w: %w", errNotCommitted, err)
	}
	return e.db.Apply(b, pebble.Sync)
}

func (e *pebbleEngine) health() error { return nil }

// releaseMemory empties the block cache: reserving its whole size evicts
// every block that no reader holds, and the reservation is released at
// once, so the cache refills as reads come. Its blocks are C memory
// (malloc), which glibc keeps for reuse: mallocTrim returns the free pages
// to the operating system. The table files stay in the kernel's page cache,
// so a block read again costs a copy and a checksum, not a disk read.
func (e *pebbleEngine) releaseMemory() {
	e.cache.Reserve(int(e.cache.MaxSize()))()
	mallocTrim()
}

func (e *pebbleEngine) checkpoint(dir string) error {
	return e.db.Checkpoint(dir, pebble.WithFlushedWAL())
}

func (e *pebbleEngine) stats() DBStats {
	m := e.db.Metrics()
	return DBStats{WALBytes: m.WAL.BytesWritten, CacheHits: m.BlockCache.Hits, CacheMisses: m.BlockCache.Misses,
		DiskBytesUsed: m.DiskSpaceUsage()}
}

func (e *pebbleEngine) engineStats() EngineStats {
	m := e.db.Metrics()
	return EngineStats{
		DiskSpaceBytes:       m.DiskSpaceUsage(),
		LiveTableBytes:       m.Table.Local.LiveSize,
		LiveTables:           m.Table.Local.LiveCount,
		ReadAmplification:    m.ReadAmp(),
		L0Sublevels:          int(m.Levels[0].Sublevels),
		L0Tables:             m.Levels[0].TablesCount,
		MemtableBytes:        m.MemTable.Size,
		Memtables:            m.MemTable.Count,
		WALBytes:             m.WAL.Size,
		WALBytesWritten:      m.WAL.BytesWritten,
		WALBytesIn:           m.WAL.BytesIn,
		Flushes:              m.Flush.Count,
		Compactions:          m.Compact.Count,
		CompactionDebtBytes:  m.Compact.EstimatedDebt,
		CompactionsRunning:   m.Compact.NumInProgress,
		BlockCacheBytes:      m.BlockCache.Size,
		BlockCacheHits:       m.BlockCache.Hits,
		BlockCacheMisses:     m.BlockCache.Misses,
		TableIterators:       m.TableIters,
		Snapshots:            m.Snapshots.Count,
		TableCacheHits:       m.FileCache.Hits,
		TableCacheMisses:     m.FileCache.Misses,
		CompactionsCancelled: m.Compact.CancelledCount,
	}
}

// pebbleBatch writes straight into a *pebble.Batch: a deferred set encodes
// the record in the batch's own space (no intermediate buffer).
type pebbleBatch struct {
	b  *pebble.Batch
	op *pebble.DeferredBatchOp // the pending setDeferred
}

func (b *pebbleBatch) set(k, v []byte) error { return b.b.Set(k, v, nil) }
func (b *pebbleBatch) del(k []byte) error    { return b.b.Delete(k, nil) }

func (b *pebbleBatch) setDeferred(keyLen, valueLen int) ([]byte, []byte) {
	b.op = b.b.SetDeferred(keyLen, valueLen)
	return b.op.Key, b.op.Value
}

func (b *pebbleBatch) finishDeferred() error {
	op := b.op
	b.op = nil
	return op.Finish()
}

func (b *pebbleBatch) count() int  { return int(b.b.Count()) }
func (b *pebbleBatch) size() int   { return b.b.Len() }
func (b *pebbleBatch) empty() bool { return b.b.Empty() }
func (b *pebbleBatch) release()    { b.b.Close() }

// pebbleLogger sends Pebble's messages to slog at debug level (errors at
// error level) instead of stderr.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	if p.l != nil {
		p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
	}
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	if p.l != nil {
		p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
	}
}

func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.l != nil {
		p.l.Error(msg, "component", "pebble")
	}
	panic(msg)
}
