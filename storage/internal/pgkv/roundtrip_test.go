package pgkv

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"

	"github.com/honmaster/masterserver/storage/storagetest"
)

// countingConn counts the writes on a connection's socket: pgx writes each
// round trip's messages with one write (no TLS on the test's loopback).
// The pool's liveness ping, sent when a session was idle for over a second
// (a busy machine), is not counted.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte{'Q'}) || !bytes.Contains(p, []byte("-- ping")) {
		c.writes.Add(1)
	}
	return c.Conn.Write(p)
}

// A write is two round trips: BEGIN goes with its statements
// (pgx.Batch.BeginTx), then COMMIT. It was three, BEGIN on its own. An
// Update is three: BEGIN with the row's read, the row's write, COMMIT.
// The pool has one session, so a write whose condition fails, and so rolls
// back, must give its session back for the next write to run.
func TestPostgresWriteRoundTrips(t *testing.T) {
	url := storagetest.PostgresURL(t)
	var writes atomic.Int64
	s, err := Open(context.Background(), Config{URL: url, MaxConns: 1,
		netConn: func(c net.Conn) net.Conn { return countingConn{c, &writes} }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// No SetupDone: the keeper, which checks the lock's session on a
	// socket counted too, does not start.
	owner := []byte("owner")
	ok := func(v []byte, found bool) error { return nil }
	stale := errors.New("stale owner")
	refuse := func(v []byte, found bool) error { return stale }
	apply := func(i int, c *Conditions) error {
		return s.ApplyIf([]Write{{Key: []byte("k"), Value: []byte{byte(i)}}}, c)
	}
	update := func(i int) error {
		return s.Update(owner, func(old []byte, found bool) ([]byte, error) { return []byte{byte(i)}, nil })
	}
	fenced := func(check func([]byte, bool) error) *Conditions {
		return &Conditions{Checks: []Check{{Key: owner, OK: check}}}
	}
	// The first of each kind prepares its statements (a round trip more).
	for i := range 2 {
		if err := apply(i, nil); err != nil {
			t.Fatal(err)
		}
		if err := apply(i, fenced(ok)); err != nil {
			t.Fatal(err)
		}
		if err := update(i); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		for _, c := range []struct {
			what string
			op   func() error
			want int64
		}{
			{"a write", func() error { return apply(i, nil) }, 2},
			{"a fenced write", func() error { return apply(i, fenced(ok)) }, 2},
			{"an update", func() error { return update(i) }, 3},
		} {
			before := writes.Load()
			if err := c.op(); err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			if got := writes.Load() - before; got != c.want {
				t.Errorf("%s took %d round trips; want %d", c.what, got, c.want)
			}
		}
		if err := apply(i, fenced(refuse)); !errors.Is(err, stale) || !errors.Is(err, ErrNotCommitted) {
			t.Fatalf("a write whose check fails: %v; want the check's error, not committed", err)
		}
	}
	var got []byte
	if err := s.Get([]byte("k"), func(v []byte) error { got = append(got, v...); return nil }); err != nil || len(got) != 1 || got[0] != 2 {
		t.Errorf("the last write's value: %v, %v; want [2]", got, err)
	}
}
