package storage

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	delKS    = NewAccountKeyspace[string]("test.del", rawCodec{})
	delKS2   = NewAccountKeyspace[string]("test.del.more", rawCodec{})
	delIndex = NewIndexKeyspace[string]("test.delindex", rawCodec{})
	delAt    = NewAccountKeyspaceAt[string]("test.delat", "q/", rawCodec{})
)

// allKeys lists every key of the database.
func allKeys(t *testing.T, db *DB) []string {
	t.Helper()
	var out []string
	if err := db.scan(nil, func(k, _ []byte) error { out = append(out, string(k)); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// writeAccount gives account a records in every key family.
func writeAccount(t *testing.T, db *DB, a *Account, other AccountID, cookie string) {
	t.Helper()
	b := db.NewBatch()
	b.PutAccount(a, nil)
	b.PutUpgrades(a.ID, 0, a.Upgrades)
	b.PutLogin(a.Login, a.ID)
	b.PutLoginSkeletonNew("skeleton of "+a.Login, a.ID)
	if a.SuperID != a.ID {
		b.PutSubAccount(a.SuperID, a.ID)
	}
	putOnlySession(b, &Session{Cookie: cookie, AccountID: a.ID, SuperID: a.SuperID, Expires: time.Now().Add(time.Hour)})
	w := batchWriter{b, a.ID}
	if err := delAt.Put(w, "hon-game-configs", "zip"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b"} {
		if err := delKS.Put(w, k, "v"); err != nil {
			t.Fatal(err)
		}
		if err := delKS2.Put(w, k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	// An entry it writes about the other account, and one about itself.
	if err := delIndex.Put(w, KeyUint32(uint32(other)), "about other"); err != nil {
		t.Fatal(err)
	}
	if err := delIndex.Put(w, KeyUint32(uint32(a.ID)), "about self"); err != nil {
		t.Fatal(err)
	}
	b.PutPluginState(a.ID, "guides", []byte{1})
	b.PutPluginState(a.ID, "plinko", []byte{2})
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// TestAccountRecords: deleting what AccountRecords finds leaves exactly
// the keys the database held before the account was written: nothing of
// it remains, nothing of another account goes (not even the index entry
// the other account wrote about it).
func TestAccountRecords(t *testing.T) {
	eachEngine(t, func(t *testing.T, db *DB) {
		keep := sampleAccount(1, "keep")
		writeAccount(t, db, keep, 2, "00000000000000000000000000000001")
		before := allKeys(t, db)

		main := sampleAccount(2, "gone")
		writeAccount(t, db, main, 1, "00000000000000000000000000000002")
		sub := sampleAccount(3, "gonesub")
		sub.SuperID = 2
		writeAccount(t, db, sub, 1, "00000000000000000000000000000003")

		r, err := db.AccountRecords(2)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.SubAccounts, []AccountID{3}) || r.Login != "gone" || len(r.Sessions) != 1 {
			t.Fatalf("records of 2: subs %v login %q sessions %d", r.SubAccounts, r.Login, len(r.Sessions))
		}
		for fam, want := range map[string]int{"profile": 1, "lists": 1, "credentials": 1, "login": 1, "login_skeleton": 1, "upgrades": 1, "sessions": 1, "test.delat": 1,
			"x/test.del": 2, "x/test.del.more": 2, "i/test.delindex": 2, "pluginstate/guides": 1, "pluginstate/plinko": 1} {
			if r.Counts[fam] != want {
				t.Errorf("%s: %d records, want %d (all: %v)", fam, r.Counts[fam], want, r.Counts)
			}
		}
		// The sub-account first, as the actors do, then the main account.
		for _, id := range []AccountID{3, 2} {
			r, err := db.AccountRecords(id)
			if err != nil {
				t.Fatal(err)
			}
			if id == 3 && r.Counts["sub_index"] != 1 {
				t.Errorf("sub-account index entry not found: %v", r.Counts)
			}
			b := db.NewBatch()
			b.DeleteAccountRecords(r)
			if err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
		}
		after := allKeys(t, db)
		if !slices.Equal(before, after) {
			t.Errorf("keys after deletion differ from before the account:\nbefore %q\nafter  %q", before, after)
		}
		if _, err := db.AccountRecords(2); err == nil {
			t.Error("AccountRecords of a deleted account succeeded")
		}
	})
}

// TestAccountRecordsKnowEveryPrefix fails when a key prefix is added to
// storage without deciding whether AccountRecords must find records under
// it: deleting an account would otherwise leave them behind.
func TestAccountRecordsKnowEveryPrefix(t *testing.T) {
	known := map[string]string{ // prefix constant -> how AccountRecords treats it
		"prefixAccount":        "profile",
		"prefixLists":          "lists",
		"prefixCreds":          "credentials",
		"prefixOwned":          "upgrades",
		"prefixLogin":          "login",
		"prefixSub":            "sub-account index entry",
		"prefixSession":        "sessions (from the account's list of sessions)",
		"prefixAccountSession": "the account's list of sessions, with its sessions",
		"prefixAcctKS":         "every per-account keyspace on disk",
		"prefixGlobKS":         "global: no account's",
		"prefixMeta":           "metadata: no account's",
		"prefixEffect":         "effects on several accounts: no account's (its marks are a per-account keyspace)",
		"prefixIndex":          "entries the account wrote (from the owners index)",
		"prefixOwners":         "the owners index's entries under the account's id, with what they name",
		"prefixPluginState":    "every area's plugin state on disk",
		"prefixOwner":          "owner epochs: kept, so that an epoch is never given twice",
		"prefixSkeleton":       "the login's look-alike skeleton entry (from the owners index)",
		"prefixCount":          "kept counts: no account's (an area's delete hook zeroes what the account fed)",
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if !strings.HasPrefix(n.Name, "prefix") {
						continue
					}
					seen++
					if _, ok := known[n.Name]; !ok {
						t.Errorf("key prefix %s is new: make AccountRecords find an account's records under it (account_delete.go), "+
							"or list it here as holding none", n.Name)
					}
				}
			}
		}
	}
	if seen < len(known)-2 {
		t.Errorf("found %d prefix constants, expected about %d: is the parse broken?", seen, len(known))
	}
}

// BenchmarkAccountRecords finds one account's records among n accounts,
// each with a nickname index entry and a look-alike skeleton entry: flat
// in n (the owners index), where scanning the shared indexes read every
// account's entries (three keys per account).
func BenchmarkAccountRecords(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			db, err := Open("", &Options{InMemory: true})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			batch := db.NewBatch()
			for i := 1; i <= n; i++ {
				a := sampleAccount(AccountID(i), fmt.Sprintf("login%07d", i))
				batch.PutAccount(a, nil)
				batch.PutLogin(a.Login, a.ID)
				batch.PutLoginSkeletonNew("sk"+a.Login, a.ID)
				if i%10000 == 0 || i == n {
					if err := db.Commit(batch); err != nil {
						b.Fatal(err)
					}
					batch = db.NewBatch()
				}
			}
			batch.Discard()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				r, err := db.AccountRecords(AccountID(i%n + 1))
				if err != nil || r.Counts["login_skeleton"] != 1 {
					b.Fatal(r, err)
				}
			}
		})
	}
}
