package cli_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/honmaster/masterserver/host/client"
)

// TestReportsSurviveKill9 files reports over HTTP and resolves one through
// the running server, kills the server with SIGKILL, and checks with the
// server stopped that every acknowledged report, its queue entry and its
// reportee index entry, and the resolution are on disk; then restarts the
// server and sees the suspension in the next session record.
func TestReportsSurviveKill9(t *testing.T) {
	bin := buildHost(t)
	data := t.TempDir()
	cmd, addr := startHost(t, bin, data)
	for _, l := range []string{"rep", "bad", "other"} {
		runHost(t, bin, "account", "create", "--data", data, "--login", l, "--password", "pw")
	}
	ctx := context.Background()
	c := client.New("http://" + addr)
	s, err := c.Login(ctx, "rep", "pw")
	if err != nil {
		t.Fatal(err)
	}
	const n = 6 // the default per_day is 20, per_reportee 2: alternate reportees
	for i := 0; i < n; i++ {
		who := []string{"bad", "other"}[i%2]
		if i >= 4 {
			who = "bad" // refused: per-reportee limit
		}
		r, err := c.PostForm(ctx, "/master/report/report", url.Values{"reporter_id": {s.AccountID}, "cookie": {s.Cookie},
			"reportee_name": {who}, "reason_type": {"1"}, "report_description": {fmt.Sprintf("report %d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		a, err := r.PHP()
		if err != nil {
			t.Fatal(err)
		}
		rs, _ := a.Int("report_success")
		if want := map[bool]int64{true: 1, false: 2}[i < 4]; rs != want {
			t.Fatalf("report %d: report_success %d, want %d", i, rs, want)
		}
	}
	out := runHost(t, bin, "reports", "resolve", s.AccountID+"-1", "--action", "suspend", "--days", "2", "--data", data)
	if !strings.Contains(out, "suspended") {
		t.Fatalf("resolve: %q", out)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	// The server is gone: the commands open the data directory themselves.
	out = runHost(t, bin, "reports", "list", "--status", "any", "--data", data)
	if !strings.Contains(out, "4 report(s)") || !strings.Contains(out, s.AccountID+"-1 ") || !strings.Contains(out, "suspended") {
		t.Errorf("after kill -9:\n%s", out)
	}
	out = runHost(t, bin, "reports", "list", "--reportee", "bad", "--status", "any", "--data", data)
	if !strings.Contains(out, "2 report(s)") {
		t.Errorf("reportee index after kill -9:\n%s", out)
	}
	out = runHost(t, bin, "reports", "show", s.AccountID+"-4", "--data", data)
	if !strings.Contains(out, `text:       "report 3"`) {
		t.Errorf("last acknowledged report after kill -9:\n%s", out)
	}

	// Restart: the suspension is in the next session record, the per
	// reportee limit still counts the reports from before the crash.
	_, addr = startHost(t, bin, data)
	c = client.New("http://" + addr)
	b, err := c.Login(ctx, "bad", "pw")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := b.Record.String("susp_id"); v != "1" {
		t.Errorf("susp_id after restart = %q, want 1", v)
	}
	s, err = c.Login(ctx, "rep", "pw")
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.PostForm(ctx, "/master/report/report", url.Values{"reporter_id": {s.AccountID}, "cookie": {s.Cookie},
		"reportee_name": {"other"}, "reason_type": {"1"}, "report_description": {"third"}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := r.PHP()
	if rs, _ := a.Int("report_success"); rs != 2 {
		t.Errorf("third report against other after restart: report_success %d, want 2 (limit)", rs)
	}
}
