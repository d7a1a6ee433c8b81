package reports

import (
	"context"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/accounts"
	bundled "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/storage"
)

// TestReporteeIndexKeepsReporterCreation: each report's entry in the
// reportee index keeps its reporter's account creation, so the count of
// new accounts among a player's reporters reads no profile (it read one
// per distinct reporter on every report filed against that player).
func TestReporteeIndexKeepsReporterCreation(t *testing.T) {
	week := 7 * 24 * time.Hour
	f := newAreaFixtureWith(t, Config{Limits: bundled.Limits{NewAccountAge: week}}, "bad", "old1")
	f.clk.add(week + time.Hour)
	if _, err := f.accounts.Create(context.Background(), accounts.Create{Login: "newbie", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"old1", "newbie"} {
		if got := f.report(f.logIn(who), "bad", "1"); got != int64(ReportAccepted) {
			t.Fatalf("%s: report_success %d", who, got)
		}
	}
	db := f.sys.DB()
	entries := 0
	err := reporteeIndex.Each(db, "", func(_ string, writer storage.AccountID, v *indexValue) error {
		entries++
		p, err := db.AccountProfile(writer)
		if err != nil {
			return err
		}
		if !v.ReporterCreated.Equal(p.Created) || v.ReporterCreated.IsZero() {
			t.Errorf("entry of %s keeps creation %v, the profile says %v", p.Login, v.ReporterCreated, p.Created)
		}
		return nil
	})
	if err != nil || entries != 2 {
		t.Fatalf("%d entries, %v", entries, err)
	}

	// The kept creation is what counts: an id with no profile at all (as
	// if it could not be read) is counted from it; an id without a kept
	// creation (an entry of an earlier version) falls back to its profile.
	now := f.clk.now()
	ghost := storage.AccountID(999999)
	p, err := db.AccountProfile(entryWriter(t, db))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ids     []storage.AccountID
		created map[storage.AccountID]time.Time
		want    int
	}{
		{[]storage.AccountID{ghost}, map[storage.AccountID]time.Time{ghost: now.Add(-time.Hour)}, 1},
		{[]storage.AccountID{ghost}, map[storage.AccountID]time.Time{ghost: now.Add(-2 * week)}, 0},
		{[]storage.AccountID{ghost}, nil, 0}, // no profile, nothing kept: not counted
		{[]storage.AccountID{p.ID}, nil, boolInt(now.Sub(p.Created) < week)},
	} {
		if got, err := youngAccounts(db, c.ids, c.created, now, week); err != nil || got != c.want {
			t.Errorf("youngAccounts(%v, %v) = %d, %v; want %d", c.ids, c.created, got, err, c.want)
		}
	}
}

// entryWriter returns the reporter of the first reportee index entry.
func entryWriter(t *testing.T, db *storage.DB) storage.AccountID {
	t.Helper()
	var id storage.AccountID
	if err := reporteeIndex.Each(db, "", func(_ string, writer storage.AccountID, _ *indexValue) error {
		if id == 0 {
			id = writer
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return id
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
