package storage

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
)

var (
	testMembers = NewCountKeyspace("test.members")
	testSets    = NewCountKeyspace("test.sets")
)

func countOf(t *testing.T, db *DB, ks *CountKeyspace, key string) int64 {
	t.Helper()
	n, err := ks.Get(db, key)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A set counts its members above zero, through adds, resets and sets, and
// a count that reaches zero is deleted; on each engine.
func TestCountMembers(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		set := testSets.At("s")
		add := func(member string, d int64) {
			commitRaw(t, db, func(b *Batch) { AddMember(writerOf{b.ForAccount(1)}, testMembers.At(member), d, set, set) })
		}
		add("a", 1)
		add("a", 1) // still one member
		add("b", 1)
		if got := countOf(t, db, testSets, "s"); got != 2 {
			t.Fatalf("set = %d after a, a, b; want 2", got)
		}
		add("a", -1)
		if got := countOf(t, db, testSets, "s"); got != 2 {
			t.Fatalf("set = %d with a at 1; want 2", got)
		}
		add("a", -1) // a leaves
		if got, a := countOf(t, db, testSets, "s"), countOf(t, db, testMembers, "a"); got != 1 || a != 0 {
			t.Fatalf("set = %d, a = %d after a left; want 1, 0", got, a)
		}
		if keys := scanKeys(t, db, testMembers.key("a")); len(keys) != 0 {
			t.Errorf("a count at zero is still stored: %q", keys)
		}
		add("c", -1) // below zero: not a member
		add("c", 1)  // back to zero: still not one
		if got := countOf(t, db, testSets, "s"); got != 1 {
			t.Fatalf("set = %d after c went -1, 0; want 1", got)
		}
		// Several changes in one batch apply in order.
		commitRaw(t, db, func(b *Batch) {
			w := writerOf{b.ForAccount(1)}
			AddMember(w, testMembers.At("d"), 2, set)
			ResetMember(w, testMembers.At("b"), set)
			AddMember(w, testMembers.At("d"), -1, set)
		})
		if got, d := countOf(t, db, testSets, "s"), countOf(t, db, testMembers, "d"); got != 1 || d != 1 {
			t.Fatalf("set = %d, d = %d after +d, reset b, -d; want 1, 1", got, d)
		}
		// A rebuild sets counts outright; zero deletes.
		commitRaw(t, db, func(b *Batch) {
			g := batchGlobal{b.ForGlobal()}
			testSets.Set(g, "s", 7)
			testMembers.Set(g, "d", 0)
			testMembers.Set(g, "e", -3)
		})
		var got []string
		if err := testMembers.Each(db, "", "", func(k string, n int64) error { got = append(got, fmt.Sprintf("%s=%d", k, n)); return nil }); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != "[c=0 e=-3]" && fmt.Sprint(got) != "[e=-3]" {
			t.Errorf("members after the sets: %v", got)
		}
		if n := countOf(t, db, testSets, "s"); n != 7 {
			t.Errorf("set = %d after Set 7", n)
		}
	})
}

