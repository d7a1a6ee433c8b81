package reports

import (
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/actors/actorstest"
	bundled "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

// TestAnEarlierVersionsFilingStaysInTheOpenQueue: the open queue is read
// from reports.queue_open, which a node of the earlier version (still
// running beside this one in a cluster during an upgrade) does not keep:
// it files a report with its records and reports.open only. The open
// view still lists that report (it reads the whole queue when the two
// disagree), and lists from reports.queue_open again once they agree.
func TestAnEarlierVersionsFilingStaysInTheOpenQueue(t *testing.T) {
	sys := actorstest.New(t)
	f := newAreaFixtureOn(t, sys, Config{Limits: reportsapi.Limits{PerReportee: 5}}, "bad", "old1", "old2")
	db := sys.DB()
	if got := f.report(f.logIn("old1"), "bad", "1"); got != int64(ReportAccepted) {
		t.Fatalf("report_success %d", got)
	}
	open := ListFilter{Status: bundled.StatusOpen}
	if rs, ok, err := listOpen(db, open); err != nil || !ok || len(rs) != 1 {
		t.Fatalf("open queue of one report: %d reports, kept %v, %v", len(rs), ok, err)
	}

	bad, err := db.AccountProfile(f.id("bad"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sys.Apply(t.Context(), f.id("old2"), earlierFiling{reportee: Account{ID: bad.ID, Nickname: bad.Nickname}, now: f.clk.now()}); err != nil {
		t.Fatal(err)
	}
	rs, err := List(db, open)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("the open queue lists %d reports after an earlier version's filing, want 2", len(rs))
	}
	checkOpenQueue(t, db, "after an earlier version's filing")
	if _, ok, err := listOpen(db, open); err != nil || ok {
		t.Errorf("reports.queue_open misses a report, yet listOpen trusted it (%v)", err)
	}
}

// earlierFiling files one report of the actor's account as the version
// before reports.queue_open did: the report, its index entries and
// reports.open.
type earlierFiling struct {
	reportee Account
	now      time.Time
}

func (c earlierFiling) Apply(tx *actors.Tx) (any, error) {
	me, err := getOr(reporterRecords, tx.DB(), tx.ID(), "")
	if err != nil {
		return nil, err
	}
	me.LastSeq++
	r := Report{ID: ReportID{Reporter: tx.ID(), Seq: me.LastSeq}, Reporter: Account{ID: tx.ID(), Nickname: tx.View().Nickname},
		Draft: Draft{Reportee: c.reportee, Reason: reportsapi.ReasonChatAbuse, Text: "filed by an earlier version"}, Received: c.now, Priority: 1}
	if err := reportRecords.Put(tx, seqKey(r.ID.Seq), &r); err != nil {
		return nil, err
	}
	if err := queueIndex.Put(tx, queueKey(&r), &indexValue{Reportee: r.Reportee.ID}); err != nil {
		return nil, err
	}
	if err := reporteeIndex.Put(tx, reporteeKey(r.Reportee.ID, r.ID.Seq), &indexValue{ReporterCreated: tx.View().Created}); err != nil {
		return nil, err
	}
	countOpen(tx, r.Reportee.ID, tx.ID(), tx.View().Created, 1)
	return nil, reporterRecords.Put(tx, "", me)
}
