// Package storagetest gives tests a PostgreSQL database of their own, for
// the PostgreSQL half of the storage tests and the end-to-end tests run on
// that backend.
//
// Those tests run when HONMASTER_TEST_POSTGRES_URL points at a PostgreSQL
// server whose user may create databases (.ci/postgres starts a throw-away
// one and sets it); without it they skip, saying so.
package storagetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable with the server's URL.
const EnvURL = "HONMASTER_TEST_POSTGRES_URL"

// PostgresURL creates an empty database with a random name on the server
// at $HONMASTER_TEST_POSTGRES_URL, drops it when the test ends, and returns
// its URL. It skips the test when the variable is not set.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Skip("set " + EnvURL + "=postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable to run the PostgreSQL tests; .ci/postgres does")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := "hm_test_" + hex.EncodeToString(rnd[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", EnvURL, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop test database %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}
