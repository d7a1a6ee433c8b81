package actors

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// CreateAccounts writes the accounts it does not refuse in one commit,
// with consecutive ids, each stored as CreateAccount stores one (an actor
// activated afterwards loads it, the nickname index finds it); it refuses,
// each in its own result, a login stored already, a look-alike of one, a
// login or skeleton met earlier in the batch, and a sub-account.
func TestCreateAccountsRefusesAndWrites(t *testing.T) {
	for _, backend := range []string{"pebble", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			sys, _ := twoRegistries(t, backend)
			ctx := context.Background()
			if _, err := sys.CreateAccount(ctx, &NewAccount{Login: "old", LoginSkeleton: "sk-old"}); err != nil {
				t.Fatal(err)
			}
			newAcct := func(login, skeleton string) *NewAccount {
				return &NewAccount{Login: login, LoginSkeleton: skeleton,
					Account: storage.Account{Nickname: "N" + login, Email: login + "@example.com", Gold: 7}}
			}
			reqs := []*NewAccount{
				newAcct("a", "sk-a"),
				newAcct("old", "sk-x"),   // login stored
				newAcct("Old", "sk-old"), // skeleton stored
				newAcct("b", "sk-b"),
				newAcct("a", "sk-y"), // login earlier in the batch
				newAcct("A", "sk-a"), // skeleton earlier in the batch
				{Login: "sub", LoginSkeleton: "sk-sub", ParentLogin: "old"},
				newAcct("c", "sk-c"),
			}
			want := []error{nil, ErrLoginTaken, ErrLoginLookalike, nil, ErrLoginTaken, ErrLoginLookalike, ErrBadParent, nil}
			res, err := sys.CreateAccounts(ctx, reqs)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != len(reqs) {
				t.Fatalf("%d results for %d requests", len(res), len(reqs))
			}
			wantID := storage.AccountID(2)
			for i, r := range res {
				if !errors.Is(r.Err, want[i]) || (r.Err == nil) != (r.Account != nil) {
					t.Errorf("%d %q: %v %v, want %v", i, reqs[i].Login, r.Account, r.Err, want[i])
					continue
				}
				if r.Err != nil {
					continue
				}
				if r.Account.ID != wantID || r.Account.SuperID != wantID {
					t.Errorf("%q: id %d super %d, want %d", reqs[i].Login, r.Account.ID, r.Account.SuperID, wantID)
				}
				wantID++
				got, err := sys.Account(ctx, r.Account.ID) // activates the account: loads what was written
				if err != nil || got.Login != reqs[i].Login || got.Nickname != "N"+reqs[i].Login || got.Gold != 7 {
					t.Errorf("%q: loaded %+v %v", reqs[i].Login, got, err)
				}
				if id, err := sys.DB().LoginSkeletonID(reqs[i].LoginSkeleton); err != nil || id != r.Account.ID {
					t.Errorf("%q: skeleton entry %d %v", reqs[i].Login, id, err)
				}
				if ids, err := sys.DB().NicknameAccounts("n" + reqs[i].Login); err != nil || len(ids) != 1 || ids[0] != r.Account.ID {
					t.Errorf("%q: nickname index %v %v", reqs[i].Login, ids, err)
				}
			}
			if _, err := sys.DB().LoginID("sub"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("refused sub-account stored: %v", err)
			}
			if next, err := sys.DB().NextAccountID(); err != nil || next != wantID {
				t.Errorf("next id %d %v, want %d", next, err, wantID)
			}
		})
	}
}

