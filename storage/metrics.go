package storage

import (
	"time"
)

// EngineStats are the database engine's own figures, without engine types, for
// metrics: sizes in bytes, counts since the database was opened.
type EngineStats struct {
	DiskSpaceBytes       uint64 // everything the database keeps on disk
	LiveTableBytes       uint64
	LiveTables           uint64
	ReadAmplification    int // sublevels of L0 plus non-empty lower levels
	L0Sublevels          int
	L0Tables             int64
	MemtableBytes        uint64
	Memtables            int64
	WALBytes             uint64 // live WAL size
	WALBytesWritten      uint64 // physical bytes written to the WAL
	WALBytesIn           uint64 // logical bytes written to the WAL
	Flushes              int64
	Compactions          int64
	CompactionDebtBytes  uint64 // estimated bytes compactions still owe
	CompactionsRunning   int64
	BlockCacheBytes      int64
	BlockCacheHits       int64
	BlockCacheMisses     int64
	TableIterators       int64
	Snapshots            int
	TableCacheHits       int64
	TableCacheMisses     int64
	CompactionsCancelled int64
}

// EngineStats reads the engine's metrics (cheap: a snapshot of counters).
func (db *DB) EngineStats() EngineStats { return db.eng.engineStats() }

// CommitInfo describes one synced commit, for metrics.
type CommitInfo struct {
	Ops      int // records written or deleted
	Bytes    int // encoded batch size
	Duration time.Duration
	Err      error
}

// SetCommitObserver makes every Commit report to f (nil stops it). f runs
// on the committing goroutine (an actor): it must be quick.
func (db *DB) SetCommitObserver(f func(CommitInfo)) {
	if f == nil {
		db.onCommit.Store(nil)
		return
	}
	db.onCommit.Store(&f)
}

// observeCommit reports a commit to the observer, if any.
func (db *DB) observeCommit(ops, bytes int, start time.Time, err error) {
	if f := db.onCommit.Load(); f != nil {
		(*f)(CommitInfo{Ops: ops, Bytes: bytes, Duration: time.Since(start), Err: err})
	}
}
