package operator

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/logflood"
)

// TestAuditValuesClipped: a line of the trail is bounded whatever the
// request held: the account and each value of the change keep
// server.log_value_limit bytes and their length (a console form with a
// 200,000-character nickname wrote a line of 200,295 bytes), the outcome
// and the result 16 times that; short values are kept as they are.
func TestAuditValuesClipped(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	huge := strings.Repeat("n", 200_000)
	upgrades := make([]string, 5000)
	for i := range upgrades {
		upgrades[i] = "aa.Hero.Alt"
	}
	Audit(log, ByConsole("admin"), "account/subaccount", huge,
		[]any{"nickname", huge + "\n\x00\u202e", huge, "v", "gold", int64(7), "operator", true, "upgrade", upgrades, "short", []string{"a", "b"}},
		errors.New(`no account has the login "`+huge+`"`), "addr", "127.0.0.1", "result", huge)
	line := buf.String()
	if max := 2*16*logflood.ClipBytes() + 20*logflood.ClipBytes(); len(line) > max {
		t.Fatalf("the line is %d bytes, more than %d", len(line), max)
	}
	n := strings.Repeat("n", logflood.ClipBytes())
	for _, want := range []string{
		`account="` + n + `...(200000 bytes)"`,
		`change.nickname="` + n + `...(200005 bytes)"`,
		`"change.` + n + `...(200000 bytes)"=v`, // a field's name
		"change.gold=7", "change.operator=true", `change.short="[a b]"`,
		`change.upgrade="[aa.Hero.Alt aa.Hero.Alt`, "...(60001 bytes)",
		`outcome="failed: no account has the login \"nnnn`, "...(200035 bytes)", "addr=127.0.0.1", `result="nnnn`,
	} {
		if !strings.Contains(line, want) {
			t.Errorf("the line lacks %q:\n%.3000s", want, line)
		}
	}
	if strings.Count(line, "\n") != 1 {
		t.Errorf("the line is not one line:\n%.2000s", line)
	}
}