// Two registries create overlapping batches on one database at once (two
// cluster nodes importing): every login and skeleton is created once, no
// id is given twice, the losing batch refuses the contested accounts and
// writes its others.
func TestCreateAccountsConcurrently(t *testing.T) {
	for _, backend := range []string{"pebble", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			s1, s2 := twoRegistries(t, backend)
			ctx := context.Background()
			const rounds, each = 4, 20
			var mu sync.Mutex
			created := map[string]storage.AccountID{}
			ids := map[storage.AccountID]string{}
			var wg sync.WaitGroup
			for node, sys := range []*System{s1, s2} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for round := range rounds {
						var reqs []*NewAccount
						for n := range each {
							l := fmt.Sprintf("r%dn%d", round, n) // both nodes ask for it
							if n%3 == 0 {
								l = fmt.Sprintf("own%d_%d_%d", node, round, n)
							}
							reqs = append(reqs, &NewAccount{Login: l, LoginSkeleton: "sk-" + l})
						}
						res, err := sys.CreateAccounts(ctx, reqs)
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						for i, r := range res {
							switch {
							case r.Err == nil:
								if prev, dup := created[reqs[i].Login]; dup {
									t.Errorf("%s created twice (%d, %d)", reqs[i].Login, prev, r.Account.ID)
								}
								if prev, dup := ids[r.Account.ID]; dup {
									t.Errorf("id %d given to %s and %s", r.Account.ID, prev, reqs[i].Login)
								}
								created[reqs[i].Login], ids[r.Account.ID] = r.Account.ID, reqs[i].Login
							case errors.Is(r.Err, ErrLoginTaken), errors.Is(r.Err, ErrLoginLookalike):
							default:
								t.Errorf("%s: %v", reqs[i].Login, r.Err)
							}
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			// Each node's own logins (7 of 20 per round), and each
			// contested one once.
			if want := rounds * (2*7 + 13); len(created) != want {
				t.Errorf("%d accounts created, want %d", len(created), want)
			}
			for l, id := range created {
				if got, err := s1.DB().LoginID(l); err != nil || got != id {
					t.Errorf("%s: stored %d %v, acknowledged %d", l, got, err, id)
				}
			}
			if next, err := s1.DB().NextAccountID(); err != nil || int(next) != len(created)+1 {
				t.Errorf("next id %d %v after %d accounts", next, err, len(created))
			}
		})
	}
}

