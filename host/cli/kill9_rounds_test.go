package cli_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
)

// TestKill9RoundsDropsAndStores runs drops and cloud stores on several
// accounts, kills the server with SIGKILL mid-load, and checks, three rounds
// in a row, that every acknowledged write is on disk: each account's tickets
// are those of its last acknowledged drop (or of one more, in flight at the
// kill), and its cloud archive is the last acknowledged one (or the one in
// flight). Small on purpose: it runs in every test run.
func TestKill9RoundsDropsAndStores(t *testing.T) {
	hostBackends(t, kill9RoundsDropsAndStores)
}

func kill9RoundsDropsAndStores(t *testing.T, conf string) {
	bin := buildHost(t)
	data := t.TempDir()
	const accounts, rounds = 3, 3
	logins := make([]string, accounts)
	for i := range logins {
		logins[i] = fmt.Sprintf("k9_%d", i)
		runHost(t, bin, "account", "create", "--init", "--data", data, "--config", conf, "--login", logins[i], "--password", "pw")
		runHost(t, bin, "account", "grant", "--data", data, "--config", conf, "--login", logins[i], "--tickets", "100000000")
	}
	payouts := map[int64]bool{0: true}
	for tier := plinkoapi.Tier(1); tier <= plinkoapi.NumTiers; tier++ {
		payouts[int64(tier.Tickets())] = true
	}
	archive := func(n int) []byte {
		return zipBytes(t, "cloud.cfg", fmt.Sprintf("SetSave \"round\" \"%d\"\n", n))
	}
	ticketsRE := regexp.MustCompile(`tickets (\d+)`)
	totalDrops, totalStores := 0, 0
	for round := range rounds {
		cmd, addr := startHost(t, bin, data, conf)
		c := client.New("http://" + addr)
		c.HTTP.Timeout = 10 * time.Second
		type progress struct {
			lastTickets    int64 // after the last acknowledged drop; -1: none
			dropInFlight   bool
			lastStore      int // number of the last acknowledged store; -1: none
			storeInFlight  bool
			drops, stores  int
			lastStoreStamp string
		}
		prog := make([]progress, accounts)
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for i, login := range logins {
			s, err := c.Login(context.Background(), login, "pw")
			if err != nil {
				t.Fatalf("round %d: login %s: %v", round, login, err)
			}
			p := &prog[i]
			p.lastTickets, p.lastStore = -1, -1
			wg.Add(2)
			go func() { // drops, one at a time
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					p.dropInFlight = true
					r, err := drop(context.Background(), c, s.Cookie)
					if err != nil || !r.ok {
						return // the server died: this one was in flight
					}
					p.dropInFlight = false
					p.lastTickets = r.tickets
					p.drops++
				}
			}()
			go func() { // cloud stores, one at a time, numbered
				defer wg.Done()
				for n := 0; ; n++ {
					select {
					case <-stop:
						return
					default:
					}
					p.storeInFlight = true
					stamp := stampOf(round, n)
					r, err := c.PostMultipart(context.Background(), "/master/storage/store",
						url.Values{"cookie": {s.Cookie}, "bucket": {"hon-game-configs"}, "file_modify_time": {stamp}},
						client.FilePart{Field: "cloud.zip", Filename: "cloud.zip", Data: archive(n)})
					if err != nil || string(r.Body) != `a:2:{s:7:"success";b:1;s:8:"messages";s:0:"";}` {
						return
					}
					p.storeInFlight = false
					p.lastStore, p.lastStoreStamp = n, stamp
					p.stores++
				}
			}()
		}
		time.Sleep(700 * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		wg.Wait()
		close(stop)

		for i, login := range logins {
			p := prog[i]
			totalDrops += p.drops
			totalStores += p.stores
			out := runHost(t, bin, "account", "show", "--data", data, "--config", conf, "--login", login)
			m := ticketsRE.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("account show: %s", out)
			}
			disk, _ := strconv.ParseInt(m[1], 10, 64)
			if p.lastTickets >= 0 && disk != p.lastTickets {
				// Only the drop in flight at the kill may have landed.
				if !p.dropInFlight || !payouts[disk-p.lastTickets+66] {
					t.Errorf("round %d, %s: %d tickets on disk, last acknowledged drop left %d: an acknowledged drop was lost",
						round, login, disk, p.lastTickets)
				}
			}
		}
		// Cloud: read back through a fresh server.
		cmd2, addr2 := startHost(t, bin, data, conf)
		c2 := client.New("http://" + addr2)
		for i, login := range logins {
			p := prog[i]
			if p.lastStore < 0 {
				continue
			}
			s, err := c2.Login(context.Background(), login, "pw")
			if err != nil {
				t.Fatal(err)
			}
			r, err := c2.PostMultipart(context.Background(), "/master/storage/status",
				url.Values{"cookie": {s.Cookie}, "bucket": {"hon-game-configs"}})
			if err != nil {
				t.Fatal(err)
			}
			got := string(r.Body)
			next := stampOf(round, p.lastStore+1)
			if !contains(got, p.lastStoreStamp) && !(p.storeInFlight && contains(got, next)) {
				t.Errorf("round %d, %s: status %s; last acknowledged store %s: lost", round, login, got, p.lastStoreStamp)
			}
		}
		cmd2.Process.Signal(syscall.SIGTERM)
		cmd2.Wait()
	}
	t.Logf("%d rounds: %d acknowledged drops and %d acknowledged stores, none lost", rounds, totalDrops, totalStores)
	if totalDrops == 0 || totalStores == 0 {
		t.Errorf("no load reached the server (%d drops, %d stores)", totalDrops, totalStores)
	}
}

// stampOf is a distinct file_modify_time for store n of a round.
func stampOf(round, n int) string {
	return time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(round*100000+n) * time.Second).Format("2006-01-02 15:04:05")
}

func contains(s, sub string) bool { return sub != "" && strings.Contains(s, sub) }

// zipBytes is a zip archive of one file.
func zipBytes(t *testing.T, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, content)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
