package actors

import (
	"context"
	"errors"
	"testing"

	"github.com/honmaster/masterserver/storage"
)

// gainIDs appends ids to the account's upgrades by the documented direct
// append (a.Upgrades = append(a.Upgrades, u)).
type gainIDs []string

func (g gainIDs) Apply(tx *Tx) (any, error) {
	a := tx.Account()
	for _, id := range g {
		a.Upgrades = append(a.Upgrades, storage.Upgrade{ID: id})
	}
	return nil, nil
}

// TestAnUpgradeGainedTwiceIsRefused: a change that gained one upgrade
// twice, or one the account owns, was adopted as it was: storage keeps an
// account's upgrades by id, so the actor held a copy more than the record
// and served it until it reloaded. It is refused now (ErrBadEdit), nothing
// written. (From a review of the actors: hardening, no change of today
// does it.)
func TestAnUpgradeGainedTwiceIsRefused(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "dup", "")
	if _, err := s.Apply(ctx, a.ID, gainIDs{"aa.X"}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []gainIDs{{"aa.Y", "aa.Y"}, {"aa.X"}} {
		if _, err := s.Apply(ctx, a.ID, g); !errors.Is(err, ErrBadEdit) {
			t.Errorf("gaining %v: %v, want ErrBadEdit", g, err)
		}
	}
	live, err := s.Snapshot(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.DB().LoadAccount(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(live.Upgrades) != 1 || len(stored.Upgrades) != 1 {
		t.Errorf("actor holds %d upgrades, storage %d; want 1 and 1", len(live.Upgrades), len(stored.Upgrades))
	}
}
