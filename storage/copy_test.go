package storage

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/failure/detail"
)

// fillForCopy writes records of every family: accounts with upgrades and
// sub-accounts, sessions, a keyspace, an index, plugin state, metadata.
func fillForCopy(t *testing.T, db *DB) {
	t.Helper()
	b := db.NewBatch()
	for i := AccountID(1); i <= 40; i++ {
		a := sampleAccount(i, fmt.Sprintf("player%02d", i))
		b.PutAccount(a, nil)
		b.PutUpgrades(i, 0, a.Upgrades)
		b.PutLogin(a.Login, i)
		if i > 1 {
			b.PutSubAccount(1, i)
		}
		putOnlySession(b, &Session{Cookie: fmt.Sprintf("%032d", i), AccountID: i, SuperID: i, IP: "127.0.0.1",
			Created: time.Unix(1700000000, 0).UTC(), Expires: time.Unix(1700086400, 0).UTC()})
		if err := delKS.Put(batchWriter{b, i}, "k\xff", "v"); err != nil {
			t.Fatal(err)
		}
		if err := delIndex.Put(batchWriter{b, i}, KeyUint32(uint32(i)), "e"); err != nil {
			t.Fatal(err)
		}
		b.PutPluginState(i, "guides", []byte{0, 1, 0xff})
	}
	b.SetNextAccountID(41)
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// A database copied to another engine and back holds the same records
// (counts and checksums per family), logins and sessions work on the copy,
// and a non-empty target is refused unless overwriting.
func TestCopyBetweenEngines(t *testing.T) {
	src, err := Open(filepath.Join(t.TempDir(), "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	fillForCopy(t, src)
	want, err := Sums(src)
	if err != nil {
		t.Fatal(err)
	}
	eachEngine(t, func(t *testing.T, mid *DB) {
		sums, err := Copy(src, mid, CopyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sums, want) {
			t.Errorf("copy sums %v; want %v", sums, want)
		}
		if id, err := mid.LoginID("player07"); err != nil || id != 7 {
			t.Errorf("login on the copy: %d %v", id, err)
		}
		if s, err := mid.Session(fmt.Sprintf("%032d", 9)); err != nil || s.AccountID != 9 {
			t.Errorf("session on the copy: %v %v", s, err)
		}
		if _, err := Copy(src, mid, CopyOptions{}); !errors.Is(err, ErrTargetNotEmpty) {
			t.Errorf("copy into a non-empty target: %v; want ErrTargetNotEmpty", err)
		} else if says, _ := detail.Of(err, ErrTargetNotEmpty); !regexp.MustCompile(`^[1-9][0-9]* records$`).MatchString(says) {
			t.Errorf("copy into a non-empty target: detail %q, want the count of its records", says)
		}
		// Back into a fresh Pebble directory, and over a used one.
		back, err := Open(filepath.Join(t.TempDir(), "db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer back.Close()
		b := back.NewBatch()
		b.PutMeta("stale", []byte("x"))
		if err := back.Commit(b); err != nil {
			t.Fatal(err)
		}
		if _, err := Copy(mid, back, CopyOptions{Overwrite: true}); err != nil {
			t.Fatal(err)
		}
		got, err := Sums(back)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("after the round trip: %v %v; want %v", got, err, want)
		}
		// The sums see a changed value and an extra record.
		b = mid.NewBatch()
		b.PutPluginState(3, "guides", []byte{9})
		b.PutMeta("extra", nil)
		if err := mid.Commit(b); err != nil {
			t.Fatal(err)
		}
		changed, err := Sums(mid)
		if err != nil || diffSums(want, changed) == "" {
			t.Errorf("sums of a changed copy match the source: %v", err)
		}
	})
}
