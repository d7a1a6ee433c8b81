package srp

import (
	"crypto/rand"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"time"
)

// threeModExp is the work of the naive login floor: three 2048-bit modular
// exponentiations mod N (DefaultNHex) with full 256-bit exponents, the
// ones a naive server computes per login, with plain math/big. The bases
// and exponents are drawn once, so every run does the same work.
type threeModExp struct {
	n           *big.Int
	bases, exps [3]*big.Int
	z           big.Int
}

// newThreeModExp draws the bases (below N) and the exponents (256 bits,
// the top one set) from rnd.
func newThreeModExp(rnd io.Reader) (*threeModExp, error) {
	n, _ := new(big.Int).SetString(DefaultNHex, 16)
	e := &threeModExp{n: n}
	limit := new(big.Int).Lsh(big.NewInt(1), 256)
	for i := range e.bases {
		var err error
		if e.bases[i], err = rand.Int(rnd, n); err != nil {
			return nil, fmt.Errorf("srp: drawing a base: %w", err)
		}
		if e.exps[i], err = rand.Int(rnd, limit); err != nil {
			return nil, fmt.Errorf("srp: drawing an exponent: %w", err)
		}
		e.exps[i].SetBit(e.exps[i], 255, 1) // a full 256-bit exponent
	}
	return e, nil
}

// run computes the three exponentiations.
func (e *threeModExp) run() {
	for i := range e.bases {
		e.z.Exp(e.bases[i], e.exps[i], e.n)
	}
}

// NaiveFloor is the work of the naive login floor, ready to be measured
// again and again: three 2048-bit exponentiations mod N with 256-bit
// exponents in plain math/big (random bases below N and exponents, drawn
// once by NewNaiveFloor), what a naive server computes per login. It is
// not safe for concurrent use.
type NaiveFloor struct {
	e      *threeModExp
	warmed bool
}

// NewNaiveFloor draws the floor's bases and exponents.
func NewNaiveFloor() (*NaiveFloor, error) {
	e, err := newThreeModExp(rand.Reader)
	if err != nil {
		return nil, err
	}
	return &NaiveFloor{e: e}, nil
}

// CPU runs the three exponentiations n times on the calling goroutine
// locked to its OS thread (once more untimed before its first
// measurement, to warm the caches), and returns that thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID: not the wall time, which other processes on a
// shared core inflate) per run of the three. A caller that pins its thread
// to some cores first (and keeps it locked) measures them there. Linux
// only: elsewhere it returns an error.
func (f *NaiveFloor) CPU(n int) (time.Duration, error) {
	if n < 1 {
		return 0, fmt.Errorf("srp: NaiveFloor.CPU needs 1 or more iterations, not %d", n)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !f.warmed {
		f.e.run()
		f.warmed = true
	}
	t0, err := threadCPU()
	if err != nil {
		return 0, err
	}
	for range n {
		f.e.run()
	}
	t1, err := threadCPU()
	if err != nil {
		return 0, err
	}
	return (t1 - t0) / time.Duration(n), nil
}
