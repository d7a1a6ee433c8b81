package guides

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/honmaster/masterserver/storage"
)

// recordStore stands in for the vote records in storage: one map per
// account, each written only by that account's goroutine (its "actor").
type recordStore struct {
	accounts []map[GuideID]Vote
}

func (s *recordStore) ScanVotes(fn func(VoteRecord) error) error {
	for i, votes := range s.accounts {
		for gid, v := range votes {
			if err := fn(VoteRecord{Account: storage.AccountID(i + 1), Gid: gid, Vote: v}); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestTallyConcurrentVoters(t *testing.T) {
	const voters, rounds = 100, 50
	gids := []GuideID{1, 2, 3}
	store := &recordStore{accounts: make([]map[GuideID]Vote, voters)}
	tally, err := NewTally(store)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for a := range voters {
		store.accounts[a] = map[GuideID]Vote{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(a), 9))
			mine := store.accounts[a]
			for range rounds {
				gid := gids[r.IntN(len(gids))]
				next := Vote(1 + r.IntN(2))
				prev := mine[gid]
				mine[gid] = next // the commit
				tally.Apply("", gid, Ballot{Vote: prev}, Ballot{Vote: next})
			}
		}()
	}
	wg.Wait()
	want := map[GuideID]Counts{}
	for _, votes := range store.accounts {
		for gid, v := range votes {
			c := want[gid]
			if v == VoteUp {
				c.Up++
			} else {
				c.Down++
			}
			want[gid] = c
		}
	}
	rebuilt, err := NewTally(store)
	if err != nil {
		t.Fatal(err)
	}
	var total uint32
	for _, gid := range gids {
		if got := tally.Derived(gid); got != want[gid] {
			t.Errorf("guide %d: live counts %+v, records say %+v", gid, got, want[gid])
		}
		if got := rebuilt.Derived(gid); got != want[gid] {
			t.Errorf("guide %d: rebuilt counts %+v, records say %+v", gid, got, want[gid])
		}
		total += want[gid].Up + want[gid].Down
	}
	if total == 0 || total > voters*uint32(len(gids)) {
		t.Fatalf("total %d votes: one vote per account and guide at most", total)
	}
}

// All 100 voters on one guide: exactly 100 votes, whatever the interleaving.
func TestTallyOneGuide(t *testing.T) {
	tally := &Tally{}
	var wg sync.WaitGroup
	for a := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prev := VoteNone
			for i := range 20 {
				next := VoteUp
				if (a+i)%2 == 1 {
					next = VoteDown
				}
				tally.Apply("", 7, Ballot{Vote: prev}, Ballot{Vote: next})
				prev = next
			}
			tally.Apply("", 7, Ballot{Vote: prev}, Ballot{Vote: VoteUp}) // everyone ends up
			tally.Apply("", 7, Ballot{Vote: VoteUp}, Ballot{Vote: VoteUp})
		}()
	}
	wg.Wait()
	if got := tally.Derived(7); got != (Counts{Up: 100}) {
		t.Fatalf("counts %+v, want 100 up", got)
	}
	if got := tally.Counts(&Guide{Gid: 7, Up: 98, Down: 2}); got != (Counts{Up: 198, Down: 2}) {
		t.Fatalf("full counts %+v", got)
	}
}

type failingScanner struct{ err error }

func (f failingScanner) ScanVotes(fn func(VoteRecord) error) error {
	if err := fn(VoteRecord{Account: 1, Gid: 1, Vote: VoteUp}); err != nil {
		return err
	}
	return f.err
}

func TestTallyRebuildErrors(t *testing.T) {
	boom := errors.New("disk")
	if _, err := NewTally(failingScanner{boom}); !errors.Is(err, boom) {
		t.Fatalf("scan error lost: %v", err)
	}
	bad := &recordStore{accounts: []map[GuideID]Vote{{1: Vote(9)}}}
	if _, err := NewTally(bad); err == nil {
		t.Fatal("a bad vote record was counted")
	}
	if tl, err := NewTally(nil); err != nil || tl.Derived(1) != (Counts{}) {
		t.Fatalf("NewTally(nil) = %v", err)
	}
}

// ballotStore is recordStore with each vote's class.
type ballotStore struct {
	accounts []map[GuideID]Ballot
}

func (s *ballotStore) ScanVotes(fn func(VoteRecord) error) error {
	for i, votes := range s.accounts {
		for gid, b := range votes {
			if err := fn(VoteRecord{Account: storage.AccountID(i + 1), Gid: gid, Vote: b.Vote, Young: b.Young}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Concurrent voters change votes and classes; a reader never sees a young
// part above its count, and the live counts, young part included, equal
// those rebuilt from the records.
func TestTallyYoungBallots(t *testing.T) {
	const voters, rounds = 50, 40
	store := &ballotStore{accounts: make([]map[GuideID]Ballot, voters)}
	tally := &Tally{}
	done := make(chan struct{})
	readerErr := make(chan error, 1)
	go func() {
		defer close(readerErr)
		for {
			select {
			case <-done:
				return
			default:
			}
			full, young := tally.RankCounts(&Guide{Gid: 1})
			// Modular deltas may show a count transiently wrapped, never a
			// torn pair: young within its count whenever neither wrapped.
			if full.Up < 1<<31 && full.Down < 1<<31 && young.Up < 1<<31 && young.Down < 1<<31 &&
				(young.Up > full.Up || young.Down > full.Down) {
				readerErr <- errors.New("young part above its count")
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for a := range voters {
		store.accounts[a] = map[GuideID]Ballot{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(a), 3))
			mine := store.accounts[a]
			for range rounds {
				next := Ballot{Vote: Vote(1 + r.IntN(2)), Young: r.IntN(2) == 0}
				prev := mine[1]
				mine[1] = next // the commit
				tally.Apply("", 1, prev, next)
			}
		}()
	}
	wg.Wait()
	close(done)
	if err := <-readerErr; err != nil {
		t.Fatal(err)
	}
	var wantFull, wantYoung Counts
	for _, votes := range store.accounts {
		b := votes[1]
		c := Counts{Up: 1}
		if b.Vote == VoteDown {
			c = Counts{Down: 1}
		}
		wantFull = wantFull.Add(c)
		if b.Young {
			wantYoung = wantYoung.Add(c)
		}
	}
	rebuilt, err := NewTally(store)
	if err != nil {
		t.Fatal(err)
	}
	for name, tl := range map[string]*Tally{"live": tally, "rebuilt": rebuilt} {
		if full, young := tl.RankCounts(&Guide{Gid: 1}); full != wantFull || young != wantYoung {
			t.Errorf("%s: counts %+v of which young %+v, records say %+v of which %+v", name, full, young, wantFull, wantYoung)
		}
	}
}
