package plinko_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/plinko"
)

// recordsClients is the number of concurrent clients (keep-alive
// connections) of BenchmarkRecords, one account each.
const recordsClients = 64

// ownedLevels are the numbers of owned upgrades BenchmarkRecords compares.
var ownedLevels = []int{0, 500, 2000, 4000}

// BenchmarkRecords measures, in one run on one real server (on-disk
// Pebble, synced commits, the bundled plugin subprocess):
//   - drops on accounts owning 0, 500, 2,000 and 4,000 upgrades: drops/s
//     and bytes written to the log per drop;
//   - an authenticated read (the Plinko board) against a no-op 404 on the
//     same server.
//
// go test -run '^$' -bench BenchmarkRecords -benchtime 4000x ./host/plinko/
func BenchmarkRecords(b *testing.B) {
	dir, err := os.MkdirTemp("", "records-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := config.Default()
	cfg.Storage.DataDir = dir
	cfg.Server.Listen = "127.0.0.1:0"
	unlimitedWrites(cfg) // b.N drops of one account
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	rt, err := cli.Start(ctx, cfg, log, false, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Stop()
	app := rt.App
	if err := plinko.PutCatalog(ctx, app.Sys, plinko.DemoCatalog()); err != nil {
		b.Fatal(err)
	}
	base := "http://" + rt.Addr.String()
	c := client.New(base)
	cookies := map[int][]string{}
	for _, owned := range ownedLevels {
		for i := 0; i < recordsClients; i++ {
			login := fmt.Sprintf("o%d_%02d", owned, i)
			a, err := app.Accounts.Create(ctx, accounts.Create{Login: login, Password: "pw"})
			if err != nil {
				b.Fatal(err)
			}
			g := &accounts.Grant{Tickets: 1 << 40, Gold: 1 << 40}
			for k := 0; k < owned; k++ {
				g.Upgrades = append(g.Upgrades, fmt.Sprintf("ai.Owned_Icon_%05d", k))
			}
			if _, err := g.To(ctx, app.Sys, a.ID); err != nil {
				b.Fatal(err)
			}
			s, err := c.Login(ctx, login, "pw")
			if err != nil {
				b.Fatal(err)
			}
			cookies[owned] = append(cookies[owned], s.Cookie)
		}
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2 * recordsClients, MaxConnsPerHost: 2 * recordsClients}}
	defer hc.CloseIdleConnections()

	// run spreads b.N requests over the clients and reports requests/s.
	run := func(b *testing.B, path string, cookies []string, ok func(status int, body []byte) bool) {
		var next, failed atomic.Int64
		var wg sync.WaitGroup
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < recordsClients; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := "cookie=" + cookies[i] + "&currency=tickets"
				for next.Add(1) <= int64(b.N) {
					resp, err := hc.Post(base+path, "application/x-www-form-urlencoded", strings.NewReader(body))
					if err != nil {
						failed.Add(1)
						continue
					}
					reply, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || !ok(resp.StatusCode, reply) {
						failed.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		b.StopTimer()
		if n := failed.Load(); n > 0 {
			b.Fatalf("%d of %d requests failed", n, b.N)
		}
		b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	}
	for _, owned := range ownedLevels {
		b.Run(fmt.Sprintf("drop/owned=%d", owned), func(b *testing.B) {
			before := app.DB.Stats().WALBytes
			run(b, plinko.PathDrop, cookies[owned], func(_ int, body []byte) bool { return bytes.Contains(body, okDrop) })
			b.ReportMetric(float64(app.DB.Stats().WALBytes-before)/float64(b.N), "logB/drop")
		})
	}
	b.Run("board", func(b *testing.B) {
		run(b, plinko.PathBoard, cookies[4000], func(status int, body []byte) bool {
			return status == 200 && bytes.Contains(body, []byte(`"user_tickets"`))
		})
	})
	b.Run("noop404", func(b *testing.B) {
		run(b, "/master/no/such/route", cookies[4000], func(status int, _ []byte) bool { return status == 404 })
	})
}
