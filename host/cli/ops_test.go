package cli_test

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/storage"
)

// TestBackupWhileRunning takes a backup through the running server and
// opens it as a database.
func TestBackupWhileRunning(t *testing.T) {
	ts := start(t, onPebble)
	ts.Host(t, "account", "create", "--login", "saved", "--password", "pw")
	dir := filepath.Join(t.TempDir(), "backup")
	if out := ts.Host(t, "backup", "--to", dir); !strings.Contains(out, dir) {
		t.Fatalf("backup said %q", out)
	}
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.LoginID("saved"); err != nil {
		t.Errorf("backup lacks the account: %v", err)
	}
}

func TestRegister(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		enabled bool
		form    url.Values
		status  int
		field   string // "account_id" or "error"
	}{
		{"ok", true, url.Values{"login": {"newbie"}, "password": {"pw"}, "email": {"n@example.invalid"}}, 200, "account_id"},
		{"taken", true, url.Values{"login": {"taken"}, "password": {"pw"}}, 409, "error"},
		{"bad login", true, url.Values{"login": {"no spaces"}, "password": {"pw"}}, 400, "error"},
		{"too long", true, url.Values{"login": {"abcdefghijklm"}, "password": {"pw"}}, 400, "error"},
		{"no password", true, url.Values{"login": {"nopw"}}, 400, "error"},
		{"bad email", true, url.Values{"login": {"mail"}, "password": {"pw"}, "email": {"nope"}}, 400, "error"},
		{"disabled", false, url.Values{"login": {"late"}, "password": {"pw"}}, 403, "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := start(t, func(c *config.Config) { c.Portal.RegisterEnabled = tc.enabled })
			ts.Host(t, "account", "create", "--login", "taken", "--password", "x")
			r, err := ts.Client.PostForm(ctx, "/portal/register", tc.form)
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatalf("not JSON: %s", r.Body)
			}
			if r.Status != tc.status || body[tc.field] == nil {
				t.Fatalf("status %d body %s; want %d with %s", r.Status, r.Body, tc.status, tc.field)
			}
			if tc.status == 200 {
				if _, err := ts.Client.Login(ctx, tc.form.Get("login"), tc.form.Get("password")); err != nil {
					t.Errorf("registered account cannot log in: %v", err)
				}
			}
		})
	}
}

// TestSIGTERMShutsDownGracefully stops a real server process with SIGTERM:
// it exits 0, removes its admin socket, and the data directory opens again.
func TestSIGTERMShutsDownGracefully(t *testing.T) {
	bin := buildHost(t)
	data := t.TempDir()
	cmd, _ := startHost(t, bin, data)
	runHost(t, bin, "account", "create", "--data", data, "--login", "term", "--password", "pw")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not exit after SIGTERM")
	}
	if matches, _ := filepath.Glob(filepath.Join(data, "admin.sock")); len(matches) != 0 {
		t.Error("admin socket left behind")
	}
	if out := runHost(t, bin, "account", "show", "--data", data, "--login", "term"); !strings.Contains(out, `"term"`) {
		t.Errorf("after shutdown: %s", out)
	}
}
