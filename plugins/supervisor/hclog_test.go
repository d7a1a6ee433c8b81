package supervisor

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func TestHCLogAdapter(t *testing.T) {
	tests := []struct {
		name  string
		level slog.Level // handler level
		log   func(l hclog.Logger)
		want  string // substring of the output; "" means no output
	}{
		{"info goes out at debug", slog.LevelDebug, func(l hclog.Logger) { l.Info("hello", "k", 1) }, "level=DEBUG msg=hello logger=plugin.plinko k=1"},
		{"trace goes out at debug", slog.LevelDebug, func(l hclog.Logger) { l.Trace("t") }, "level=DEBUG msg=t"},
		{"info hidden at info", slog.LevelInfo, func(l hclog.Logger) { l.Info("hidden") }, ""},
		{"warn kept", slog.LevelInfo, func(l hclog.Logger) { l.Warn("w") }, "level=WARN msg=w"},
		{"error kept", slog.LevelInfo, func(l hclog.Logger) { l.Error("e") }, "level=ERROR msg=e"},
		{"with and named", slog.LevelDebug, func(l hclog.Logger) { l.With("a", "b").Named("stdio").Debug("x") }, "logger=plugin.plinko.stdio a=b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			l := newHCLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: tt.level}))).Named("plugin").Named("plinko")
			tt.log(l)
			got := buf.String()
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Fatalf("output %q, want %q", got, tt.want)
			}
		})
	}
	if _, ok := newHCLogger(nil).(*slogHCLogger); ok {
		t.Fatal("nil logger must give hclog's null logger")
	}
}

// TestHCLogBoundsPluginText: a plugin's line that quotes a client's 1 MiB
// value (in its message or a value) reaches the host's log bounded.
func TestHCLogBoundsPluginText(t *testing.T) {
	var buf bytes.Buffer
	l := newHCLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	huge := strings.Repeat("x", 1<<20)
	l.Warn("refused login "+huge, "login", huge, "n", 3)
	if buf.Len() > 4*maxPluginText() || !strings.Contains(buf.String(), "(1048590 bytes)") || !strings.Contains(buf.String(), "(1048576 bytes)") {
		t.Errorf("plugin line of %d bytes, want under %d with the lengths of the clipped text:\n%.300s", buf.Len(), 4*maxPluginText(), buf.String())
	}
}
