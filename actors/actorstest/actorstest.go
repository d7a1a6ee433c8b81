// Package actorstest provides an actor system over in-memory storage for
// tests of the areas that write through actors.
package actorstest

import (
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// New returns an actor system over a fresh in-memory database, shut down
// when the test ends.
func New(t testing.TB) *actors.System {
	t.Helper()
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	sys := actors.New(db, actors.Options{})
	t.Cleanup(func() { sys.Shutdown(); db.Close() })
	return sys
}
