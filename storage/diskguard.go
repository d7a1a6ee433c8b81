package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"syscall"
	"time"
)

var (
	// ErrDiskFull is returned by Commit, at once and with nothing written,
	// while the data directory's filesystem has less free space than the
	// guard's margin. Writes are accepted again as soon as space returns.
	ErrDiskFull = errors.New("storage: not enough free disk space; writes refused")
	// ErrCommitUncertain marks a commit that failed inside the storage
	// engine: it may or may not be durable (it can surface after a
	// restart), so the request must not be answered as a plain failure.
	ErrCommitUncertain = errors.New("storage: commit failed; outcome unknown")
	// ErrEngineFailed is returned by Commit, at once and with nothing
	// written, after the storage engine failed fatally (Pebble panics when
	// it cannot write its log): only a restart brings writes back.
	ErrEngineFailed = errors.New("storage: the storage engine failed; restart the server")
)

// DiskGuard refuses writes below a free-space margin and keeps the health
// of storage: whether writes are refused or recent commits failed. Reads are
// never affected. A nil *DiskGuard refuses nothing and is always healthy.
type DiskGuard struct {
	margin uint64
	free   func() (uint64, error)
	log    *slog.Logger
	now    func() time.Time

	mu        sync.Mutex
	checkedAt time.Time
	low       bool
	freeBytes uint64
	failedAt  time.Time // last commit failure; cleared by a success
	lastErr   error
	loggedAt  time.Time
	muted     int   // failures not logged since loggedAt
	fatal     error // set once the engine failed fatally
}

// Intervals of the guard: free space is measured at most once per
// diskCheckEvery (a statfs call); storage counts as failing for
// failureMemory after a failed commit unless one succeeds meanwhile; commit
// failures are logged at most once per errorLogEvery.
const (
	diskCheckEvery = time.Second
	failureMemory  = 30 * time.Second
	errorLogEvery  = 5 * time.Second
)

// NewDiskGuard guards the filesystem holding dir with the given margin in
// bytes. free may be nil (statfs of dir); tests pass a fake.
func NewDiskGuard(dir string, margin uint64, free func() (uint64, error), log *slog.Logger) *DiskGuard {
	if free == nil {
		free = func() (uint64, error) { return FreeSpace(dir) }
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &DiskGuard{margin: margin, free: free, log: log, now: time.Now}
}

// FreeSpace returns the bytes available to an unprivileged user on the
// filesystem holding dir.
func FreeSpace(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// SetDiskGuard installs g; Commit consults it before every write.
// It may be called at any time.
func (db *DB) SetDiskGuard(g *DiskGuard) { db.guard.Store(g) }

// Health is nil while storage accepts and completes writes, and otherwise
// says why not (for /healthz).
func (db *DB) Health() error {
	if err := db.eng.health(); err != nil {
		return err
	}
	return db.guard.Load().Health()
}

// apply commits b synced. Pebble panics on a fatal commit error (its log
// cannot be written, as on a full disk); the panic is turned into an
// uncertain error here, and the guard then refuses every later commit
// rather than let it hang on a broken engine.
func (g *DiskGuard) apply(e engine, b engineBatch, c *conditions) error {
	return g.run(func() error { return e.apply(b, c) })
}

// run runs a write of the engine with its panics recovered as apply's.
func (g *DiskGuard) run(write func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrEngineFailed, r)
			if g != nil {
				g.mu.Lock()
				g.fatal = err
				g.mu.Unlock()
				g.log.Error("storage engine failed: writes refused until restart", "err", err)
			}
		}
	}()
	return write()
}

// admit refuses a commit while free space is below the margin, or for good
// once the engine failed.
func (g *DiskGuard) admit() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fatal != nil {
		return g.fatal
	}
	if g.margin == 0 {
		return nil
	}
	g.refresh()
	if g.low {
		return fmt.Errorf("%w: %d bytes free, margin %d", ErrDiskFull, g.freeBytes, g.margin)
	}
	return nil
}

