package login

import (
	"context"
	"crypto/rand"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
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
	id, _ := s.db.LoginID("bench")
	if rec.SuspID != "4" || !reflect.DeepEqual(got, ClientInfo{PreAuthSysInfo: "MAC|OS", SysInfo: "hwid", Family: []storage.AccountID{id}}) {
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

// TestSysInfoIsBounded: pre_auth needs no account, and its SysInfo was
// kept with the handshake as sent, up to a request body (1 MiB) each for
// the handshake's lifetime: one address could pin pre_auth_per_address of
// them. And a SysInfo that is not UTF-8 reached the session hook, whose
// protobuf record refused it: a right password was refused. Both values
// are now valid UTF-8 of at most MaxSysInfoBytes, kept and given so.
func TestSysInfoIsBounded(t *testing.T) {
	s := newBenchService(t)
	ctx := context.Background()
	var got ClientInfo
	s.SetSessionHook(func(tx *actors.Tx, c ClientInfo, now time.Time) (RecordFields, error) {
		got = c
		return RecordFields{}, nil
	})
	huge := "MAC|" + strings.Repeat("é", 1<<19) // 1 MiB, two-byte characters
	cl, _ := srp.DefaultGroup().NewClient("bench", "pw", rand.Reader)
	pre, err := s.PreAuth(ctx, "bench", cl.AHex(), "127.0.0.1", huge)
	if err != nil {
		t.Fatal(err)
	}
	s.pending.mu.Lock()
	kept := s.pending.byKey[pendingKey("bench", limit.AddrKey("127.0.0.1"))].sysInfo
	s.pending.mu.Unlock()
	if len(kept) > MaxSysInfoBytes || !strings.HasPrefix(huge, kept) || !utf8.ValidString(kept) {
		t.Errorf("the handshake keeps %d bytes of a 1 MiB SysInfo (valid UTF-8 %v), want at most %d of its start",
			len(kept), utf8.ValidString(kept), MaxSysInfoBytes)
	}
	m1, _ := cl.Proof(pre.Salt, pre.Salt2, pre.B)
	if _, err := s.SRPAuth(ctx, "bench", m1, "127.0.0.1", "hw\xffid"); err != nil {
		t.Fatal(err)
	}
	if got.SysInfo != "hw\uFFFDid" || got.PreAuthSysInfo != kept {
		t.Errorf("the hook got %q and %d bytes; want %q and the kept %d", got.SysInfo, len(got.PreAuthSysInfo), "hw\uFFFDid", len(kept))
	}
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"MAC|Windows 10|CPU", "MAC|Windows 10|CPU"},
		{"os\xff\xfe", "os\uFFFD"}, // one U+FFFD per run of bad bytes
		{strings.Repeat("\xff", 5000), "\uFFFD"},
	} {
		if got := boundSysInfo(tc.in); got != tc.want {
			t.Errorf("boundSysInfo(%.20q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
