package coinfliparea

import (
	"context"
	"errors"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinflipapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// TestMisbehavingPluginWritesNothing: plugins that misbehave on purpose
// (sdk.Mock) are refused by the host, and the flip writes nothing: a
// state in another shape than the contract's, a streak its state does
// not keep, a decision the contract's check refuses, a plugin down.
func TestMisbehavingPluginWritesNothing(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	sys := actors.New(db, actors.Options{})
	t.Cleanup(sys.Shutdown)
	acct, err := sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "mo", Account: storage.Account{Nickname: "mo", Tickets: 100}})
	if err != nil {
		t.Fatal(err)
	}
	won := coinflipapi.FlipDecision{Won: true, Streak: 1}
	for _, tc := range []struct {
		name  string
		res   sdk.Result[coinflipapi.FlipDecision]
		err   error
		cause area.Cause
	}{
		{"state in another shape", sdk.Result[coinflipapi.FlipDecision]{Decision: won, State: []byte{0xff, 0x01}}, nil, area.CausePluginDown},
		{"a streak the state does not keep", sdk.Result[coinflipapi.FlipDecision]{Decision: won,
			State: encode(t, coinflipapi.State{Streak: 2, BestStreak: 2, Flips: 2, Wins: 2})}, nil, area.CausePluginDown},
		{"a lost flip with a streak", sdk.Result[coinflipapi.FlipDecision]{Decision: coinflipapi.FlipDecision{Won: false, Streak: 3}}, nil, area.CausePluginDown},
		{"plugin down", sdk.Result[coinflipapi.FlipDecision]{}, sdk.ErrUnavailable, area.CausePluginDown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mock := sdk.Mock(coinflipapi.Flip, func(context.Context, sdk.Call[coinflipapi.FlipFacts]) (sdk.Result[coinflipapi.FlipDecision], error) {
				return tc.res, tc.err
			})
			_, err := flipWith(sys, acct.ID, mock, 10, 100)
			if err == nil || area.CauseOf(err) != tc.cause {
				t.Fatalf("flip = %v (cause %v), want cause %v", err, area.CauseOf(err), tc.cause)
			}
			a, err := db.Account(acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			st, err := db.PluginState(acct.ID, name)
			if a.Tickets != 100 || len(st) != 0 || err != nil {
				t.Errorf("after a refused flip: %d tickets, state %x (%v); want 100 and none", a.Tickets, st, err)
			}
		})
	}
	// The same change with a plugin that behaves: paid and stored.
	good := sdk.Mock(coinflipapi.Flip, func(context.Context, sdk.Call[coinflipapi.FlipFacts]) (sdk.Result[coinflipapi.FlipDecision], error) {
		return sdk.Result[coinflipapi.FlipDecision]{Decision: won, State: encode(t, coinflipapi.State{}.Next(true))}, nil
	})
	if out, err := flipWith(sys, acct.ID, good, 10, 100); err != nil || out.UserTickets != 110 {
		t.Fatalf("good flip = %+v, %v", out, err)
	}
	if _, err := flipWith(sys, acct.ID, good, 111, 1000); !errors.Is(err, errNotEnoughTickets) {
		t.Errorf("a stake above the balance = %v", err)
	}
}

// flipWith runs the route's change (what the host runs in the account's
// actor once it signed the player in) with plugin p and max_stake max.
func flipWith(sys *actors.System, id storage.AccountID, p sdk.Caller, stake, max int32) (flipReply, error) {
	h := &handler{Env: area.Env{Sys: sys, Plugin: p}, settings: Settings{MaxStake: max}}
	return actors.Apply(context.Background(), sys, id, func(tx *actors.Tx) (flipReply, error) {
		return h.flip(context.Background(), tx, flipRequest{Stake: stake})
	})
}

func encode(t *testing.T, s coinflipapi.State) []byte {
	t.Helper()
	b, err := coinflipapi.Schema.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