// refresh measures free space if the last measure is old. g.mu is held.
func (g *DiskGuard) refresh() {
	now := g.now()
	if !g.checkedAt.IsZero() && now.Sub(g.checkedAt) < diskCheckEvery {
		return
	}
	g.checkedAt = now
	free, err := g.free()
	if err != nil {
		// Cannot measure: do not refuse writes on that alone; the commit
		// itself will tell.
		g.low = false
		return
	}
	was := g.low
	g.freeBytes, g.low = free, free < g.margin
	switch {
	case g.low && !was:
		g.log.Error("free disk space below the margin: writes refused until space returns",
			"free_bytes", free, "margin_bytes", g.margin)
	case was && !g.low:
		g.log.Warn("free disk space back above the margin: writes accepted", "free_bytes", free)
	}
}

// failed records a failed commit, logs it (rate limited: a full disk fails
// every commit) and returns it marked uncertain.
func (g *DiskGuard) failed(err error) error {
	return g.record(fmt.Errorf("%w: %w", ErrCommitUncertain, err), "storage commit failed")
}

// refused records a commit that failed with nothing written (the database
// could not be reached or refused it), for Health, and returns it as is.
func (g *DiskGuard) refused(err error) error {
	return g.record(err, "storage commit failed; nothing written")
}

// record keeps err for Health and logs it as msg, at most once per
// errorLogEvery with the count of the failures not logged in between.
func (g *DiskGuard) record(err error, msg string) error {
	if g == nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	g.failedAt, g.lastErr = now, err
	if now.Sub(g.loggedAt) < errorLogEvery {
		g.muted++
		return err
	}
	g.log.Error(msg, "err", err, "similar_failures_not_logged", g.muted)
	g.loggedAt, g.muted = now, 0
	return err
}

// succeeded records a completed commit.
func (g *DiskGuard) succeeded() {
	if g == nil {
		return
	}
	g.mu.Lock()
	if !g.failedAt.IsZero() {
		g.failedAt, g.lastErr = time.Time{}, nil
	}
	g.mu.Unlock()
}

// Health is nil when writes are accepted and the last commits did not
// fail.
func (g *DiskGuard) Health() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fatal != nil {
		return g.fatal
	}
	if g.margin > 0 {
		g.refresh()
		if g.low {
			return fmt.Errorf("%w: %d bytes free, margin %d", ErrDiskFull, g.freeBytes, g.margin)
		}
	}
	if !g.failedAt.IsZero() && g.now().Sub(g.failedAt) < failureMemory {
		return g.lastErr
	}
	return nil
}

// RateLimitedLogger returns a logger that passes every record below warning
// level and, at warning level and above, at most one record per message
// start (its first 40 bytes) per interval, adding how many it dropped. Give
// it to Open as Options.Logger: a failing disk makes the storage engine log
// the same error hundreds of times a second.
func RateLimitedLogger(l *slog.Logger, every time.Duration) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(&limitedHandler{Handler: l.Handler(), every: every, st: &limitedState{seen: map[string]*limitedEntry{}}})
}

type limitedHandler struct {
	slog.Handler
	every time.Duration
	st    *limitedState
}

type limitedState struct {
	mu   sync.Mutex
	seen map[string]*limitedEntry
}

type limitedEntry struct {
	at      time.Time
	dropped int
}

func (h *limitedHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.Handler.Handle(ctx, r)
	}
	key := r.Message
	if len(key) > 40 {
		key = key[:40]
	}
	h.st.mu.Lock()
	e := h.st.seen[key]
	if e != nil && r.Time.Sub(e.at) < h.every {
		e.dropped++
		h.st.mu.Unlock()
		return nil
	}
	if len(h.st.seen) >= 1024 {
		clear(h.st.seen) // bounded memory; at worst a few extra lines
	}
	dropped := 0
	if e != nil {
		dropped = e.dropped
	}
	h.st.seen[key] = &limitedEntry{at: r.Time}
	h.st.mu.Unlock()
	if dropped > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("similar_lines_dropped", dropped))
	}
	return h.Handler.Handle(ctx, r)
}

func (h *limitedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &limitedHandler{Handler: h.Handler.WithAttrs(as), every: h.every, st: h.st}
}

func (h *limitedHandler) WithGroup(name string) slog.Handler {
	return &limitedHandler{Handler: h.Handler.WithGroup(name), every: h.every, st: h.st}
}
