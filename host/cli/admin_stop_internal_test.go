package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
)

// TestAnAdminCommandDuringTheStopDoesNotCrashIt: a command that reached
// the admin socket before the stop ran after it: stopAdm only closed the
// listener, App.Close then closed the database under the command, and its
// read panicked (Pebble panics on a closed database), crashing the
// stopping server. The stop now cancels the commands running and waits
// for them, and one whose request it cut short is refused, nothing done.
// The scenarios run in a child process (a panic ends the whole binary);
// the parent checks how they ended. (From a review of the operator
// commands; the child panicked before.)
func TestAnAdminCommandDuringTheStopDoesNotCrashIt(t *testing.T) {
	if os.Getenv("HONMASTER_ADMIN_STOP_CHILD") == "1" {
		adminCommandDuringStop(t, true)
		adminCommandDuringStop(t, false)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAnAdminCommandDuringTheStopDoesNotCrashIt$", "-test.v")
	cmd.Env = append(os.Environ(), "HONMASTER_ADMIN_STOP_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "panic") || !strings.Contains(string(out), "running reply: the server stopped while the command ran") ||
		!strings.Contains(string(out), "arriving reply: the server is stopping") {
		t.Fatalf("the stopping server (%v):\n%.3000s", err, out)
	}
}

// holdRequest is a command that, once running, waits for its context to
// end and then reads the database, as a long command (an import, a
// backup) does between steps.
type holdRequest struct{ running chan struct{} }

func (*holdRequest) Op() string      { return "test hold" }
func (*holdRequest) Validate() error { return nil }
func (h *holdRequest) Run(ctx context.Context, app *App, _ io.Writer) error {
	close(h.running)
	<-ctx.Done()
	_, _ = app.DB.LoginID("someone")
	return ctx.Err()
}

// adminCommandDuringStop stops a server while a command runs (running)
// or while its request is still arriving, and prints the reply.
func adminCommandDuringStop(t *testing.T, running bool) {
	hold := &holdRequest{running: make(chan struct{})}
	ops = append(ops, op{name: "test hold", parse: func([]string) (Request, error) { return hold, nil },
		empty: func() Request { return hold }})
	dir := t.TempDir()
	body := fmt.Sprintf("[storage]\ndata_dir = %q\n[operator]\nenabled = false\n[server]\nlisten = \"127.0.0.1:0\"\n", filepath.Join(dir, "data"))
	file := filepath.Join(dir, "honmaster.toml")
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.FromArgs(flag.NewFlagSet("serve", flag.ContinueOnError), []string{"--config", file})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := Start(context.Background(), cfg, slog.New(slog.DiscardHandler), false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("unix", filepath.Join(cfg.Storage.DataDir, AdminSocketName))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := json.Marshal(adminRequest{Protocol: AdminProtocol, Op: "test hold", Request: json.RawMessage("{}")})
	msg = append(msg, '\n')
	what := "arriving"
	if running {
		what = "running"
		if _, err := conn.Write(msg); err != nil {
			t.Fatal(err)
		}
		<-hold.running
	} else {
		if _, err := conn.Write(msg[:10]); err != nil { // the request is on its way...
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Minute); rt.adm.served() == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the server never took the connection")
			}
		}
	}
	stopped := make(chan error, 1)
	go func() { stopped <- rt.Stop() }() // ...when the server stops
	var reply adminReply
	if err := json.NewDecoder(conn).Decode(&reply); err != nil {
		t.Fatalf("no reply: %v", err)
	}
	if !running {
		_, _ = conn.Write(msg[10:]) // the rest arrives too late
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%s reply: %s\n", what, reply.Error)
}
