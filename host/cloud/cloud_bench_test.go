package cloud_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/cloud"
	"github.com/honmaster/masterserver/host/cloudcfg"
)

// benchAccounts is how many accounts store and retrieve concurrently.
const benchAccounts = 256

// BenchmarkStoreRetrieve256 measures cloud settings throughput through the
// real HTTP server over an on-disk database (every store is a synced
// commit): each iteration is one round in which 256 logged-in accounts each
// store their own archive (a realistic cloud.cfg of about 30 KiB, about 4 KiB
// zipped) and then retrieve and compare it, all at once. It reports
// pairs/s (one store plus one retrieve is a pair) and the latency of a pair.
// Run it with a bound, for example:
//
//	go test -run '^$' -bench StoreRetrieve256 -benchtime 10s -timeout 120s ./host/cloud
func BenchmarkStoreRetrieve256(b *testing.B) {
	ts := start(b, nil)
	tr := &http.Transport{MaxIdleConns: 2 * benchAccounts, MaxIdleConnsPerHost: 2 * benchAccounts}
	ts.Client.HTTP = &http.Client{Timeout: 30 * time.Second, Transport: tr}
	// Runs before the server's Stop (cleanups run last first): a graceful
	// shutdown waits for open keep-alive connections.
	b.Cleanup(tr.CloseIdleConnections)
	sessions := benchSessions(b, ts)
	archives := make([][]byte, benchAccounts)
	for i := range archives {
		z, err := cloudcfg.BuildArchive(benchCfg(i))
		if err != nil {
			b.Fatal(err)
		}
		archives[i] = z
	}
	b.SetBytes(int64(benchAccounts * 2 * len(archives[0]))) // per round: every archive up and down

	latencies := make([][]time.Duration, benchAccounts)
	errs := make([]error, benchAccounts)
	rounds := 0
	for b.Loop() {
		var wg sync.WaitGroup
		for i := range benchAccounts {
			wg.Go(func() {
				if errs[i] != nil {
					return
				}
				t0 := time.Now()
				errs[i] = storeRetrieve(ts.Client, sessions[i], archives[i], rounds)
				latencies[i] = append(latencies[i], time.Since(t0))
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		rounds++
	}
	pairs := rounds * benchAccounts
	b.ReportMetric(float64(pairs)/b.Elapsed().Seconds(), "pairs/s")
	all := slices.Concat(latencies...)
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// storeRetrieve stores data for s and checks that retrieve answers it.
func storeRetrieve(c *client.Client, s *client.Session, data []byte, round int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	modified := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(round) * time.Second).Format(cloud.ModifyTimeLayout)
	r, err := c.PostMultipart(ctx, cloud.PathStore,
		url.Values{"cookie": {s.Cookie}, "bucket": {cloud.DefaultBucket}, "file_modify_time": {modified}},
		client.FilePart{Field: "cloud.zip", Filename: "cloud.zip", Data: data})
	if err != nil {
		return fmt.Errorf("store for %s: %w", s.Login, err)
	}
	if string(r.Body) != storeOK {
		return fmt.Errorf("store for %s: %q", s.Login, r.Body)
	}
	r, err = c.PostMultipart(ctx, cloud.PathRetrieve, url.Values{"cookie": {s.Cookie}, "bucket": {cloud.DefaultBucket}})
	if err != nil {
		return fmt.Errorf("retrieve for %s: %w", s.Login, err)
	}
	if !bytes.Equal(r.Body, data) {
		return fmt.Errorf("retrieve for %s: %d bytes differ from the %d stored", s.Login, len(r.Body), len(data))
	}
	return nil
}

// benchSessions creates benchAccounts accounts (through the actors, as the
// CLI does) and logs each in over HTTP, a few at a time.
func benchSessions(b *testing.B, ts *testServer) []*client.Session {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sessions := make([]*client.Session, benchAccounts)
	errs := make([]error, benchAccounts)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range benchAccounts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			login := fmt.Sprintf("bench%03d", i)
			if _, err := ts.Runtime.App.Accounts.Create(ctx, accounts.Create{Login: login, Password: "pw-" + login}); err != nil {
				errs[i] = err
				return
			}
			sessions[i], errs[i] = ts.Client.Login(ctx, login, "pw-"+login)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	return sessions
}

// benchCfg is a cloud.cfg of about 30 KiB, like a full one from the game,
// different for each account.
func benchCfg(account int) []byte {
	var s strings.Builder
	for i := 0; s.Len() < 30<<10; i++ {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&s, "SetSave \"cvar_%d_%d\" \"%d.%04d\" \"%d\"\n", account, i, i*7919%1000, i*104729%10000, i%2)
		case 1:
			fmt.Fprintf(&s, "GameReBind Action%d ActivateTool \"%d\" button game \"F%d\" \"INVALID\"\n", i, i%50, i%12+1)
		default:
			fmt.Fprintf(&s, "BindButton game KEY%d Cmd \"Command%d\" %t\n", i, account+i, i%2 == 0)
		}
	}
	return []byte(s.String())
}
