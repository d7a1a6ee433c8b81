package cli_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
)

// holdDataDirEnv names the data directory the "holddb" role opens.
const holdDataDirEnv = "CLI_TEST_HOLD_DATA"

// holdDataDir (the test binary's "holddb" role) opens the data directory,
// says "open" on stdout, and holds it until stdin closes.
func holdDataDir() {
	cfg := config.Default()
	cfg.Storage.DataDir = os.Getenv(holdDataDirEnv)
	app, err := cli.OpenApp(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("open\n")
	io.Copy(io.Discard, os.Stdin)
	app.Close()
}

// TestDataDirInUseWorded: a data directory whose database another process
// holds (without an admin socket: a server starting or stopping, another
// command) is refused by serve and by an operator command with one
// sentence, not the storage engine's lock error.
func TestDataDirInUseWorded(t *testing.T) {
	dir := t.TempDir()
	holder := exec.Command(os.Args[0])
	holder.Env = append(os.Environ(), pluginRoleEnv+"=holddb", holdDataDirEnv+"="+dir)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); holder.Wait() })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		if s != "open\n" {
			t.Fatalf("holder: %q", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("holder did not open the data directory")
	}
	conf := loopbackConfig(t)
	for _, args := range [][]string{
		{"serve", "--data", dir, "--listen", "127.0.0.1:0", "--config", conf},
		{"account", "show", "--login", "x", "--data", dir},
	} {
		code, _, errOut := runMain(args...)
		if code != 1 || !strings.Contains(errOut, "is in use by another process") {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, errOut)
		}
		operatorWorded(t, args[0], errOut)
	}
}

// runMain calls cli.Main as the binary would.
func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = cli.Main(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}