// Many writers changing the same members and set at once: the set ends
// exact (the changes are serialized by the engine, not by the writers).
func TestCountMembersConcurrent(t *testing.T) {
	const writers, rounds = 6, 10
	eachEngine(t, func(t *testing.T, db *DB) {
		set := testSets.At("s")
		var wg sync.WaitGroup
		errs := make(chan error, writers*rounds)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range rounds {
					// Writer w joins member m, and every other round
					// leaves it again, racing the others on m and s.
					m := testMembers.At(fmt.Sprint(r % 3))
					b := db.NewBatch()
					d := int64(1)
					if w%2 == 1 && r%2 == 1 {
						d = -1
					}
					AddMember(writerOf{b.ForAccount(AccountID(w + 1))}, m, d, set)
					if err := db.Commit(b); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		var in int64
		if err := testMembers.Each(db, "", "", func(_ string, n int64) error {
			if n > 0 {
				in++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := countOf(t, db, testSets, "s"); got != in {
			t.Errorf("set = %d, members above zero = %d", got, in)
		}
	})
}

// A batch refused by its fence (an activation older than the account's
// owner epoch: another node took the account over) changes no count,
// whatever count operations it carries, on each engine.
func TestCountFencedBatchChangesNoCount(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		writeFresh(t, db, sampleAccount(7, "fenced"))
		set := testSets.At("fenced")
		commitRaw(t, db, func(b *Batch) {
			w := writerOf{b.ForAccount(7)}
			AddMember(w, testMembers.At("f1"), 2, set)
			AddMember(w, testMembers.At("f2"), 1, set)
		})
		epochA, acctA, err := db.ActivateAccount(7, "node-a")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.ActivateAccount(7, "node-b"); err != nil {
			t.Fatal(err)
		}
		before := allCounts(t, db)
		for name, fill := range map[string]func(w writerOf){
			"add":   func(w writerOf) { AddMember(w, testMembers.At("f1"), 5, set) },
			"leave": func(w writerOf) { AddMember(w, testMembers.At("f2"), -1, set) },
			"join":  func(w writerOf) { AddMember(w, testMembers.At("f3"), 1, set) },
			"reset": func(w writerOf) { ResetMember(w, testMembers.At("f1"), set) },
		} {
			for _, withRecord := range []bool{true, false} {
				b := db.NewBatch()
				b.Fence(7, epochA)
				if withRecord {
					next := acctA.Clone()
					next.Gold = 1
					b.PutAccount(next, acctA)
				}
				fill(writerOf{b.ForAccount(7)})
				if err := db.Commit(b); !errors.Is(err, ErrFenced) {
					t.Fatalf("%s (record written too: %v): %v; want ErrFenced", name, withRecord, err)
				}
				if after := allCounts(t, db); !maps.Equal(after, before) {
					t.Errorf("%s (record written too: %v): counts %v after the fenced batch; want %v", name, withRecord, after, before)
				}
			}
		}
		if a, _ := db.LoadAccount(7); a.Gold != 100 {
			t.Errorf("gold %d after the fenced batches; want 100", a.Gold)
		}
	})
}

// allCounts reads every test count.
func allCounts(t *testing.T, db *DB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, ks := range []*CountKeyspace{testMembers, testSets} {
		if err := ks.Each(db, "", "", func(k string, n int64) error { out[ks.Name()+"/"+k] = n; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Two operations on one count in one batch apply in order: the second Set
// wins (whichever is zero), two member changes add up, and a Set then a
// member change of the same key start from the Set's value; on each
// engine. PostgreSQL refused a batch setting one count twice (one INSERT
// ... ON CONFLICT DO UPDATE may not change a row twice) and let a zero
// Set win over a later one (its deletes ran after its inserts).
func TestCountSetTwiceInOneBatch(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		commitRaw(t, db, func(b *Batch) {
			g := batchGlobal{b.ForGlobal()}
			testMembers.Set(g, "stays", 9)
			testMembers.Set(g, "cleared", 9)
		})
		set := testSets.At("twice")
		commitRaw(t, db, func(b *Batch) {
			g := batchGlobal{b.ForGlobal()}
			testMembers.Set(g, "a", 3)
			testMembers.Set(g, "a", 5)
			testMembers.Set(g, "b", 0)
			testMembers.Set(g, "b", 4)
			testMembers.Set(g, "c", 4)
			testMembers.Set(g, "c", 0)
			testMembers.Set(g, "cleared", 0)
			testMembers.Set(g, "cleared", 0)
			testMembers.Set(g, "stays", 1)
			testMembers.Set(g, "stays", 9)
			testSets.Set(g, "twice", 0)
		})
		commitRaw(t, db, func(b *Batch) {
			w := writerOf{b.ForAccount(1)}
			AddMember(w, testMembers.At("d"), 1, set)
			AddMember(w, testMembers.At("d"), 2, set)
			AddMember(w, testMembers.At("e"), 1, set)
			AddMember(w, testMembers.At("e"), -1, set)
		})
		want := map[string]int64{"test.members/a": 5, "test.members/b": 4, "test.members/d": 3,
			"test.members/stays": 9, "test.sets/twice": 1}
		if got := allCounts(t, db); !maps.Equal(got, want) {
			t.Errorf("counts %v; want %v", got, want)
		}
	})
}

// TakeMember takes a count above zero down to zero at most, and leaves
// one at or below zero as it is, with the sets' steps; on each engine.
func TestCountTakeMember(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		set := testSets.At("take")
		commitRaw(t, db, func(b *Batch) {
			w := writerOf{b.ForAccount(1)}
			AddMember(w, testMembers.At("a"), 2, set)
			AddMember(w, testMembers.At("b"), 1, set)
			AddMember(w, testMembers.At("neg"), -2, set)
		})
		take := func(fill func(w writerOf)) {
			t.Helper()
			commitRaw(t, db, func(b *Batch) { fill(writerOf{b.ForAccount(1)}) })
		}
		take(func(w writerOf) { TakeMember(w, testMembers.At("a"), 1, set) })
		take(func(w writerOf) { TakeMember(w, testMembers.At("b"), 5, set) })      // past zero: stops there
		take(func(w writerOf) { TakeMember(w, testMembers.At("absent"), 1, set) }) // zero: stays
		take(func(w writerOf) { TakeMember(w, testMembers.At("neg"), 1, set) })    // below zero: stays
		take(func(w writerOf) {                                                    // a reset committed in between
			AddMember(w, testMembers.At("r"), 3, set)
			ResetMember(w, testMembers.At("r"), set)
			TakeMember(w, testMembers.At("r"), 1, set)
		})
		want := map[string]int64{"test.members/a": 1, "test.members/neg": -2, "test.sets/take": 1}
		if got := allCounts(t, db); !maps.Equal(got, want) {
			t.Errorf("counts %v; want %v", got, want)
		}
	})
}

// A set count that steps back to zero is deleted, as a member's count is:
// no engine keeps it stored, and Each does not visit it. (PostgreSQL kept
// the set's row as an 8-byte zero.)
func TestSetCountAtZeroIsDeleted(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		set := testSets.At("z")
		add := func(d int64) {
			t.Helper()
			commitRaw(t, db, func(b *Batch) { AddMember(writerOf{b.ForAccount(1)}, testMembers.At("zm"), d, set) })
		}
		add(1)
		add(-1)
		if keys := scanKeys(t, db, testSets.key("z")); len(keys) != 0 {
			t.Errorf("a set count back at zero is still stored: %q", keys)
		}
		var visited []string
		if err := testSets.Each(db, "", "", func(k string, n int64) error {
			if n == 0 {
				visited = append(visited, k)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(visited) > 0 {
			t.Errorf("Each visits counts at zero: %q", visited)
		}
	})
}
