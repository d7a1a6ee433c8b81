// Package logflood provides a slog handler that keeps repeated warnings and
// errors from flooding the log: the first few lines of a kind pass in each
// window, the rest are counted, and one summary line per kind and window
// says how many were suppressed.
//
// A kind is the level, the logger's own attributes (WithAttrs, WithGroup:
// a plugin's name, a component) and the message with every run of digits
// read as one: the storage engine's "open 000123.sst: too many open files"
// and "open 000124.sst: ..." are one kind, and so are a hung plugin's
// failed calls. Lines below the handler's level (debug and info by
// default) always pass: the request log at debug level is asked for.
//
//	log := slog.New(logflood.NewHandler(slog.NewTextHandler(os.Stderr, nil), logflood.Options{Limit: 5, Window: 10 * time.Second}))
package logflood

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// Options configure a Handler.
type Options struct {
	// Limit is how many lines of one kind pass in one window; 0 or less
	// turns the handler off (every line passes).
	Limit int
	// Window is the length of a kind's window, from its first line.
	Window time.Duration
	// Level is the lowest level limited (default slog.LevelWarn).
	Level slog.Leveler
	// Now and AfterFunc are the clock and timer (nil: time.Now and
	// time.AfterFunc); tests inject their own.
	Now       func() time.Time
	AfterFunc func(d time.Duration, f func())
}

// maxKinds bounds the kinds remembered at once. Past it, new kinds share
// one window: a flood of ever-different messages is limited as one kind.
const maxKinds = 1024

// maxKeyMessage bounds the part of a message a kind's key keeps.
const maxKeyMessage = 160

// Handler limits repeated lines; see the package doc.
type Handler struct {
	next   slog.Handler
	prefix string // the attributes and groups of WithAttrs/WithGroup, for the key
	st     *state
}

// state is shared by a handler and those derived from it.
type state struct {
	opt Options

	mu    sync.Mutex
	kinds map[string]*window
}

// window is one kind's current window.
type window struct {
	start      time.Time
	passed     int
	suppressed int
	level      slog.Level
	msg        string       // the first line's message
	h          slog.Handler // the handler the first line went to (its attributes)
	timer      bool         // a summary is scheduled
}

// NewHandler wraps next. With opt.Limit <= 0 it returns next itself.
func NewHandler(next slog.Handler, opt Options) slog.Handler {
	if opt.Limit <= 0 || opt.Window <= 0 {
		return next
	}
	if opt.Level == nil {
		opt.Level = slog.LevelWarn
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.AfterFunc == nil {
		opt.AfterFunc = func(d time.Duration, f func()) { time.AfterFunc(d, f) }
	}
	return &Handler{next: next, st: &state{opt: opt, kinds: map[string]*window{}}}
}

func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.prefix)
	for _, a := range as {
		b.WriteString(a.String())
		b.WriteByte(' ')
	}
	return &Handler{next: h.next.WithAttrs(as), prefix: b.String(), st: h.st}
}

func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), prefix: h.prefix + name + ". ", st: h.st}
}

// Handle passes r, or counts it when its kind's window has had its lines.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < h.st.opt.Level.Level() {
		return h.next.Handle(ctx, r)
	}
	key := r.Level.String() + "\x00" + h.prefix + "\x00" + shape(r.Message)
	now := h.st.opt.Now()
	st := h.st
	st.mu.Lock()
	var due []summary
	w := st.kinds[key]
	if w != nil && now.Sub(w.start) >= st.opt.Window {
		due = append(due, w.summary(st.opt.Window, now))
		delete(st.kinds, key)
		w = nil
	}
	if w == nil {
		if len(st.kinds) >= maxKinds {
			due = append(due, st.expireLocked(now)...)
		}
		if len(st.kinds) >= maxKinds {
			key = "\x00overflow"
			w = st.kinds[key]
		}
		if w == nil {
			w = &window{start: now, level: r.Level, msg: r.Message, h: h.next}
			st.kinds[key] = w
		}
	}
	pass := w.passed < st.opt.Limit
	if pass {
		w.passed++
	} else {
		w.suppressed++
		if !w.timer {
			// The summary comes when the window ends even if the flood
			// stops: no later line of the kind has to bring it out.
			w.timer = true
			st.opt.AfterFunc(w.start.Add(st.opt.Window).Sub(now), st.flush)
		}
	}
	st.mu.Unlock()
	emit(ctx, due)
	if !pass {
		return nil
	}
	return h.next.Handle(ctx, r)
}

// flush writes the summaries of the windows that have ended.
func (st *state) flush() {
	st.mu.Lock()
	due := st.expireLocked(st.opt.Now())
	st.mu.Unlock()
	emit(context.Background(), due)
}

// expireLocked drops the windows that have ended and returns their
// summaries. st.mu is held.
func (st *state) expireLocked(now time.Time) []summary {
	var due []summary
	for k, w := range st.kinds {
		if now.Sub(w.start) >= st.opt.Window {
			due = append(due, w.summary(st.opt.Window, now))
			delete(st.kinds, k)
		}
	}
	return due
}

// summary is a line to write about a window, if it suppressed any.
type summary struct {
	h slog.Handler
	r slog.Record
}

func (w *window) summary(d time.Duration, now time.Time) summary {
	if w.suppressed == 0 {
		return summary{}
	}
	r := slog.NewRecord(now, w.level, fmt.Sprintf("%d more log lines like this suppressed in %s", w.suppressed, d), 0)
	r.AddAttrs(slog.String("like", w.msg), slog.Int("suppressed", w.suppressed))
	return summary{h: w.h, r: r}
}

func emit(ctx context.Context, due []summary) {
	for _, s := range due {
		if s.h != nil {
			s.h.Handle(ctx, s.r)
		}
	}
}

// shape is a message with every run of digits as one '#', cut to
// maxKeyMessage bytes: the key of lines that differ only by numbers
// (object numbers, counts, durations, addresses).
func shape(msg string) string {
	var b strings.Builder
	digits := false
	for i := 0; i < len(msg) && b.Len() < maxKeyMessage; i++ {
		c := msg[i]
		if '0' <= c && c <= '9' {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteByte(c)
	}
	return b.String()
}
