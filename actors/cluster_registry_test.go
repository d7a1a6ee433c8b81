package actors

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// twoRegistries returns two actor systems (two registries, as two cluster
// nodes have) over one database: on Pebble one handle shared by both, on
// PostgreSQL a handle each, opened as cluster nodes.
func twoRegistries(t *testing.T, backend string) (*System, *System) {
	t.Helper()
	db1, db2 := twoStores(t, backend)
	s1, s2 := New(db1, Options{}), New(db2, Options{})
	t.Cleanup(func() { s1.Shutdown(); s2.Shutdown() })
	return s1, s2
}

// twoStores opens one database for two nodes, closed when the test ends:
// a Pebble database in memory, shared by the two (as if two processes
// shared it), or a PostgreSQL database through two clustered connections
// (skipped without a server).
func twoStores(t *testing.T, backend string) (*storage.DB, *storage.DB) {
	t.Helper()
	var db1, db2 *storage.DB
	switch backend {
	case "pebble":
		db, err := storage.Open("", &storage.Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db1, db2 = db, db
	case "postgres":
		url := storagetest.PostgresURL(t)
		for _, p := range []**storage.DB{&db1, &db2} {
			db, err := storage.OpenPostgres(storage.PostgresOptions{URL: url, Cluster: true, MaxConns: 4})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			*p = db
		}
	}
	return db1, db2
}

// Two registries create accounts on one database at once, some logins
// (and look-alike skeletons) asked of both: no id and no login is given
// twice, every acknowledged account is stored as acknowledged, and each
// contested login is created exactly once, the other registry being told
// ErrLoginTaken or ErrLoginLookalike.
func TestRegistriesCreateConcurrently(t *testing.T) {
	for _, backend := range []string{"pebble", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			s1, s2 := twoRegistries(t, backend)
			ctx := context.Background()
			const each = 12
			type result struct {
				login string
				acct  *storage.Account
				err   error
			}
			results := make(chan result, 4*each)
			var wg sync.WaitGroup
			for i, sys := range []*System{s1, s2} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := range each {
						for _, l := range []string{fmt.Sprintf("own%d_%d", i, n), fmt.Sprintf("both%d", n)} {
							req := &NewAccount{Login: l, LoginSkeleton: "sk-" + l}
							if i == 1 && n%2 == 0 {
								req.Login = "Both" + l[4:] // another login, the same skeleton
							}
							a, err := sys.CreateAccount(ctx, req)
							results <- result{req.Login, a, err}
						}
					}
				}()
			}
			wg.Wait()
			close(results)
			ids := map[storage.AccountID]string{}
			contested := map[string]int{}
			for r := range results {
				switch {
				case r.err == nil:
					if prev, dup := ids[r.acct.ID]; dup {
						t.Errorf("id %d given to %s and %s", r.acct.ID, prev, r.login)
					}
					ids[r.acct.ID] = r.login
					if got, err := s1.DB().LoginID(r.login); err != nil || got != r.acct.ID {
						t.Errorf("login %s: stored %d %v; acknowledged %d", r.login, got, err, r.acct.ID)
					}
				case errors.Is(r.err, ErrLoginTaken), errors.Is(r.err, ErrLoginLookalike):
				default:
					t.Errorf("create %s: %v", r.login, r.err)
				}
				if r.login[:4] != "own0" && r.login[:4] != "own1" {
					key := "both" + r.login[4:]
					if r.err == nil {
						contested[key]++
					} else {
						contested[key] += 0
					}
				}
			}
			if len(ids) != 2*each+each {
				t.Errorf("%d accounts created; want %d (every own login, each contested one once)", len(ids), 3*each)
			}
			for l, n := range contested {
				if n != 1 {
					t.Errorf("contested login %s created %d times", l, n)
				}
			}
			next, err := s1.DB().NextAccountID()
			if err != nil || int(next) != len(ids)+1 {
				t.Errorf("next id %d %v after %d accounts", next, err, len(ids))
			}
		})
	}
}

// Two registries update one global record at once, each update reading
// the record and writing it plus one: re-run on conflict, none is lost,
// and the keyspace's stored version is the global sequence.
func TestRegistriesUpdateGlobalConcurrently(t *testing.T) {
	for _, backend := range []string{"pebble", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			s1, s2 := twoRegistries(t, backend)
			ctx := context.Background()
			const each = 15
			var wg sync.WaitGroup
			errs := make(chan error, 2*each)
			for _, sys := range []*System{s1, s2} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range each {
						_, err := sys.UpdateGlobal(ctx, func(g *GlobalTx) (any, error) {
							cur, err := testGlobal.Get(g.DB(), "counter")
							if errors.Is(err, storage.ErrNotFound) {
								cur, err = "0", nil
							}
							if err != nil {
								return nil, err
							}
							var n int
							fmt.Sscan(cur, &n)
							return nil, testGlobal.Put(g, "counter", fmt.Sprint(n+1))
						})
						if err != nil {
							errs <- err
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			failed := 0
			for err := range errs {
				var ce *storage.ConflictError
				if !errors.As(err, &ce) {
					t.Fatalf("global update: %v", err)
				}
				failed++ // ran out of tries: refused, nothing written
			}
			got, err := testGlobal.Get(s1.DB(), "counter")
			if err != nil || got != fmt.Sprint(2*each-failed) {
				t.Fatalf("counter %q %v; want %d (updates acknowledged)", got, err, 2*each-failed)
			}
			seq, _ := s1.DB().GlobalSequence()
			v, err := s1.DB().GlobalVersions()
			if err != nil || v["test.content"] != seq || seq != uint64(2*each-failed) {
				t.Errorf("versions %v, sequence %d; want test.content at the sequence, %d", v, seq, 2*each-failed)
			}
		})
	}
}

// Two registries generate a secret at once: both return the one stored.
func TestRegistriesEnsureMetaAgree(t *testing.T) {
	for _, backend := range []string{"pebble", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			s1, s2 := twoRegistries(t, backend)
			ctx := context.Background()
			for round := range 10 {
				name := fmt.Sprintf("secret%d", round)
				var wg sync.WaitGroup
				got := make([][]byte, 2)
				errs := make([]error, 2)
				for i, sys := range []*System{s1, s2} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						got[i], errs[i] = sys.EnsureMeta(ctx, name, []byte(fmt.Sprintf("value of %d", i)))
					}()
				}
				wg.Wait()
				if errs[0] != nil || errs[1] != nil || string(got[0]) != string(got[1]) {
					t.Fatalf("%s: %q %v and %q %v; want one value for both", name, got[0], errs[0], got[1], errs[1])
				}
				if stored, err := s1.DB().Meta(name); err != nil || string(stored) != string(got[0]) {
					t.Errorf("%s: stored %q %v; returned %q", name, stored, err, got[0])
				}
			}
		})
	}
}
