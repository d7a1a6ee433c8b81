package cli

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
)

// TestFileLimitWarning (issue 22 item 5b): a file limit of 300 under
// max_connections 10000 is said at start; a limit that fits is not.
func TestFileLimitWarning(t *testing.T) {
	cfg := config.Default()
	for _, tc := range []struct {
		name       string
		soft, hard uint64
		err        error
		want       string
	}{
		{"limit 300", 300, 300, nil, "open_file_limit=300 hard_limit=300 needed=11112"},
		{"just enough", 11112, 11112, nil, ""},
		{"one short", 11111, 1 << 20, nil, "open_file_limit=11111"},
		{"unreadable", 0, 0, errors.New("no"), "cannot read the open-file limit"},
	} {
		var buf bytes.Buffer
		checkFileLimit(cfg, 3, slog.New(slog.NewTextHandler(&buf, nil)), func() (uint64, uint64, error) { return tc.soft, tc.hard, tc.err })
		got := buf.String()
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: logged %q, want %q", tc.name, got, tc.want)
		}
	}
	// The real limit can be read.
	if soft, hard, err := fileLimit(); err != nil || soft == 0 || soft > hard {
		t.Errorf("fileLimit = %d, %d, %v", soft, hard, err)
	}
}
