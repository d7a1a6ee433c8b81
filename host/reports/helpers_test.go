package reports

import (
	"context"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	rules "github.com/honmaster/masterserver/plugins/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// request reads a url-encoded body through wire.ReadRequest, exactly as a
// handler gets it from the server (brackets and all).
func request(t testing.TB, path, body string) *wire.Request {
	t.Helper()
	return requestFrom(t, net.IPv4(127, 0, 0, 1), path, body)
}

// requestFrom is request from the client address ip.
func requestFrom(t testing.TB, ip net.IP, path, body string) *wire.Request {
	t.Helper()
	var req fasthttp.Request
	req.Header.SetMethod("POST")
	req.SetRequestURI(path)
	req.Header.SetContentType("application/x-www-form-urlencoded")
	req.SetBodyString(body)
	ctx := &fasthttp.RequestCtx{}
	ctx.Init(&req, &net.TCPAddr{IP: ip, Port: 5000}, nil)
	r, err := wire.ReadRequest(ctx, wire.DefaultLimits)
	if err != nil {
		t.Fatalf("ReadRequest: %v", err)
	}
	return r
}

// fakeBackend keeps everything in memory and judges reports with Assess,
// as the reporter's actor will in phase 2.
type fakeBackend struct {
	now      func() time.Time
	sessions map[string]Account // cookie -> account
	players  map[string]Account // nickname -> account
	reports  map[storage.AccountID][]Report
	mod      map[storage.AccountID]Moderation
	sysinfo  map[storage.AccountID]string
	decide   Decider
	limits   reportsapi.Limits
	failNext error // returned by the next Submit
}

var (
	alice    = Account{ID: 1, Owner: 1, Nickname: "Alice"}
	bob      = Account{ID: 2, Owner: 2, Nickname: "Bob"}
	carol    = Account{ID: 3, Owner: 3, Nickname: "Carol"}
	aliceAlt = Account{ID: 4, Owner: 1, Nickname: "AliceAlt"} // Alice's sub-account
	dave     = Account{ID: 5, Owner: 5, Nickname: "Dave"}
)

const (
	aliceCookie = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	carolCookie = "cccccccccccccccccccccccccccccccc"
	daveCookie  = "dddddddddddddddddddddddddddddddd"
	bobCookie   = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func newFake() *fakeBackend {
	f := &fakeBackend{
		sessions: map[string]Account{aliceCookie: alice, carolCookie: carol, daveCookie: dave, bobCookie: bob},
		players:  map[string]Account{},
		reports:  map[storage.AccountID][]Report{},
		mod:      map[storage.AccountID]Moderation{},
		sysinfo:  map[storage.AccountID]string{alice.ID: "MAC|OS|CPU|GPU|RAM"},
		decide:   Bundled,
	}
	for _, a := range []Account{alice, bob, carol, aliceAlt, dave} {
		f.players[a.Nickname] = a
	}
	return f
}

func (f *fakeBackend) Authenticate(_ context.Context, cookie string) (Account, error) {
	a, ok := f.sessions[cookie]
	if !ok {
		return Account{}, fmt.Errorf("%w: no session", ErrBadCookie)
	}
	return a, nil
}

func (f *fakeBackend) LookupPlayer(_ context.Context, name string) (Account, error) {
	a, ok := f.players[name]
	if !ok {
		return Account{}, fmt.Errorf("%w: %q", ErrUnknownPlayer, name)
	}
	return a, nil
}

func (f *fakeBackend) Submit(_ context.Context, reporter Account, drafts []Draft) ([]Outcome, error) {
	if err := f.failNext; err != nil {
		f.failNext = nil
		return nil, err
	}
	mine := f.reports[reporter.ID]
	var last uint32
	if len(mine) > 0 {
		last = mine[len(mine)-1].ID.Seq
	}
	b := Batch{Reporter: reporter, SysInfo: f.sysinfo[reporter.ID], Now: f.now(), Recent: mine, LastSeq: last,
		OtherReporters: f.otherReporters(reporter.ID), Limits: f.limits}
	outs := Assess(b, drafts, f.decide)
	for _, o := range outs {
		if o.Accepted() {
			f.reports[reporter.ID] = append(f.reports[reporter.ID], o.Report)
		}
	}
	return outs, nil
}

func (f *fakeBackend) otherReporters(self storage.AccountID) func(storage.AccountID) int {
	return func(reportee storage.AccountID) int {
		seen := map[storage.AccountID]bool{}
		for rep, rs := range f.reports {
			for i := range rs {
				if rep != self && rs[i].Reportee.ID == reportee && rs[i].Status() == rules.StatusOpen {
					seen[rep] = true
				}
			}
		}
		return len(seen)
	}
}

func (f *fakeBackend) ReportingStatus(_ context.Context, id storage.AccountID) (Moderation, error) {
	m := f.mod[id]
	f.mod[id] = m.Shown()
	return m, nil
}

// all returns every stored report, ordered by ID.
func (f *fakeBackend) all() []Report {
	var out []Report
	for _, rs := range f.reports {
		out = append(out, rs...)
	}
	slices.SortFunc(out, func(a, b Report) int {
		if a.ID.Reporter != b.ID.Reporter {
			return int(a.ID.Reporter) - int(b.ID.Reporter)
		}
		return int(a.ID.Seq) - int(b.ID.Seq)
	})
	return out
}

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newHandlers(f *fakeBackend, c *clock, cfg Config) *Handlers {
	f.now = c.now
	f.limits = cfg.Limits
	return NewHandlers(f, cfg, c.now, nil)
}
