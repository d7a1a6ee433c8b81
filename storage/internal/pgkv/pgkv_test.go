package pgkv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://u:s3cret@host:5432/db?sslmode=disable", "postgres://u:xxxxx@host:5432/db?sslmode=disable"},
		{"postgres://u:s3c@ret@host:notaport/db", "postgres://u:xxxxx@host:notaport/db"},
		{"postgres://u@host/db", "postgres://u@host/db"},
		{"host=h user=u password=s3cret dbname=d", "host=h user=u password=xxxxx dbname=d"},
		{"host=h password = 's3 cret' dbname=d", "host=h password = xxxxx dbname=d"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

func TestCollapse(t *testing.T) {
	sets, vals, dels := collapse([]Write{
		{Key: []byte("a"), Value: []byte("1")}, {Key: []byte("b"), Delete: true}, {Key: []byte("a"), Delete: true},
		{Key: []byte("b"), Value: nil}, {Key: []byte("c"), Value: []byte("3")},
	})
	if len(sets) != 2 || string(sets[0]) != "b" || vals[0] == nil || len(vals[0]) != 0 || string(sets[1]) != "c" ||
		len(dels) != 1 || string(dels[0]) != "a" {
		t.Errorf("collapse: sets %q vals %q dels %q", sets, vals, dels)
	}
}

// A failed COMMIT's SQLSTATE says whether anything committed: class 40 is a
// rollback, except 40003 (statement_completion_unknown), which CockroachDB
// answers to an ambiguous commit; a lost connection is unknown too.
func TestCommitFailure(t *testing.T) {
	for _, c := range []struct {
		err  error
		want error
	}{
		{&pgconn.PgError{Code: "40001"}, ErrNotCommitted},
		{&pgconn.PgError{Code: "40P01"}, ErrNotCommitted},
		{pgx.ErrTxCommitRollback, ErrNotCommitted},
		{&pgconn.PgError{Code: "40003"}, ErrOutcomeUnknown},
		{&pgconn.PgError{Code: "57P01"}, ErrOutcomeUnknown},
		{io.ErrUnexpectedEOF, ErrOutcomeUnknown},
	} {
		if got := commitFailure(c.err); !errors.Is(got, c.want) {
			t.Errorf("commitFailure(%v) = %v; want %v", c.err, got, c.want)
		}
	}
}

// A context that ends while a serialization failure is retried: crdb's loop
// returns the bare context error, after an attempt the server rolled back,
// so the Apply is "not committed", not left unclassified (uncertain).
func TestRetryContextEndsAfterSerializationFailure(t *testing.T) {
	s := &Store{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := s.retry(ctx, func(context.Context) error {
		cancel() // the time runs out during the failed attempt
		return fmt.Errorf("%w: %w", ErrNotCommitted, &pgconn.PgError{Code: "40001"})
	})
	if !errors.Is(err, ErrNotCommitted) || errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("retry after the context ended: %v; want ErrNotCommitted", err)
	}
}

// Keys go out sorted (sets with their values), whatever the batch's order,
// so that concurrent transactions lock rows in one order.
func TestCollapseSorts(t *testing.T) {
	sets, vals, dels := collapse([]Write{
		{Key: []byte("z"), Value: []byte("26")}, {Key: []byte("y"), Delete: true}, {Key: []byte("a"), Value: []byte("1")},
		{Key: []byte("b"), Delete: true}, {Key: []byte("m\xff"), Value: []byte("13")}, {Key: []byte("m"), Value: []byte("12")},
	})
	if fmt.Sprintf("%q %q %q", sets, vals, dels) != `["a" "m" "m\xff" "z"] ["1" "12" "13" "26"] ["b" "y"]` {
		t.Errorf("collapse: sets %q vals %q dels %q; want each in key order", sets, vals, dels)
	}
}

// A deadlock (40P01) is retried like a serialization failure.
func TestRetryDeadlock(t *testing.T) {
	s := &Store{}
	tries := 0
	err := s.retry(context.Background(), func(context.Context) error {
		if tries++; tries == 1 {
			return fmt.Errorf("%w: %w", ErrNotCommitted, &pgconn.PgError{Code: "40P01"})
		}
		return nil
	})
	if err != nil || tries != 2 || s.Retries() != 1 {
		t.Errorf("after a deadlock: %v after %d attempts, %d retries; want success on the second", err, tries, s.Retries())
	}
}
