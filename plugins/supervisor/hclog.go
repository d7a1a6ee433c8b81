package supervisor

import (
	"context"
	"io"
	"log"
	"log/slog"

	"github.com/hashicorp/go-hclog"

	"github.com/honmaster/masterserver/host/logflood"
)

// slogHCLogger is an hclog.Logger that writes to a *slog.Logger, so
// go-plugin's own logs and the logs a plugin writes on stderr (which
// go-plugin relays) end up in the host's log. go-plugin's chatter (trace,
// debug, info) goes out at debug level.
type slogHCLogger struct {
	l    *slog.Logger
	name string
	args []any
}

var _ hclog.Logger = (*slogHCLogger)(nil)

func newHCLogger(l *slog.Logger) hclog.Logger {
	if l == nil {
		return hclog.NewNullLogger()
	}
	return &slogHCLogger{l: l}
}

func slogLevel(level hclog.Level) slog.Level {
	switch level {
	case hclog.Warn:
		return slog.LevelWarn
	case hclog.Error:
		return slog.LevelError
	default:
		return slog.LevelDebug
	}
}

func (h *slogHCLogger) Log(level hclog.Level, msg string, args ...any) {
	ctx := context.Background()
	lvl := slogLevel(level)
	if !h.l.Enabled(ctx, lvl) {
		return
	}
	all := make([]any, 0, len(h.args)+len(args)+2)
	if h.name != "" {
		all = append(all, "logger", h.name)
	}
	all = append(all, h.args...)
	all = append(all, args...)
	for i, a := range all {
		if s, ok := a.(string); ok {
			all[i] = logflood.ClipTo(s, maxPluginText())
		}
	}
	h.l.Log(ctx, lvl, logflood.ClipTo(msg, maxPluginText()), all...)
}

// maxPluginText bounds the message and each text value of a plugin's log
// line: the plugin's own words, in which it may quote what a client sent
// (a long login, a report's text), so a client cannot fill the host's log
// through a plugin either. 16 times server.log_value_limit (1 KiB by
// default): a plugin's error is worth reading whole.
func maxPluginText() int { return 16 * logflood.ClipBytes() }

func (h *slogHCLogger) Trace(msg string, args ...any) { h.Log(hclog.Trace, msg, args...) }
func (h *slogHCLogger) Debug(msg string, args ...any) { h.Log(hclog.Debug, msg, args...) }
func (h *slogHCLogger) Info(msg string, args ...any)  { h.Log(hclog.Info, msg, args...) }
func (h *slogHCLogger) Warn(msg string, args ...any)  { h.Log(hclog.Warn, msg, args...) }
func (h *slogHCLogger) Error(msg string, args ...any) { h.Log(hclog.Error, msg, args...) }

func (h *slogHCLogger) enabled(level hclog.Level) bool {
	return h.l.Enabled(context.Background(), slogLevel(level))
}

func (h *slogHCLogger) IsTrace() bool { return h.enabled(hclog.Trace) }
func (h *slogHCLogger) IsDebug() bool { return h.enabled(hclog.Debug) }
func (h *slogHCLogger) IsInfo() bool  { return h.enabled(hclog.Info) }
func (h *slogHCLogger) IsWarn() bool  { return h.enabled(hclog.Warn) }
func (h *slogHCLogger) IsError() bool { return h.enabled(hclog.Error) }

func (h *slogHCLogger) ImpliedArgs() []any { return h.args }

func (h *slogHCLogger) With(args ...any) hclog.Logger {
	c := *h
	c.args = append(append([]any(nil), h.args...), args...)
	return &c
}

func (h *slogHCLogger) Name() string { return h.name }

func (h *slogHCLogger) Named(name string) hclog.Logger {
	c := *h
	if c.name != "" {
		name = c.name + "." + name
	}
	c.name = name
	return &c
}

func (h *slogHCLogger) ResetNamed(name string) hclog.Logger {
	c := *h
	c.name = name
	return &c
}

// SetLevel is ignored: the slog handler decides what is written.
func (h *slogHCLogger) SetLevel(hclog.Level) {}

func (h *slogHCLogger) GetLevel() hclog.Level {
	if h.enabled(hclog.Debug) {
		return hclog.Debug
	}
	return hclog.Warn
}

func (h *slogHCLogger) StandardLogger(*hclog.StandardLoggerOptions) *log.Logger {
	return slog.NewLogLogger(h.l.Handler(), slog.LevelDebug)
}

func (h *slogHCLogger) StandardWriter(opts *hclog.StandardLoggerOptions) io.Writer {
	return h.StandardLogger(opts).Writer()
}
