package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/cli"
)

// TestADataDirectoryTooLongForTheAdminSocket: a data directory whose admin
// socket path a Unix socket address cannot hold passed, the server opened
// the database and started every plugin, then failed with "admin socket:
// listen unix ...: bind: invalid argument", naming neither the setting
// nor the limit. It is refused first now (exit 2), nothing created. (From
// a review of the command line; failed before.)
func TestADataDirectoryTooLongForTheAdminSocket(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("a", 60), strings.Repeat("b", 40))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // should it serve, it stops then
	defer cancel()
	var out, errOut strings.Builder
	code := cli.Main(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--operator-listen", "127.0.0.1:0", "--data", dir}, &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "storage.data_dir (--data)") || !strings.Contains(errOut.String(), "Unix socket path holds at most") {
		t.Errorf("a data directory too long for its admin socket: exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the data directory was created (%v)", err)
	}
}
