package coinfliparea_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/actors/actorstest/killtest"
	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinfliparea"
	"github.com/honmaster/masterserver/storage"
)

// giftKill9Dir names, in the environment of TestGiftKill9's child process,
// the data directory it gives gifts in.
const giftKill9Dir = "HONMASTER_COINFLIP_KILL9_DIR"

const kill9Start = 1000 // each account's tickets at the start

// TestGiftKill9: a process giving the area's gifts on a data directory on
// disk is killed with SIGKILL at a random point, three times; each
// restart's recovery pass finishes what the kill interrupted. At the end
// the balances sum as at the start, no gift is unfinished, and every gift
// the process acknowledged was applied.
//
// The child (TestGiftKill9Child, this test binary run again) gives 1
// ticket at a time from account 1 to 2 and from 2 to 1 (crossing gifts)
// and from 3 to 1, each in its own goroutine, printing "a", "b" or "c"
// after each acknowledged gift.
func TestGiftKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := actors.New(db, actors.Options{})
	for i, login := range []string{"k1", "k2", "k3"} {
		a, err := s.CreateAccount(context.Background(), &actors.NewAccount{Login: login, Account: storage.Account{Nickname: login, Tickets: kill9Start}})
		if err != nil || a.ID != storage.AccountID(i+1) {
			t.Fatalf("create %s: id %v, %v; the child expects ids 1, 2, 3", login, a, err)
		}
	}
	s.Shutdown()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	acked := map[string]int64{}
	for range 3 {
		kill := 20 + rand.IntN(60) // acknowledged gifts before the kill
		killtest.Round(t, "TestGiftKill9Child", []string{giftKill9Dir + "=" + dir}, kill, func(line string) bool {
			if line == "a" || line == "b" || line == "c" {
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
	s = actors.New(db, actors.Options{})
	defer s.Shutdown()
	if _, left, err := s.ResumeEffects(context.Background(), 0); err != nil || left != 0 {
		t.Fatalf("last recovery: %d left, %v", left, err)
	}
	var got [3]int64
	for i := range got {
		a, err := db.Account(storage.AccountID(i + 1))
		if err != nil {
			t.Fatal(err)
		}
		got[i] = a.Tickets
	}
	if sum := got[0] + got[1] + got[2]; sum != 3*kill9Start {
		t.Fatalf("balances %v sum to %d, want %d", got, sum, 3*kill9Start)
	}
	left := 0
	if err := db.EachEffect(func(*storage.Effect) error { left++; return nil }); err != nil || left != 0 {
		t.Errorf("%d gifts unfinished after the last recovery (%v)", left, err)
	}
	// c gifts: account 3 paid 1 each, and only those; every acknowledged
	// one was applied.
	if c := kill9Start - got[2]; c < acked["c"] {
		t.Errorf("account 3 gave %d gifts; the child acknowledged %d", c, acked["c"])
	}
	t.Logf("acknowledged %v; balances %v", acked, got)
}

// TestGiftKill9Child is TestGiftKill9's child process (it skips unless run
// by it): it resumes what the last kill left, as a server's start does,
// then gives gifts until killed (at most two minutes).
func TestGiftKill9Child(t *testing.T) {
	dir := os.Getenv(giftKill9Dir)
	if dir == "" {
		t.Skip("run by TestGiftKill9")
	}
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := actors.New(db, actors.Options{EffectRetry: actors.DefaultEffectRetry}) // a server's: its start pass resumes
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for kind, parts := range map[string][2]storage.AccountID{"a": {1, 2}, "b": {2, 1}, "c": {3, 1}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if _, err := coinfliparea.Gift.Start(ctx, s, coinfliparea.GiftPayload(1), parts[0], parts[1]); err != nil {
					fmt.Fprintln(os.Stderr, "gift:", err)
					continue
				}
				mu.Lock()
				fmt.Println(kind)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
