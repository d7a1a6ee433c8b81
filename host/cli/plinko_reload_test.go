package cli_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/plinko"
)

// TestReloadPlinkoWriteRate: [plinko] write_burst and write_every are put
// in force by a reload (the area's LiveSettings): an account refused its
// second drop under a burst of 1 (one an hour: nothing refills during the
// test) drops again once the file raises the burst, without a restart;
// the drop costs (not live) are kept and named.
func TestReloadPlinkoWriteRate(t *testing.T) {
	dir := t.TempDir()
	body := func(plinkoTable string) string {
		return fmt.Sprintf("[storage]\ndata_dir = %q\n[operator]\nenabled = false\n[server]\nlisten = \"127.0.0.1:0\"\nlog_level = \"warn\"\n[plinko]\n%s",
			filepath.Join(dir, "data"), plinkoTable)
	}
	rt, rewrite := startReloadable(t, dir, body("write_burst = 1\nwrite_every = \"1h\"\n"), func(cfg *config.Config) *slog.Logger { return cli.NewServeLogger(cfg, io.Discard) }, false)
	write := func(plinkoTable string) { rewrite(body(plinkoTable)) }
	ctx := context.Background()
	a, err := rt.App.Accounts.Create(ctx, accounts.Create{Login: "clicker", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&accounts.Grant{Tickets: 10000}).To(ctx, rt.App.Sys, a.ID); err != nil {
		t.Fatal(err)
	}
	c := client.New("http://" + rt.Addr.String())
	defer c.HTTP.CloseIdleConnections()
	s, err := c.Login(ctx, "clicker", "pw")
	if err != nil {
		t.Fatal(err)
	}
	drop := func(want string) {
		t.Helper()
		r, err := c.PostForm(ctx, plinko.PathDrop, url.Values{"cookie": {s.Cookie}, "currency": {"tickets"}})
		if err != nil {
			t.Fatal(err)
		}
		arr, err := r.PHP()
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := arr.String("status_code"); got != want {
			t.Fatalf("drop: status_code %q, want %q (%s)", got, want, r.Body)
		}
	}
	drop("1")
	drop("13")

	write("write_burst = 3\nwrite_every = \"1h\"\nticket_cost = 1\n")
	res, err := rt.Reload(ctx)
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	if want := []string{"plinko.write_burst"}; !slices.Equal(res.Applied, want) {
		t.Errorf("applied %v, want %v", res.Applied, want)
	}
	if want := []string{"plinko.ticket_cost"}; !slices.Equal(res.Kept, want) {
		t.Errorf("kept %v, want %v", res.Kept, want)
	}
	drop("1") // the raised burst's two more
	drop("1")
	drop("13")
}
