package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
)

// TestJSONLogHasNoDuplicateKeys: with log_format = "json" at debug level,
// no line of a start and stop (plugins included) repeats a key (a
// duplicate "plugin" key made lines ambiguous to log collectors).
func TestJSONLogHasNoDuplicateKeys(t *testing.T) {
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	cfg.Server.Listen, cfg.Operator.Listen = "127.0.0.1:0", "127.0.0.1:0"
	cfg.Server.LogFormat, cfg.Server.LogLevel = config.LogJSON, config.LogDebug
	var logs syncBuffer
	rt, err := cli.Start(context.Background(), cfg, cli.NewServeLogger(cfg, &logs), false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Stop(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		lines++
		if dup := duplicateKey(sc.Text()); dup != "" {
			t.Errorf("key %q twice in %s", dup, sc.Text())
		}
	}
	if lines < 5 {
		t.Fatalf("only %d log lines:\n%s", lines, logs.String())
	}
}

// duplicateKey returns a top-level key that line (a JSON object) has
// twice, or "".
func duplicateKey(line string) string {
	d := json.NewDecoder(strings.NewReader(line))
	if _, err := d.Token(); err != nil { // {
		return ""
	}
	seen := map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		key, _ := tok.(string)
		if seen[key] {
			return key
		}
		seen[key] = true
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}
