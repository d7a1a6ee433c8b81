package accounts

import (
	"context"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// TestRegisterRole: a role is found by its flag; a malformed role or a
// flag registered twice panics.
func TestRegisterRole(t *testing.T) {
	has := func(*storage.DB, storage.AccountID) (bool, error) { return false, nil }
	set := func(context.Context, *actors.System, storage.AccountID, bool) error { return nil }
	RegisterRole(Role{Flag: "test-role", Noun: "tester", Doc: "tests", Has: has, Set: set})
	if r, ok := RoleByFlag("test-role"); !ok || r.Noun != "tester" {
		t.Fatalf("RoleByFlag: %+v %v", r, ok)
	}
	if _, ok := RoleByFlag("nope"); ok {
		t.Fatal("an unknown flag found")
	}
	for name, r := range map[string]Role{
		"twice":    {Flag: "test-role", Noun: "tester", Has: has, Set: set},
		"no- flag": {Flag: "no-thing", Noun: "x", Has: has, Set: set},
		"bad flag": {Flag: "Bad Flag", Noun: "x", Has: has, Set: set},
		"no noun":  {Flag: "other", Has: has, Set: set},
		"no Has":   {Flag: "other", Noun: "x", Set: set},
		"no Set":   {Flag: "other", Noun: "x", Has: has},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			RegisterRole(r)
		}()
	}
}
