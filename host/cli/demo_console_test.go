package cli_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/console"
)

// TestDemoOperatorAndConsoleURL: serve --demo creates an operator of the
// console and prints it with the console's URL, and the operator
// listener's front page sends a browser to the console.
func TestDemoOperatorAndConsoleURL(t *testing.T) {
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	cfg.Server.Listen, cfg.Operator.Listen = "127.0.0.1:0", "127.0.0.1:0"
	var out bytes.Buffer
	rt, err := cli.Start(context.Background(), cfg, slog.New(slog.DiscardHandler), true, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Stop() })
	consoleURL := "http://" + rt.OperatorAddr.String() + "/console/"
	if want := "web console: " + consoleURL + " (sign in as demo_admin / demo-admin-pass)"; !strings.Contains(out.String(), want) {
		t.Errorf("serve --demo printed\n%s\nwithout %q", out.String(), want)
	}
	id, err := rt.App.DB.LoginID("demo_admin")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := console.IsOperator(rt.App.DB, id); err != nil || !ok {
		t.Errorf("demo_admin is not an operator: %v, %v", ok, err)
	}

	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := hc.Get("http://" + rt.OperatorAddr.String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if loc := r.Header.Get("Location"); r.StatusCode != http.StatusFound || loc != "/console/" {
		t.Errorf("GET / on the operator listener: %d to %q, want 302 to /console/", r.StatusCode, loc)
	}
	// Other paths are still not found.
	r, err = hc.Get("http://" + rt.OperatorAddr.String() + "/nothing")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing: %d", r.StatusCode)
	}
}
