package actors

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// TestLiveAccountsRSS measures the memory of many live accounts (each with
// a cached session) and after they are all passivated. It runs only when
// HONMASTER_RSS_ACCOUNTS is set (docs/performance.md keeps its figures):
//
//	HONMASTER_RSS_ACCOUNTS=100000 go test -run TestLiveAccountsRSS -v ./actors/
func TestLiveAccountsRSS(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HONMASTER_RSS_ACCOUNTS"))
	if n <= 0 {
		t.Skip("set HONMASTER_RSS_ACCOUNTS to run")
	}
	db, err := storage.Open(t.TempDir()+"/db", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	salt := make([]byte, 256)
	for i := range salt {
		salt[i] = byte(i + 1)
	}
	cookies := make([]string, n)
	for start := 0; start < n; start += 1000 {
		b := db.NewBatch()
		for i := start; i < min(n, start+1000); i++ {
			id := storage.AccountID(i + 1)
			login := fmt.Sprintf("rss%06d", i)
			b.PutAccount(&storage.Account{ID: id, SuperID: id, Login: login, Nickname: login, Email: login + "@example.invalid",
				AccountType: 1, Standing: 3, Created: time.Now().UTC(),
				SRP:   storage.SRPVerifier{Salt: salt, Salt2: "abcdefghijklmnopqrstuv", Verifier: salt},
				Stats: storage.Stats{Level: 1, AccPubSkill: 1500, RnkRating: 1500, CSRating: 1500}, Tickets: 100}, nil)
			b.PutLogin(login, id)
			cookies[i] = fmt.Sprintf("%032x", i)
			b.PutSession(&storage.Session{Cookie: cookies[i], AccountID: id, SuperID: id, IP: "10.1.2.3",
				Created: time.Now().UTC(), Expires: time.Now().Add(24 * time.Hour).UTC()})
		}
		b.SetNextAccountID(storage.AccountID(n + 1))
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	s := New(db, Options{IdleTimeout: 40 * time.Second}) // longer than loading takes
	defer s.Shutdown()
	measure := func(what string) {
		for i := 0; i < 3; i++ {
			runtime.GC()
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		t.Logf("%-40s live %7d  heap %6.1f MiB  RSS %6.1f MiB", what, s.Live(), float64(m.HeapAlloc)/(1<<20), rssMiB())
	}
	measure("before loading")
	ctx := context.Background()
	start := time.Now()
	for i := 0; i < n; i++ {
		if _, err := s.Session(cookies[i]); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Read(ctx, storage.AccountID(i+1), func(a *storage.Account) any { return a.Tickets }); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("loaded %d accounts in %v", n, time.Since(start))
	measure(fmt.Sprintf("%d live accounts + sessions", n))
	deadline := time.Now().Add(2 * time.Minute)
	for s.Live() > 0 && time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
	}
	measure("after passivation (sessions cached)")
	debugFree()
	measure("after passivation, memory returned to OS")
}

func debugFree() { runtime.GC(); debugFreeOSMemory() }

// rssMiB reads the process's resident set size.
func rssMiB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024
		}
	}
	return -1
}

func debugFreeOSMemory() { debug.FreeOSMemory() }
