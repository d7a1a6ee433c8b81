package login

import (
	"context"
	"crypto/rand"
	"math/big"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// newBenchService is a login service over in-memory storage with one
// account, "bench", password "pw".
func newBenchService(tb testing.TB) *Service {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		tb.Fatal(err)
	}
	sys := actors.New(db, actors.Options{})
	tb.Cleanup(func() { sys.Shutdown(); db.Close() })
	grp := srp.DefaultGroup()
	salt, salt2, v, err := grp.NewVerifier("bench", "pw", rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "bench",
		Account: storage.Account{Nickname: "bench", SRP: storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}}}); err != nil {
		tb.Fatal(err)
	}
	return New(grp, sys, Settings{CookieLifetime: time.Hour, PreAuthLifetime: time.Minute, PreAuthMaxPending: 1000,
		Secret: []byte("bench-secret-bench"), KeyVersion: "0001"}, nil, nil)
}

// BenchmarkLogin measures the server side of one login as the HTTP
// handlers run it — pre_auth (account read in its actor, b, B) and srpAuth
// (proof check, M2, session commit through the actor, session record built
// and PHP-encoded) — next to its floor, three 2048-bit modexps with 256-bit
// exponents (B = kv + g^b, v^u, (A·v^u)^b), in the same loop. Interleaving
// keeps the ratio steady on a noisy machine; only server work is timed (the
// client's work runs between the timed parts, without Stop/StartTimer, which
// stop the world to read memory statistics).
func BenchmarkLogin(b *testing.B) {
	s := newBenchService(b)
	ctx := context.Background()
	grp := srp.DefaultGroup()
	base, n, exps := modExpInputs(b)
	var login, floor time.Duration
	var r big.Int
	for b.Loop() {
		cl, err := grp.NewClient("bench", "pw", rand.Reader)
		if err != nil {
			b.Fatal(err)
		}
		a := cl.AHex()
		t0 := time.Now()
		pre, err := s.PreAuth(ctx, "bench", a, "127.0.0.1", "")
		login += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		m1, err := cl.Proof(pre.Salt, pre.Salt2, pre.B)
		if err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		rec, err := s.SRPAuth(ctx, "bench", m1, "127.0.0.1", "")
		if err == nil {
			_, err = wire.Marshal(rec)
		}
		login += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		for _, e := range exps {
			r.Exp(base, e, n)
		}
		floor += time.Since(t0)
	}
	b.ReportMetric(float64(login.Nanoseconds())/float64(b.N), "login-ns/op")
	b.ReportMetric(float64(floor.Nanoseconds())/float64(b.N), "3modexp-ns/op")
	b.ReportMetric(float64(login)/float64(floor), "login/3modexp")
}

func modExpInputs(b *testing.B) (base, n *big.Int, exps []*big.Int) {
	n, _ = new(big.Int).SetString(srp.DefaultNHex, 16)
	base = new(big.Int).Sub(n, big.NewInt(12345))
	exps = make([]*big.Int, 3)
	for i := range exps {
		e, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 256))
		if err != nil {
			b.Fatal(err)
		}
		exps[i] = e.SetBit(e, 255, 1)
	}
	return base, n, exps
}

// BenchmarkThreeModExp is three 2048-bit modular exponentiations with
// 256-bit exponents modulo the protocol's N.
func BenchmarkThreeModExp(b *testing.B) {
	base, n, exps := modExpInputs(b)
	var r big.Int
	for b.Loop() {
		for _, e := range exps {
			r.Exp(base, e, n)
		}
	}
}

func TestBenchServiceLogsIn(t *testing.T) {
	s := newBenchService(t)
	grp := srp.DefaultGroup()
	cl, _ := grp.NewClient("bench", "pw", rand.Reader)
	pre, err := s.PreAuth(context.Background(), "bench", cl.AHex(), "127.0.0.1", "")
	if err != nil {
		t.Fatal(err)
	}
	m1, _ := cl.Proof(pre.Salt, pre.Salt2, pre.B)
	rec, err := s.SRPAuth(context.Background(), "bench", m1, "127.0.0.1", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.VerifyServer(rec.Proof); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkSwitchAuth measures switch_auth from a main account's session
// to its sub-account, both live: the session check, the target's profile,
// the identities of the record (main and sub), the session committed
// through the sub-account's actor, and the record PHP-encoded.
func BenchmarkSwitchAuth(b *testing.B) {
	s := newBenchService(b)
	ctx := context.Background()
	sub, err := s.sys.CreateAccount(ctx, &actors.NewAccount{Login: "benchsub", ParentLogin: "bench",
		Account: storage.Account{Nickname: "benchsub"}})
	if err != nil {
		b.Fatal(err)
	}
	cookie := loginForBench(b, s)
	subID := itoa(sub.ID)
	for b.Loop() {
		rec, err := s.SwitchAuth(ctx, "benchsub", subID, cookie, "127.0.0.1")
		if err == nil {
			_, err = wire.Marshal(rec)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// loginForBench logs "bench" in and returns its session cookie.
func loginForBench(tb testing.TB, s *Service) string {
	grp := srp.DefaultGroup()
	cl, err := grp.NewClient("bench", "pw", rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	pre, err := s.PreAuth(context.Background(), "bench", cl.AHex(), "127.0.0.1", "")
	if err != nil {
		tb.Fatal(err)
	}
	m1, err := cl.Proof(pre.Salt, pre.Salt2, pre.B)
	if err != nil {
		tb.Fatal(err)
	}
	rec, err := s.SRPAuth(context.Background(), "bench", m1, "127.0.0.1", "")
	if err != nil {
		tb.Fatal(err)
	}
	return rec.Cookie
}
