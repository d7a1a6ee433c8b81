package storage

// engine is the ordered key/value store under a DB: the only place a
// storage engine's own types appear. Every record, keyspace, index and
// migration of the package is written in terms of it, so a backend is one
// implementation of these few calls (pebble.go: the embedded default;
// postgres.go: a PostgreSQL table). Keys compare bytewise (memcmp, then
// length), the order Pebble's default comparer and PostgreSQL's bytea share.
type engine interface {
	reader
	newBatch() engineBatch
	// apply commits b atomically and durably (synced), only if every
	// condition of c holds (c nil: none; see conditions.go), checked in the
	// same atomic step; the conditions' own writes (inserts, swaps) commit
	// with b. An error that wraps errNotCommitted, or a *ConflictError or
	// *FencedError, is a definite failure: nothing was written. Any other
	// error may hide a commit (its outcome is unknown).
	apply(b engineBatch, c *conditions) error
	// update reads key's value locked against every other update and every
	// conditional apply that checks key (Fence), calls fn with it (found
	// false: none; fn may run more than once) and writes what fn returns
	// under key (nil: nothing), in one atomic step. Errors as apply's.
	update(key []byte, fn func(old []byte, found bool) ([]byte, error)) error
	// checkpoint writes a consistent copy into dir (errNoCheckpoint where
	// the engine has none).
	checkpoint(dir string) error
	// health is nil unless the engine refuses writes: for good (a
	// database lock lost for good) or for now (ErrUnavailable: the
	// database cannot be reached, its lock is being taken again);
	// DB.Health reports it.
	health() error
	stats() DBStats
	engineStats() EngineStats
	// releaseMemory gives what the engine caches in memory back to the
	// operating system, where it can (DB.ReleaseMemory).
	releaseMemory()
	close() error
}

// reader is what reads the database: an engine, or one transaction of it.
type reader interface {
	// view calls fn with the value of key, valid only during the call;
	// ErrNotFound when there is none.
	view(key []byte, fn func(v []byte) error) error
	// scan calls fn, in key order, with every key in [lo, hi) (hi nil: no
	// upper bound) until fn errs; the slices are valid only during the call.
	scan(lo, hi []byte, fn func(k, v []byte) error) error
}

// engineBatch buffers one commit's sets and deletes, in order: a later
// write of a key wins.
type engineBatch interface {
	set(k, v []byte) error
	del(k []byte) error
	// setDeferred reserves a set of a key of keyLen bytes and a value of
	// valueLen bytes, to be filled by the caller and then completed by
	// finishDeferred (before any other call on the batch).
	setDeferred(keyLen, valueLen int) (k, v []byte)
	finishDeferred() error
	// count is the number of writes; size their encoded bytes.
	count() int
	size() int
	empty() bool
	// release frees the batch (after apply, or instead of it).
	release()
}
