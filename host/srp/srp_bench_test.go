package srp_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/srp"
)

// BenchmarkServerLogin measures the server's work for one login: pre_auth
// (NewServer, and the B and salt hex it answers) and srpAuth (Verify). b is
// fixed, so B and hence a client M1 computed once before the loop stay
// valid; the client's work and reading b from crypto/rand (well under 1 µs)
// are outside the timed loop.
func BenchmarkServerLogin(b *testing.B) {
	login := newBenchLogin(b)
	b.ReportAllocs()
	for b.Loop() {
		login.run(b)
	}
}

// benchLogin is one account, client A and client M1, valid for a server
// whose b is secret.
type benchLogin struct {
	grp            *srp.Group
	salt, verifier []byte
	aHex, m1       string
	secret         []byte
	rnd            *bytes.Reader
}

func newBenchLogin(b *testing.B) *benchLogin {
	grp := srp.DefaultGroup()
	salt, salt2, verifier, err := grp.NewVerifier("Player", "pw", rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	client, err := grp.NewClient("Player", "pw", rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	aHex := client.AHex()

	// Find a b whose B has a non-zero first byte (almost any), so NewServer
	// draws exactly once per iteration.
	secret := make([]byte, 32)
	var srv *srp.Server
	for srv == nil {
		if _, err := rand.Read(secret); err != nil {
			b.Fatal(err)
		}
		srv, err = grp.NewServer("Player", salt, verifier, aHex, bytes.NewReader(secret))
		if err != nil && !errors.Is(err, srp.ErrRandomSource) { // a redraw hit EOF: try another b
			b.Fatal(err)
		}
	}
	m1, err := client.Proof(srv.SaltHex(), salt2, srv.BHex())
	if err != nil {
		b.Fatal(err)
	}

	return &benchLogin{grp, salt, verifier, aHex, m1, secret, bytes.NewReader(secret)}
}

// run does the server's work of one login.
func (l *benchLogin) run(b *testing.B) {
	l.rnd.Reset(l.secret)
	srv, err := l.grp.NewServer("Player", l.salt, l.verifier, l.aHex, l.rnd)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = srv.BHex(), srv.SaltHex()
	if _, err := srv.Verify(l.m1); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkThreeModExp is the floor for BenchmarkServerLogin: three
// 2048-bit modular exponentiations with 256-bit exponents mod N, the work
// srp.NaiveFloor measures.
func BenchmarkThreeModExp(b *testing.B) {
	e := newThreeModExp(b)
	b.ReportAllocs()
	for b.Loop() {
		e.Run()
	}
}

// newThreeModExp is the floor's work with random bases and exponents.
func newThreeModExp(b *testing.B) *srp.ThreeModExp {
	e, err := srp.NewThreeModExp(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkLoginOverModExp reports the ratio ServerLogin / ThreeModExp
// measured in pairs, one login and one set of three modexps per iteration
// (order alternating), as the median of the per-pair ratios. On a shared,
// noisy machine this is steadier than dividing the results of the two
// benchmarks above, which run seconds apart under different load.
func BenchmarkLoginOverModExp(b *testing.B) {
	login, exp := newBenchLogin(b), newThreeModExp(b)
	var ratios []float64
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if i%2 == 0 {
			login.run(b)
		} else {
			exp.Run()
		}
		t1 := time.Now()
		if i%2 == 0 {
			exp.Run()
		} else {
			login.run(b)
		}
		t2 := time.Now()
		dLogin, dExp := t1.Sub(t0), t2.Sub(t1)
		if i%2 == 1 {
			dLogin, dExp = dExp, dLogin
		}
		ratios = append(ratios, float64(dLogin)/float64(dExp))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "login/3exp")
}
