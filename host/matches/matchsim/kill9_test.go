package matchsim_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/matches/matchsim"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// TestKill9DuringSubmissions: three game servers submit matches of ten
// players each, one after another, while the server is killed with
// SIGKILL (after a few acknowledged submissions, so that others are in
// flight), twice. After each restart every acknowledged match is
// recorded, a match in flight at the kill is recorded or not, and each
// participant's totals count the recorded matches exactly once (the
// restart's recovery finishes an effect the kill interrupted).
//
// It runs on Pebble, and on PostgreSQL when HONMASTER_TEST_POSTGRES_URL is
// set (.ci/postgres).
func TestKill9DuringSubmissions(t *testing.T) {
	t.Run("pebble", func(t *testing.T) { kill9DuringSubmissions(t, childConfig(t)) })
	t.Run("postgres", func(t *testing.T) {
		pg := storagetest.PostgresURL(t)
		kill9DuringSubmissions(t, childConfig(t, fmt.Sprintf("[storage]\nbackend = \"postgres\"\n[storage.postgres]\nurl = %q\n", pg)))
	})
}

func kill9DuringSubmissions(t *testing.T, conf string) {
	if testing.Short() {
		t.Skip("runs the server as a separate process; skipped with -short")
	}
	if raceDetector {
		t.Skip("the server under test would be this binary built with -race: slow, and it checks only the client side; the plain pass runs it")
	}
	data := t.TempDir()
	srv := startChild(t, data, conf)
	c := client.New("http://" + srv.addr)
	w := newWorld(t, c, newOpAPI(t, srv.opAddr, data), "k")
	const streams, rounds, ackedBeforeKill = 3, 2, 4
	groups := make([][]*player, streams)
	servers := make([]*matchsim.GameServer, streams)
	for i := range groups {
		groups[i] = w.players(t, 10)
		servers[i] = w.server(t)
	}
	var recorded []*matchsim.Match // acknowledged, or in flight and recorded
	seed := uint64(100)
	for round := range rounds {
		ackedCh := make(chan *matchsim.Match, 1000)
		inflight := make([]*matchsim.Match, streams)
		var submitting atomic.Int32
		var wg sync.WaitGroup
		for i := range streams {
			wg.Add(1)
			go func(i int, seed uint64) {
				defer wg.Done()
				// Bounded: the kill ends the stream long before.
				for n := range uint64(10_000) {
					m, err := startE(servers[i], groups[i], seed+n)
					if err != nil {
						return // the server died
					}
					inflight[i] = m
					submitting.Add(1)
					_, err = servers[i].SubmitStats(context.Background(), m.Form())
					submitting.Add(-1)
					if err != nil {
						return // in flight at the kill
					}
					inflight[i] = nil
					ackedCh <- m
				}
			}(i, seed)
			seed += 10_000
		}
		var acked []*matchsim.Match
		deadline := time.After(2 * time.Minute)
	wait:
		for len(acked) < ackedBeforeKill {
			select {
			case m := <-ackedCh:
				acked = append(acked, m)
			case <-deadline:
				break wait
			}
		}
		// Kill while a submission is in flight, most times: a bounded
		// wait for one, whatever the machine's speed.
		for spin := 0; spin < 2000 && submitting.Load() == 0; spin++ {
			time.Sleep(time.Millisecond)
		}
		srv.kill9(t)
		wg.Wait()
		close(ackedCh)
		for m := range ackedCh {
			acked = append(acked, m)
		}
		if len(acked) < ackedBeforeKill {
			t.Fatalf("round %d: only %d submissions acknowledged in two minutes", round, len(acked))
		}

		srv = startChild(t, data, conf)
		w.c = client.New("http://" + srv.addr)
		w.mgr.C = w.c
		w.op = newOpAPI(t, srv.opAddr, data)
		for _, m := range acked {
			if rec := w.op.match(t, m.MatchID); !rec.Recorded {
				t.Errorf("round %d: acknowledged match %d not recorded after kill -9", round, m.MatchID)
			}
		}
		recorded = append(recorded, acked...)
		inFlight := 0
		for _, m := range inflight {
			if m == nil {
				continue
			}
			inFlight++
			if w.op.match(t, m.MatchID).Recorded {
				recorded = append(recorded, m)
			}
		}
		t.Logf("round %d: %d acknowledged submissions, %d in flight at the kill (%d of all matches so far recorded)", round, len(acked), inFlight, len(recorded))
		checkTotals(t, w.op, want(recorded...))

		// The next round's players and servers log in to the new process.
		for i := range streams {
			relogin(t, w, groups[i])
			servers[i].C = w.c
			if _, err := servers[i].NewSession(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	srv.stop()
}

// relogin logs the players in again (a new server process).
func relogin(t *testing.T, w *world, ps []*player) {
	t.Helper()
	for _, p := range ps {
		var s *client.Session
		var err error
		for try := 0; try < 5; try++ {
			if s, err = w.c.Login(context.Background(), p.login, password); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("login %s: %v", p.login, err)
		}
		p.cookie = s.Cookie
	}
}
