package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/storage/storagetest"
)

// pgConfig writes a configuration file selecting the PostgreSQL backend at
// url, and returns its path.
func pgConfig(t *testing.T, url string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pg.toml")
	body := fmt.Sprintf("[server]\nlisten = \"127.0.0.1:0\"\n[operator]\nlisten = \"127.0.0.1:0\"\n"+
		"[storage]\nbackend = \"postgres\"\n[storage.postgres]\nurl = %q\n", url)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A PostgreSQL setting that cannot work is one sentence and exit status 2;
// a database that cannot be reached is one sentence and 1; neither shows
// the password.
func TestServePostgresStartErrors(t *testing.T) {
	for _, c := range []struct {
		name, url string
		code      int
		says      string
	}{
		{"unparsable url", "postgres://hon:s3cret@127.0.0.1:notaport/hon", 2, "storage.postgres.url"},
		{"not a postgres url", "mysql://hon:s3cret@127.0.0.1/hon", 2, "storage.postgres.url"},
		{"unreachable", "postgres://hon:s3cret@127.0.0.1:1/hon?connect_timeout=5", 1, "cannot use the PostgreSQL database at postgres://hon:xxxxx@127.0.0.1:1/hon"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runMain("serve", "--config", pgConfig(t, c.url), "--data", t.TempDir())
			if code != c.code || !strings.Contains(stderr, c.says) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, c.code, c.says)
			}
			if strings.Contains(stderr, "s3cret") {
				t.Errorf("the password is in the message: %q", stderr)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); c.code == 1 && n > 0 {
				t.Errorf("%d lines; want one sentence: %q", n+1, stderr)
			}
		})
	}
}

// backup on PostgreSQL says to use pg_dump (exit status 2).
func TestBackupOnPostgres(t *testing.T) {
	cfg := pgConfig(t, storagetest.PostgresURL(t))
	data := t.TempDir()
	code, _, stderr := runMain("backup", "--to", filepath.Join(t.TempDir(), "b"), "--config", cfg, "--data", data)
	if code != 2 || !strings.Contains(stderr, "pg_dump") {
		t.Errorf("backup: exit %d, %q; want 2 and pg_dump", code, stderr)
	}
}
