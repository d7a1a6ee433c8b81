package cli

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
)

// TestPasswordFileOpenToOthersRefused: a PostgreSQL password_file that
// group or others may read is refused with a sentence naming the file, its
// mode and the way out, before any connection (issue 36 item 5).
func TestPasswordFileOpenToOthersRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pg_password")
	if err := os.WriteFile(file, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o640); err != nil {
		t.Fatal(err)
	}
	// The URL names a port nothing listens on: the refusal comes first.
	pc := config.StoragePostgres{URL: "postgres://honmaster@127.0.0.1:1/honmaster?connect_timeout=1", PasswordFile: file, MaxConns: 1}
	_, err := openPostgres(pc, slog.New(slog.DiscardHandler), "", "")
	if err == nil || !errors.Is(err, errConfig) || !strings.Contains(err.Error(), "mode 0640") || !strings.Contains(err.Error(), "chmod 600 "+file) {
		t.Fatalf("password file of mode 0640: %v, want a configuration error naming its mode and chmod 600", err)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := openPostgres(pc, slog.New(slog.DiscardHandler), "", ""); err != nil && strings.Contains(err.Error(), "password_file") {
		t.Errorf("password file of mode 0600 refused: %v", err)
	}
}
