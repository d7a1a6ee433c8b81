package reports

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/login"
	bundled "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/storage"
)

// TestResolveReportAgainstDeletedPlayer: a report whose reportee was
// deleted after it was filed can still leave the open queue. Dismissing it
// is recorded with the report, by its reporter's actor, and closes it in
// the kept counts; a warning or suspension is refused with a sentence
// saying the player was deleted (not "no such account"), and nothing is
// written; "reports show" says the player was deleted instead of showing
// a standing. Before the fix every resolution failed with
// actors.ErrNoAccount and the report stayed open for good. On each
// storage engine.
func TestResolveReportAgainstDeletedPlayer(t *testing.T) {
	eachBackend(t, func(t *testing.T, sys *actors.System) {
		ctx := context.Background()
		f := newAreaFixtureOn(t, sys, Config{}, "rep", "troll", "other")
		db := sys.DB()
		rep, other := f.logIn("rep"), f.logIn("other")
		for _, r := range []struct {
			from *login.SessionRecord
			who  string
		}{{rep, "troll"}, {other, "troll"}} {
			if got := f.report(r.from, r.who, "1"); got != int64(ReportAccepted) {
				t.Fatalf("report of %s: report_success %d", r.who, got)
			}
		}
		repID, otherID := f.id("rep"), f.id("other")
		id := ReportID{Reporter: repID, Seq: 1} // rep against troll
		if _, err := f.accounts.Delete(ctx, "troll"); err != nil {
			t.Fatal(err)
		}
		now := f.clk.now()

		var show strings.Builder
		if err := Show(db, id, now, &show); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(show.String(), "deleted") || strings.Contains(show.String(), "standing:   normal") {
			t.Errorf("show of a report against a deleted player:\n%s", show.String())
		}

		for _, args := range []ResolveArgs{{ID: id, Action: bundled.ActionWarn}, {ID: id, Action: bundled.ActionSuspend, Days: 3}} {
			_, _, err := Resolve(ctx, sys, args, "mod", now)
			if err == nil || errors.Is(err, actors.ErrNoAccount) || errors.Is(err, storage.ErrNotFound) ||
				!strings.Contains(err.Error(), `"troll"`) || !strings.Contains(err.Error(), "was deleted") {
				t.Errorf("%s a deleted player: %v; want a refusal saying the player was deleted", args.Action, err)
			}
		}
		if r, err := Load(db, id); err != nil || r.Status() != bundled.StatusOpen {
			t.Fatalf("after the refusals: %+v, %v; want the report open", r, err)
		}
		checkCounts(t, db, "after the refusals")

		r, m, err := Resolve(ctx, sys, ResolveArgs{ID: id, Action: bundled.ActionDismiss, Note: "left the game"}, "mod", now)
		if err != nil {
			t.Fatalf("dismissing a report against a deleted player: %v", err)
		}
		var done strings.Builder
		if err := FormatResolved(&done, r, m, now); err != nil || done.String() != "report "+id.String()+` dismissed; "troll" was deleted (nothing else changed)`+"\n" {
			t.Errorf("the dismissal's confirmation: %q, %v", done.String(), err)
		}
		r, err = Load(db, id)
		if err != nil || r.Status() != bundled.StatusDismissed || r.Resolution.Moderator != "mod" || r.Resolution.Note != "left the game" ||
			!r.Resolution.Time.Equal(now) {
			t.Fatalf("the report read back: %+v, %v", r, err)
		}
		open, err := List(db, ListFilter{Status: bundled.StatusOpen})
		if err != nil {
			t.Fatal(err)
		}
		if len(open) != 1 || open[0].ID != (ReportID{Reporter: otherID, Seq: 1}) {
			t.Errorf("open queue after the dismissal: %v; want only other's report", open)
		}
		dismissed, err := List(db, ListFilter{Status: bundled.StatusDismissed})
		if err != nil || len(dismissed) != 1 || dismissed[0].ID != id {
			t.Errorf("dismissed reports: %v, %v; want %s", dismissed, err, id)
		}
		checkCounts(t, db, "after the dismissal")

		if _, _, err := Resolve(ctx, sys, ResolveArgs{ID: id, Action: bundled.ActionDismiss}, "mod", now); !errors.Is(err, ErrAlreadyResolved) {
			t.Errorf("a second dismissal: %v; want ErrAlreadyResolved", err)
		}

		// The reporter's deletion takes the report and its resolution.
		if _, err := f.accounts.Delete(ctx, "rep"); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(db, id); !errors.Is(err, ErrUnknownReport) {
			t.Errorf("the report after its reporter's deletion: %v", err)
		}
		checkCounts(t, db, "after the reporter's deletion")
	})
}
