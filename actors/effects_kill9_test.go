package actors

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors/actorstest/killtest"
	"github.com/honmaster/masterserver/storage"
)

// kill9Dir names, in the environment of the child process of
// TestEffectKill9, the data directory it gives gifts in.
const kill9Dir = "HONMASTER_EFFECTS_KILL9_DIR"

// kill9Start is the tickets each of the child's accounts (ids 1, 2, 3 of
// a fresh database) starts with.
const kill9Start = 1000

// TestEffectKill9: a process giving gifts on a data directory on disk is
// killed with SIGKILL at a random point, three times; each restart's
// recovery pass finishes what the kill interrupted. At the end the
// balances sum as at the start, no effect is unfinished, and every gift
// the process acknowledged was applied whole.
//
// The child (TestEffectKill9Child, this test binary run again) gives 1
// ticket from account 1 to account 2 in one goroutine, and 1 ticket from
// account 3 to each of accounts 1 and 2 (three shares) in another,
// printing "a" or "b" after each acknowledged gift.
func TestEffectKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, Options{})
	ids := funded(t, s, kill9Start, "k1", "k2", "k3")
	s.Shutdown()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if ids[0] != 1 || ids[1] != 2 || ids[2] != 3 {
		t.Fatalf("account ids %v; the child expects 1, 2, 3", ids)
	}

	acked := map[string]int{}
	for range 3 {
		kill := 20 + rand.IntN(60) // acknowledged gifts before the kill
		killtest.Round(t, "TestEffectKill9Child", []string{kill9Dir + "=" + dir}, kill, func(line string) bool {
			if line == "a" || line == "b" {
				acked[line]++
				return true
			}
			return false
		})
	}

	db, err = storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s = New(db, Options{})
	defer s.Shutdown()
	if _, left, err := s.ResumeEffects(context.Background(), 0); err != nil || left != 0 {
		t.Fatalf("last recovery: %d left, %v", left, err)
	}
	got := stored(t, db, ids...)
	if sum := got[0] + got[1] + got[2]; sum != 3*kill9Start {
		t.Fatalf("balances %v sum to %d; want %d", got, sum, 3*kill9Start)
	}
	if left := unfinished(t, db); len(left) != 0 {
		t.Errorf("%d effects unfinished after the last recovery", len(left))
	}
	// b gifts: account 3 paid 2 each; a gifts: account 2 got 1 each besides.
	b := (kill9Start - got[2]) / 2
	a := got[1] - kill9Start - b
	if got[2] != kill9Start-2*b || got[0] != kill9Start-a+b {
		t.Errorf("balances %v are no whole number of each gift (a %d, b %d)", got, a, b)
	}
	if a < int64(acked["a"]) || b < int64(acked["b"]) {
		t.Errorf("applied a %d and b %d gifts; the child acknowledged %d and %d", a, b, acked["a"], acked["b"])
	}
	t.Logf("acknowledged %v; applied a %d, b %d", acked, a, b)
}

// TestEffectKill9Child is TestEffectKill9's child process (it skips
// unless run by it): it resumes what the last kill left, then gives gifts
// until killed (at most two minutes).
func TestEffectKill9Child(t *testing.T) {
	dir := os.Getenv(kill9Dir)
	if dir == "" {
		t.Skip("run by TestEffectKill9")
	}
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, Options{EffectRetry: DefaultEffectRetry}) // a server's: its start pass resumes
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	ack := func(kind string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Println(kind)
	}
	var wg sync.WaitGroup
	for kind, parts := range map[string][]storage.AccountID{"a": {1, 2}, "b": {3, 1, 2}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if _, err := testGift.Start(ctx, s, giftOf(1), parts...); err != nil {
					fmt.Fprintln(os.Stderr, "gift:", err)
					continue
				}
				ack(kind)
			}
		}()
	}
	wg.Wait()
}
