package reports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/internal/cpustat"
	bundled "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// eachBackend runs fn on an actor system over each storage engine: Pebble
// in memory, and PostgreSQL when HONMASTER_TEST_POSTGRES_URL is set.
func eachBackend(t *testing.T, fn func(t *testing.T, sys *actors.System)) {
	t.Run("pebble", func(t *testing.T) { fn(t, actorstest.New(t)) })
	t.Run("postgres", func(t *testing.T) {
		db, err := storage.OpenPostgres(storage.PostgresOptions{URL: storagetest.PostgresURL(t), MaxConns: 8})
		if err != nil {
			t.Fatal(err)
		}
		sys := actors.New(db, actors.Options{})
		t.Cleanup(func() { sys.Shutdown(); db.Close() })
		fn(t, sys)
	})
}

// keptCounts reads every kept count of the area.
func keptCounts(t *testing.T, db *storage.DB) map[*storage.CountKeyspace]map[string]int64 {
	t.Helper()
	out := map[*storage.CountKeyspace]map[string]int64{}
	for _, ks := range []*storage.CountKeyspace{openCounts, reporterCounts, hourCounts} {
		out[ks] = map[string]int64{}
		if err := ks.Each(db, "", "", func(k string, n int64) error { out[ks][k] = n; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// checkCounts: the kept counts are what a count of the stored reports
// gives, key for key.
func checkCounts(t *testing.T, db *storage.DB, when string) {
	t.Helper()
	want, err := countOpenReports(db)
	if err != nil {
		t.Fatal(err)
	}
	got := keptCounts(t, db)
	for ks, w := range want {
		if !maps.Equal(got[ks], w) {
			t.Errorf("%s: %s kept %v, the reports give %v", when, ks.Name(), got[ks], w)
		}
	}
}

// scanOthers is the definition of the facts, computed the way filing did
// before counts were kept: every open report against reportee, by
// reporter, other than self, and those created less than age before now.
func scanOthers(t *testing.T, db *storage.DB, reportee, self storage.AccountID, now time.Time, age time.Duration) (all, young int) {
	t.Helper()
	res, err := resolutionsOf(db, reportee)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[storage.AccountID]bool{}
	err = reporteeIndex.Each(db, storage.KeyUint32(uint32(reportee)), func(key string, writer storage.AccountID, _ *indexValue) error {
		seq, err := seqOfReporteeKey(key)
		if err != nil {
			return err
		}
		if _, ok := res[ReportID{Reporter: writer, Seq: seq}]; ok || writer == self || seen[writer] {
			return nil
		}
		seen[writer] = true
		p, err := db.AccountProfile(writer)
		if err != nil {
			return err
		}
		all++
		if age > 0 && !p.Created.IsZero() && now.Sub(p.Created) < age {
			young++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all, young
}

// checkFacts: the facts read from the kept counts equal the scan's, for
// every account as the reporter.
func checkFacts(t *testing.T, f *areaFixture, reportee string, now time.Time, age time.Duration, wantAll, wantYoung int) {
	t.Helper()
	db := f.sys.DB()
	e := f.id(reportee)
	for _, id := range f.ids() {
		p, err := db.AccountProfile(id)
		if err != nil {
			t.Fatal(err)
		}
		all, young, err := openReporters(db, e, id, p.Created, now, age)
		if err != nil {
			t.Fatal(err)
		}
		sa, sy := scanOthers(t, db, e, id, now, age)
		if all != sa || young != sy {
			t.Errorf("facts for %s reporting %s: %d others, %d new; the scan says %d, %d", p.Login, reportee, all, young, sa, sy)
		}
		if id == e && (all != wantAll || young != wantYoung) {
			// The reportee is no reporter: it sees every reporter.
			t.Errorf("reporters of %s: %d, %d new; want %d, %d", reportee, all, young, wantAll, wantYoung)
		}
	}
}

func (f *areaFixture) id(login string) storage.AccountID {
	f.t.Helper()
	id, err := f.sys.DB().LoginID(login)
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

func (f *areaFixture) ids() []storage.AccountID {
	f.t.Helper()
	var out []storage.AccountID
	for _, l := range []string{"bad", "old1", "old2", "new1", "new2"} {
		if id, err := f.sys.DB().LoginID(l); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// resolveOne resolves the first open report of reporter against "bad".
func (f *areaFixture) resolveOne(sys *actors.System, reporter string) {
	f.t.Helper()
	rs, err := List(sys.DB(), ListFilter{Status: bundled.StatusOpen})
	if err != nil {
		f.t.Fatal(err)
	}
	for _, r := range rs {
		if r.Reporter.Nickname == reporter {
			if _, _, err := Resolve(context.Background(), sys, ResolveArgs{ID: r.ID, Action: bundled.ActionDismiss}, "mod", f.clk.now()); err != nil {
				f.t.Fatal(err)
			}
			return
		}
	}
	f.t.Fatalf("no open report of %s", reporter)
}

// TestCountsFollowReports: the kept counts, and the facts filing reads
// from them, stay what the stored reports give through filing, resolving,
// deleting a reporter, time passing (a reporter stops being new, exactly
// at its age limit) and a rebuild on a database whose counts are missing;
// on each storage engine.
func TestCountsFollowReports(t *testing.T) {
	week := 7 * 24 * time.Hour
	eachBackend(t, func(t *testing.T, sys *actors.System) {
		f := newAreaFixtureOn(t, sys, Config{Limits: reportsapi.Limits{NewAccountAge: week, PerReportee: 5}}, "bad", "old1", "old2")
		db := sys.DB()
		f.clk.add(week + 90*time.Minute)
		for _, l := range []string{"new1", "new2"} {
			if _, err := f.accounts.Create(context.Background(), accounts.Create{Login: l, Password: "pw"}); err != nil {
				t.Fatal(err)
			}
			f.clk.add(20 * time.Minute)
		}
		file := func(who string, n int) {
			t.Helper()
			rec := f.logIn(who)
			for range n {
				if got := f.report(rec, "bad", "1"); got != int64(ReportAccepted) {
					t.Fatalf("%s: report_success %d", who, got)
				}
			}
		}
		file("old1", 1)
		file("old2", 2)
		file("new1", 1)
		file("new2", 3)
		now := f.clk.now()
		checkCounts(t, db, "after filing")
		checkFacts(t, f, "bad", now, week, 4, 2)

		f.resolveOne(sys, "old2") // one of two: old2 still counts
		checkCounts(t, db, "after one resolution")
		checkFacts(t, f, "bad", now, week, 4, 2)
		f.resolveOne(sys, "old2")
		checkCounts(t, db, "after old2's last resolution")
		checkFacts(t, f, "bad", now, week, 3, 2)

		if _, err := sys.DeleteAccount(context.Background(), f.id("new1")); err != nil {
			t.Fatal(err)
		}
		checkCounts(t, db, "after new1's deletion")
		checkFacts(t, f, "bad", now, week, 2, 1)

		// new2 is new until exactly a week after its creation.
		p, err := db.AccountProfile(f.id("new2"))
		if err != nil {
			t.Fatal(err)
		}
		limit := p.Created.Add(week)
		checkFacts(t, f, "bad", limit.Add(-time.Nanosecond), week, 2, 1)
		checkFacts(t, f, "bad", limit, week, 2, 0)
		checkFacts(t, f, "bad", limit.Add(time.Hour), week, 2, 0)
		checkFacts(t, f, "bad", now, 0, 2, 0) // no age limit: none is new

		// A database whose counts are missing (written by an earlier
		// version, whose reportee index entries kept no creation either)
		// gets them at the area's start.
		wipeCounts(t, sys)
		if got := keptCounts(t, db); len(got[openCounts])+len(got[reporterCounts])+len(got[hourCounts]) != 0 {
			t.Fatalf("counts left after the wipe: %v", got)
		}
		if _, err := New(Deps{Sys: sys, Login: f.login, Decider: bundled.Plugin(), Now: f.clk.now}); err != nil {
			t.Fatal(err)
		}
		checkCounts(t, db, "after the rebuild")
		checkFacts(t, f, "bad", now, week, 2, 1)
		file("old1", 1)
		checkCounts(t, db, "after filing on the rebuilt counts")
	})
}

// wipeCounts makes the database look like one of an earlier version: no
// counts, and reportee index entries without the reporter's creation.
func wipeCounts(t *testing.T, sys *actors.System) {
	t.Helper()
	db := sys.DB()
	countsBuilt.Delete(db)
	_, err := sys.UpdateGlobal(context.Background(), func(g *actors.GlobalTx) (any, error) {
		for _, ks := range []*storage.CountKeyspace{openCounts, reporterCounts, hourCounts, countsKept} {
			if err := ks.Each(db, "", "", func(k string, _ int64) error { ks.Set(g, k, 0); return nil }); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	byWriter := map[storage.AccountID][]string{}
	err = reporteeIndex.Each(db, "", func(key string, writer storage.AccountID, _ *indexValue) error {
		byWriter[writer] = append(byWriter[writer], key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for w, keys := range byWriter {
		if _, err := sys.Apply(context.Background(), w, oldEntries(keys)); err != nil {
			t.Fatal(err)
		}
	}
}

// oldEntries rewrites the account's reportee index entries as an earlier
// version wrote them (no reporter creation).
type oldEntries []string

func (c oldEntries) Apply(tx *actors.Tx) (any, error) {
	for _, k := range c {
		if err := reporteeIndex.Put(tx, k, &indexValue{}); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// seedReports files n reports of the actor's account against reportee,
// as filing writes them, without asking the plugin (whose limits would
// refuse them).
type seedReports struct {
	reportee Account
	n        int
	now      time.Time
}

func (c seedReports) Apply(tx *actors.Tx) (any, error) {
	me, err := getOr(reporterRecords, tx.DB(), tx.ID(), "")
	if err != nil {
		return nil, err
	}
	self := Account{ID: tx.ID(), Nickname: tx.View().Nickname}
	for range c.n {
		me.LastSeq++
		r := Report{ID: ReportID{Reporter: tx.ID(), Seq: me.LastSeq}, Reporter: self,
			Draft: Draft{Reportee: c.reportee, Reason: reportsapi.ReasonChatAbuse, Text: "seed"}, Received: c.now, Priority: 1}
		if err := fileReport(tx, &r); err != nil {
			return nil, err
		}
	}
	return nil, reporterRecords.Put(tx, "", me)
}

// BenchmarkFileReport files one report (in the reporter's actor, the
// bundled rule in process, one synced commit on in-memory Pebble) while
// the queue holds other reports against another player, and while others
// are open against the reported player from as many distinct reporters:
// with kept counts the cost does not grow with either.
//
//	go test -run '^$' -bench FileReport -benchtime 2000x -benchmem ./host/reports
//
// HONMASTER_BENCH_QUEUE=1000000 adds a run with that many reports in the
// queue (about 1.5 GiB of memory and a few minutes of setup at 1M).
func BenchmarkFileReport(b *testing.B) {
	cases := []struct{ queue, against int }{{1_000, 0}, {100_000, 0}, {1_000, 10_000}}
	if n, err := strconv.Atoi(os.Getenv("HONMASTER_BENCH_QUEUE")); err == nil && n > 0 {
		cases = append(cases, struct{ queue, against int }{n, 0})
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("queue=%d/against=%d", c.queue, c.against), func(b *testing.B) {
			sys := actorstest.New(b)
			ctx := context.Background()
			// The counts are built as the server builds them when it starts
			// (filing and seeding are refused until they are).
			if err := keepCounts(ctx, sys, slog.New(slog.DiscardHandler)); err != nil {
				b.Fatal(err)
			}
			now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			mk := func(login string) Account {
				a, err := sys.CreateAccount(ctx, &actors.NewAccount{Login: login, Account: storage.Account{Nickname: login, Created: now}})
				if err != nil {
					b.Fatal(err)
				}
				return Account{ID: a.ID, Nickname: login}
			}
			target, other := mk("target"), mk("other")
			seed := func(reporter Account, reportee Account, n int) {
				for done := 0; done < n; done += 1000 {
					if _, err := sys.Apply(ctx, reporter.ID, seedReports{reportee: reportee, n: min(n-done, 1000), now: now}); err != nil {
						b.Fatal(err)
					}
				}
			}
			seed(mk("filler"), other, c.queue)
			for i := range c.against {
				seed(mk(fmt.Sprintf("r%d", i)), target, 1)
			}
			// Reporters of their own, so that no limit refuses a report.
			reporters := make([]Account, b.N)
			for i := range reporters {
				reporters[i] = mk(fmt.Sprintf("rep%d", i))
			}
			lim := reportsapi.Limits{NewAccountAge: 7 * 24 * time.Hour}.WithDefaults()
			draft := []Draft{{Reportee: target, Reason: reportsapi.ReasonChatAbuse, Text: "feeding"}}
			decider := bundled.Plugin()
			b.ResetTimer()
			cpu := processCPU(b)
			for i := range b.N {
				res, err := actors.Apply(ctx, sys, reporters[i].ID, (&submitChange{ctx: ctx, decider: decider, reporter: reporters[i],
					drafts: draft, now: now.Add(time.Hour), limits: lim}).apply)
				if err != nil {
					b.Fatal(err)
				}
				if o := res[0]; !o.Accepted() {
					b.Fatal(o.Err)
				}
			}
			// The process's CPU time, which a loaded machine inflates less
			// than the wall time (it includes Pebble's background work).
			b.ReportMetric(float64(processCPU(b)-cpu)/float64(b.N), "cpu-ns/op")
			// Pebble's read amplification (files a read may visit): what
			// grows with the database's size, not with the reports read.
			b.ReportMetric(float64(sys.DB().EngineStats().ReadAmplification), "read-amp")
		})
	}
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU(b *testing.B) time.Duration {
	t, ok := cpustat.Self()
	if !ok {
		b.Fatal("the process's CPU time cannot be read here")
	}
	return t
}

// deletingDuring runs the resolution's change in the reportee's actor,
// then, before its commit, deletes the reporter (another actor) and waits
// for that deletion to commit: the resolution has read the reporter's
// index entry, and the deletion has zeroed the reporter's counts.
type deletingDuring struct {
	resolve *resolveChange
	delete  func() error
}

func (c deletingDuring) Apply(tx *actors.Tx) (any, error) {
	out, err := c.resolve.apply(tx)
	if err != nil {
		return nil, err
	}
	return out, c.delete()
}

// A resolution racing its reporter's deletion: the deletion commits
// between the resolution's read of the reporter and its commit, and its
// count change must not leave the reporter's open count at -1 (a stray
// count nothing reads, which a count of the reports does not give). Before
// TakeMember it did, on each engine.
func TestResolutionRacingReporterDeletion(t *testing.T) {
	eachBackend(t, func(t *testing.T, sys *actors.System) {
		f := newAreaFixtureOn(t, sys, Config{}, "bad", "old1", "old2")
		for _, who := range []string{"old1", "old2"} {
			if got := f.report(f.logIn(who), "bad", "1"); got != int64(ReportAccepted) {
				t.Fatalf("%s: report_success %d", who, got)
			}
		}
		rs, err := List(sys.DB(), ListFilter{Status: bundled.StatusOpen})
		if err != nil {
			t.Fatal(err)
		}
		var r *Report
		for i := range rs {
			if rs[i].Reporter.Nickname == "old1" {
				r = &rs[i]
			}
		}
		if r == nil {
			t.Fatal("no open report of old1")
		}
		ctx := context.Background()
		change := deletingDuring{
			resolve: &resolveChange{report: r, res: ResolveArgs{ID: r.ID, Action: bundled.ActionDismiss}.Resolution("mod", f.clk.now())},
			delete:  func() error { _, err := sys.DeleteAccount(ctx, r.Reporter.ID); return err },
		}
		if _, err := sys.Apply(ctx, r.Reportee.ID, change); err != nil {
			t.Fatal(err)
		}
		checkCounts(t, sys.DB(), "after a resolution racing its reporter's deletion")
		checkFacts(t, f, "bad", f.clk.now(), 0, 1, 0)
	})
}

// A resolution that commits while the counts are being built (after the
// build read the reports, before it commits) is refused: the build would
// overwrite its count with what it read. Before the refusal the report
// was resolved and still counted open; on each engine. Once built, the
// same resolution commits.
func TestCountsBuildRefusesRacingChange(t *testing.T) {
	eachBackend(t, func(t *testing.T, sys *actors.System) {
		f := newAreaFixtureOn(t, sys, Config{}, "bad", "old1")
		rec := f.logIn("old1")
		for range 2 {
			if got := f.report(rec, "bad", "1"); got != int64(ReportAccepted) {
				t.Fatalf("report_success %d", got)
			}
		}
		wipeCounts(t, sys)
		rs, err := List(sys.DB(), ListFilter{Status: bundled.StatusOpen})
		if err != nil || len(rs) != 2 {
			t.Fatalf("open reports %v, %v; want 2", rs, err)
		}
		r := &rs[0]
		ctx := context.Background()
		resolve := func() error {
			_, err := actors.Apply(ctx, sys, r.Reportee.ID, (&resolveChange{report: r,
				res: ResolveArgs{ID: r.ID, Action: bundled.ActionDismiss}.Resolution("mod", f.clk.now())}).apply)
			return err
		}
		var raced error
		rebuildRead = func() { rebuildRead = nil; raced = resolve() }
		t.Cleanup(func() { rebuildRead = nil })
		if _, err := New(Deps{Sys: sys, Login: f.login, Decider: bundled.Plugin(), Now: f.clk.now}); err != nil {
			t.Fatal(err)
		}
		if !errors.Is(raced, ErrCountsNotKept) {
			t.Errorf("a resolution during the build: %v; want ErrCountsNotKept", raced)
		}
		checkCounts(t, sys.DB(), "after a build with a resolution racing it")
		if err := resolve(); err != nil {
			t.Fatalf("the resolution once the counts are built: %v", err)
		}
		checkCounts(t, sys.DB(), "after the resolution")
	})
}
