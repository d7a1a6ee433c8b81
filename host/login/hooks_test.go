package login

import (
	"context"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/srp"
)

// TestSessionHook: the hook runs in the session's change with both
// SysInfo values, its susp_id reaches the record, and its error refuses
// the login without storing the session.
func TestSessionHook(t *testing.T) {
	s := newBenchService(t)
	ctx := context.Background()
	login := func() (*SessionRecord, error) {
		cl, _ := srp.DefaultGroup().NewClient("bench", "pw", rand.Reader)
		pre, err := s.PreAuth(ctx, "bench", cl.AHex(), "127.0.0.1", "MAC|OS")
		if err != nil {
			t.Fatal(err)
		}
		m1, _ := cl.Proof(pre.Salt, pre.Salt2, pre.B)
		return s.SRPAuth(ctx, "bench", m1, "127.0.0.1", "hwid")
	}
	var got ClientInfo
	s.SetSessionHook(func(tx *actors.Tx, c ClientInfo, now time.Time) (RecordFields, error) {
		got = c
		return RecordFields{SuspID: "4"}, nil
	})
	rec, err := login()
	if err != nil {
		t.Fatal(err)
	}
	if rec.SuspID != "4" || got != (ClientInfo{PreAuthSysInfo: "MAC|OS", SysInfo: "hwid"}) {
		t.Errorf("susp_id %q, client info %+v", rec.SuspID, got)
	}
	boom := errors.New("boom")
	s.SetSessionHook(func(*actors.Tx, ClientInfo, time.Time) (RecordFields, error) { return RecordFields{}, boom })
	before := s.sys.CachedSessions()
	if _, err := login(); err == nil {
		t.Fatal("login succeeded although the hook failed")
	}
	if n := s.sys.CachedSessions(); n != before {
		t.Errorf("sessions %d -> %d: the refused login stored one", before, n)
	}
	s.SetSessionHook(nil)
	rec, err = login()
	if err != nil {
		t.Fatalf("without hook: %v", err)
	}
	if rec.SuspID != "0" {
		t.Errorf("without hook: susp_id %q, want the account's 0", rec.SuspID)
	}
}
