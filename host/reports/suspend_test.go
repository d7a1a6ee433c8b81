package reports

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
)

// setSuspID sets the account's own susp_id, as older consoles did.
type setSuspID int

func (s setSuspID) Apply(tx *actors.Tx) (any, error) { tx.Account().SuspID = int(s); return nil, nil }

// TestOperatorSuspension: an operator's suspension is the moderation
// state's: it shows in the next session record and the reporting status
// with its reason and note, and ends by itself; Lift ends it at once, and
// with it a susp_id set directly on the account.
func TestOperatorSuspension(t *testing.T) {
	f := newAreaFixture(t, "bad")
	ctx := context.Background()
	sys := f.area.d.Sys
	id, err := sys.DB().LoginID("bad")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []SuspendArgs{{Account: id, Reason: reportsapi.ReasonAFK}, {Account: id, Reason: reportsapi.ReasonAFK, Days: MaxResolveDays + 1},
		{Account: id, Days: 1}} {
		if _, err := Suspend(ctx, sys, bad, "op", f.clk.now()); !errors.Is(err, ErrUsage) {
			t.Errorf("Suspend(%+v) = %v, want ErrUsage", bad, err)
		}
	}
	m, err := Suspend(ctx, sys, SuspendArgs{Account: id, Reason: reportsapi.ReasonChatAbuse, Days: 3, Note: "flaming\x07"}, "op", f.clk.now())
	if err != nil {
		t.Fatal(err)
	}
	if !m.Report.IsZero() || m.Note != "flaming" || !m.Until.Equal(f.clk.now().Add(72*time.Hour)) {
		t.Errorf("moderation after Suspend = %+v", m)
	}
	rec := f.logIn("bad")
	if rec.SuspID != "1" {
		t.Errorf("susp_id after Suspend = %q, want 1", rec.SuspID)
	}
	a := f.info(rec)
	if st, _ := a.Int("status"); st != 2 || field(a, "reason") != reportsapi.ReasonChatAbuse.Title()+" - flaming" {
		t.Errorf("reporting status = %v", a)
	}

	// A direct susp_id too; Lift ends both.
	if _, err := sys.Apply(ctx, id, setSuspID(7)); err != nil {
		t.Fatal(err)
	}
	l, err := Lift(ctx, sys, id, f.clk.now())
	if err != nil {
		t.Fatal(err)
	}
	if !l.Moderation || !l.Direct || l.State.Suspended(f.clk.now()) || l.State.Suspensions != 1 {
		t.Errorf("Lift = %+v", l)
	}
	if rec := f.logIn("bad"); rec.SuspID != "0" {
		t.Errorf("susp_id after Lift = %q, want 0", rec.SuspID)
	}
	if st, _ := f.info(rec).Int("status"); st != 0 {
		t.Errorf("reporting status after Lift = %d", st)
	}
	if l, err := Lift(ctx, sys, id, f.clk.now()); err != nil || l.Moderation || l.Direct {
		t.Errorf("second Lift = %+v, %v", l, err)
	}
	if _, err := Lift(ctx, sys, storage.AccountID(999999), f.clk.now()); err == nil {
		t.Error("Lift of an unknown account succeeded")
	}
}
