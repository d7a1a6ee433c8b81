package cluster

import (
	"context"
	"log/slog"
	"time"
)

// grainIdle is how long an account's grain lives without a request (as an
// idle account actor: actors.Options.IdleTimeout's default).
const grainIdle = 5 * time.Minute

// protoactorLogger is the logger protoactor gets: its Info lines (every
// topology, every member joined) are this server's Debug, and its errors
// (a request to a member that just left) its warnings.
func protoactorLogger(l *slog.Logger) *slog.Logger {
	return slog.New(demoted{l.Handler().WithAttrs([]slog.Attr{slog.String("source", "protoactor")})})
}

type demoted struct{ h slog.Handler }

func demote(l slog.Level) slog.Level {
	switch {
	case l >= slog.LevelError:
		return slog.LevelWarn
	case l >= slog.LevelInfo && l < slog.LevelWarn:
		return slog.LevelDebug
	}
	return l
}

func (d demoted) Enabled(ctx context.Context, l slog.Level) bool { return d.h.Enabled(ctx, demote(l)) }

func (d demoted) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return d.h.Handle(ctx, r)
}

func (d demoted) WithAttrs(as []slog.Attr) slog.Handler { return demoted{d.h.WithAttrs(as)} }
func (d demoted) WithGroup(g string) slog.Handler       { return demoted{d.h.WithGroup(g)} }