// A batch whose accounts were checked before another process stored some
// of their logins or skeletons: the commit's conflicts refuse those
// accounts, one by one, and the others are written.
func TestCreateAccountsCommitConflicts(t *testing.T) {
	sys, _ := twoRegistries(t, "pebble")
	ctx := context.Background()
	for _, l := range []string{"x", "y"} {
		if _, err := sys.CreateAccount(ctx, &NewAccount{Login: l, LoginSkeleton: "sk-" + l}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := []*NewAccount{
		{Login: "a", LoginSkeleton: "sk-a"},
		{Login: "x", LoginSkeleton: "sk-x2"}, // login stored "meanwhile"
		{Login: "b", LoginSkeleton: "sk-b"},
		{Login: "Y", LoginSkeleton: "sk-y"}, // skeleton stored "meanwhile"
	}
	// The checks passed (res all nil) before the other process's commits.
	res, err := (&registry{sys: sys}).commitMany(reqs, make([]Created, len(reqs)))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []error{nil, ErrLoginTaken, nil, ErrLoginLookalike} {
		if !errors.Is(res[i].Err, want) || (want == nil) != (res[i].Account != nil) {
			t.Errorf("%q: %+v, want %v", reqs[i].Login, res[i], want)
		}
	}
	if res[0].Account.ID != 3 || res[2].Account.ID != 4 {
		t.Errorf("ids %d %d, want 3 4", res[0].Account.ID, res[2].Account.ID)
	}
	if id, err := sys.DB().LoginID("x"); err != nil || id != 1 {
		t.Errorf("x now %d %v", id, err)
	}
}

// Creations that arrive while another commits share one commit (group
// commit), each with its own outcome: the accounts of the group get
// consecutive ids, a duplicate login in the group is refused as taken, a
// call whose deadline passed before the registry got to it is refused as
// expired, and the group costs one commit.
func TestCreateAccountGroupCommit(t *testing.T) {
	sys, _ := twoRegistries(t, "pebble")
	ctx := context.Background()
	var commits atomic.Int64
	sys.DB().SetCommitObserver(func(storage.CommitInfo) { commits.Add(1) })
	// As if a leader were sending a group: the calls only queue.
	sys.creates.mu.Lock()
	sys.creates.leading = true
	sys.creates.mu.Unlock()
	const n = 20
	type outcome struct {
		login string
		acct  *storage.Account
		err   error
	}
	out := make(chan outcome, n+1)
	for i := range n {
		l := fmt.Sprintf("g%d", i)
		if i == n-1 {
			l = "g0" // taken earlier in the group
		}
		go func() {
			a, err := sys.CreateAccount(ctx, &NewAccount{Login: l, LoginSkeleton: "sk-" + l})
			out <- outcome{l, a, err}
		}()
	}
	queued := func() int { sys.creates.mu.Lock(); defer sys.creates.mu.Unlock(); return len(sys.creates.pending) }
	for hang := time.Now().Add(2 * time.Minute); queued() < n; runtime.Gosched() {
		if time.Now().After(hang) { // a guard against hanging, not a timing assertion
			t.Fatalf("%d of %d creations queued", queued(), n)
		}
	}
	late := &createCall{req: &NewAccount{Login: "late", LoginSkeleton: "sk-late"}, deadline: time.Now().Add(-time.Second), done: make(chan Created, 1)}
	sys.creates.mu.Lock()
	sys.creates.pending = append(sys.creates.pending, late)
	sys.creates.mu.Unlock()
	before := commits.Load()
	sys.leadCreates()
	if got := commits.Load() - before; got != 1 {
		t.Errorf("%d commits for a group of %d creations, want 1", got, n)
	}
	if r := <-late.done; !errors.Is(r.Err, ErrExpired) || r.Account != nil {
		t.Errorf("late call: %+v", r)
	}
	ids := map[storage.AccountID]bool{}
	taken := 0
	for range n {
		o := <-out
		switch {
		case o.err == nil:
			ids[o.acct.ID] = true
		case errors.Is(o.err, ErrLoginTaken) && o.login == "g0":
			taken++
		default:
			t.Errorf("%s: %v", o.login, o.err)
		}
	}
	if len(ids) != n-1 || taken != 1 {
		t.Errorf("%d created, %d taken", len(ids), taken)
	}
	for id := storage.AccountID(1); id < n; id++ {
		if !ids[id] {
			t.Errorf("id %d not given", id)
		}
	}
	if sys.creates.leading || len(sys.creates.pending) != 0 {
		t.Errorf("leader left %v with %d pending", sys.creates.leading, len(sys.creates.pending))
	}
	// Alone, a creation is sent at once.
	if a, err := sys.CreateAccount(ctx, &NewAccount{Login: "alone", LoginSkeleton: "sk-alone"}); err != nil || a.ID != n {
		t.Errorf("alone: %v %v", a, err)
	}
}

// Near the end of the id space, a batch gives ids to the accounts that
// still fit and refuses only the ones after (ErrIDSpace); the sequence
// then stands wrapped and refuses the next. Before, the whole batch was
// refused when its last ones did not fit.
func TestCreateAccountsAtTheEndOfIDs(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	b := s.DB().NewBatch()
	b.SetNextAccountID(0xFFFFFFFE)
	if err := s.DB().Commit(b); err != nil {
		t.Fatal(err)
	}
	reqs := []*NewAccount{{Login: "x"}, {Login: "x"}, {Login: "y"}, {Login: "z"}, {Login: "w"}} // the second x: taken
	res, err := s.CreateAccounts(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	wantID := []storage.AccountID{0xFFFFFFFE, 0, 0xFFFFFFFF, 0, 0}
	wantErr := []error{nil, ErrLoginTaken, nil, ErrIDSpace, ErrIDSpace}
	for i, r := range res {
		if !errors.Is(r.Err, wantErr[i]) || (r.Err == nil) != (wantErr[i] == nil) {
			t.Errorf("%s: %v; want %v", reqs[i].Login, r.Err, wantErr[i])
		}
		if got := storage.AccountID(0); r.Account != nil {
			got = r.Account.ID
			if got != wantID[i] {
				t.Errorf("%s: id %d; want %d", reqs[i].Login, got, wantID[i])
			}
		}
	}
	for _, l := range []string{"z", "w"} {
		if _, err := s.DB().LoginID(l); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("refused login %s indexed: %v", l, err)
		}
	}
	if id, err := s.DB().LoginID("y"); err != nil || id != 0xFFFFFFFF {
		t.Errorf("y = %d, %v; want the last id", id, err)
	}
	if _, err := s.CreateAccount(ctx, &NewAccount{Login: "after"}); !errors.Is(err, ErrIDSpace) {
		t.Errorf("a creation after the last id: %v; want ErrIDSpace", err)
	}
}
