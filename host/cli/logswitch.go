package cli

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"

	"github.com/honmaster/masterserver/config"
)

// NewServeLogger is the logger of serve: newLogger's, whose level, format
// and repeat limits a configuration reload changes in place (Reload), for
// every logger derived from it with With too (the plugins', the storage
// engine's).
func NewServeLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	sw := &logSwitch{w: w, floor: slog.LevelDebug}
	sw.apply(cfg)
	return slog.New(&switchHandler{sw: sw})
}

// logSwitch holds the handler in force; apply replaces it.
type logSwitch struct {
	w     io.Writer
	floor slog.Level
	cur   atomic.Pointer[rootHandler]
}

// rootHandler boxes a handler so that a derived handler can tell by pointer
// whether the one it was built on is still in force.
type rootHandler struct{ h slog.Handler }

func (sw *logSwitch) apply(cfg *config.Config) {
	sw.cur.Store(&rootHandler{h: newLogger(cfg, sw.w, sw.floor).Handler()})
}

// switchHandler sends each record to the handler in force, with the
// attributes and groups it was derived with (WithAttrs, WithGroup) applied
// to it; the derivation is cached until the next switch.
type switchHandler struct {
	sw      *logSwitch
	derive  []func(slog.Handler) slog.Handler
	derived atomic.Pointer[derivedHandler]
}

type derivedHandler struct {
	root *rootHandler
	h    slog.Handler
}

// logSwitchOf returns the switch of a logger made by NewServeLogger, or nil.
func logSwitchOf(log *slog.Logger) *logSwitch {
	if h, ok := log.Handler().(*switchHandler); ok {
		return h.sw
	}
	return nil
}

func (h *switchHandler) current() slog.Handler {
	root := h.sw.cur.Load()
	if d := h.derived.Load(); d != nil && d.root == root {
		return d.h
	}
	out := root.h
	for _, f := range h.derive {
		out = f(out)
	}
	h.derived.Store(&derivedHandler{root: root, h: out})
	return out
}

func (h *switchHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.current().Enabled(ctx, l)
}

func (h *switchHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.current().Handle(ctx, r)
}

func (h *switchHandler) with(f func(slog.Handler) slog.Handler) *switchHandler {
	derive := make([]func(slog.Handler) slog.Handler, len(h.derive), len(h.derive)+1)
	copy(derive, h.derive)
	return &switchHandler{sw: h.sw, derive: append(derive, f)}
}

func (h *switchHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.with(func(next slog.Handler) slog.Handler { return next.WithAttrs(attrs) })
}

func (h *switchHandler) WithGroup(name string) slog.Handler {
	return h.with(func(next slog.Handler) slog.Handler { return next.WithGroup(name) })
}
