package cli_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"testing"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/server"
)

// TestReloadMatchesRates: the matches area's rates ([matches]
// server_list_*, start_game_*, heartbeat_write_*, stats_submit_*) are put
// in force by a reload, as the other areas' limits are: before, a reload
// named them kept until a restart, and a player refused server lists
// under a burst of 1 (one an hour: nothing refills during the test) stayed
// refused after the operator raised it.
func TestReloadMatchesRates(t *testing.T) {
	dir := t.TempDir()
	body := func(table string) string {
		return fmt.Sprintf("[storage]\ndata_dir = %q\n[operator]\nenabled = false\n[server]\nlisten = \"127.0.0.1:0\"\n[matches]\n%s",
			filepath.Join(dir, "data"), table)
	}
	rt, rewrite := startReloadable(t, dir, body("server_list_burst = 1\nserver_list_every = \"1h\"\n"), nil, false)
	ctx := context.Background()
	c := client.New("http://" + rt.Addr.String())
	defer c.HTTP.CloseIdleConnections()
	if r, err := c.PostForm(ctx, "/portal/register", url.Values{"login": {"lister"}, "password": {"pw"}}); err != nil || r.Status != http.StatusOK {
		t.Fatalf("register: %v %v", r, err)
	}
	s, err := c.Login(ctx, "lister", "pw")
	if err != nil {
		t.Fatal(err)
	}
	list := func(want int) {
		t.Helper()
		r, err := c.PostForm(ctx, server.PathClientRequester+"?f=server_list", url.Values{"cookie": {s.Cookie}, "gametype": {"90"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != want {
			t.Fatalf("server_list: HTTP %d, want %d (%s)", r.Status, want, r.Body)
		}
	}
	list(http.StatusOK)
	list(http.StatusTooManyRequests)

	rewrite(body("server_list_burst = 3\nserver_list_every = \"1h\"\nstart_game_burst = 5\n"))
	res, err := rt.Reload(ctx)
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	if want := []string{"matches.server_list_burst", "matches.start_game_burst"}; !slices.Equal(res.Applied, want) {
		t.Errorf("applied %v, want %v (kept %v)", res.Applied, want, res.Kept)
	}
	list(http.StatusOK) // the raised burst's two more
	list(http.StatusOK)
	list(http.StatusTooManyRequests)
}
