package reports

import (
	"context"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// TestReporteeIndexKeepsReporterCreation: each report's entry in the
// reportee index keeps its reporter's account creation, so that a
// resolution finds the reporter's kept counts (counts.go) without reading
// its profile.
func TestReporteeIndexKeepsReporterCreation(t *testing.T) {
	week := 7 * 24 * time.Hour
	f := newAreaFixtureWith(t, Config{Limits: reportsapi.Limits{NewAccountAge: week}}, "bad", "old1")
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
}
