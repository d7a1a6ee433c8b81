package plinko_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// TestRefusedPurchaseShowsBalance: a purchase refused after the cookie
// named the account answers the account's real tickets, whatever refused
// it (issue 22, item 14: a missing or malformed id answered 0).
func TestRefusedPurchaseShowsBalance(t *testing.T) {
	ms := newMockServer(t, forced(plinkoapi.TierSilver), catalogFile)
	_, cookie := player(t, ms.app, ms.c, "holder", 100, 20)
	for _, tc := range []struct {
		name   string
		kv     []string
		status string
	}{
		{"no id", nil, "6"},
		{"empty id", []string{"id", ""}, "6"},
		{"id not a number", []string{"id", "abc"}, "6"},
		{"unknown id", []string{"id", "999"}, "9"},
		{"too dear", []string{"id", "501"}, "3"},
	} {
		a := post(t, ms.c, plinko.PathPurchase, cookie, tc.kv...)
		checkShape(t, a, purchaseShape)
		if str(a, "status_code") != tc.status || num(a, "tickets_remaining") != 100 {
			t.Errorf("%s: status_code %s, tickets_remaining %d; want %s and 100", tc.name, str(a, "status_code"), num(a, "tickets_remaining"), tc.status)
		}
	}
}

// TestDropOutcomeUnknownShowsBalance: a drop whose change outlasts the
// wait for it (its decision never comes in time) is answered "outcome
// unknown" with the account's balances as published, not zeros (issue 22,
// item 14). The decider is held until the reply came, then refuses.
func TestDropOutcomeUnknownShowsBalance(t *testing.T) {
	release := make(chan struct{})
	held := sdk.Mock(plinkoapi.Drop, func(context.Context, sdk.Call[plinkoapi.DropFacts]) (sdk.Result[plinkoapi.DropDecision], error) {
		<-release
		return sdk.Result[plinkoapi.DropDecision]{}, fmt.Errorf("held: %w", sdk.ErrUnavailable)
	})
	ms := newMockServer(t, held, catalogFile)
	id, cookie := player(t, ms.app, ms.c, "waiter", 100, 20)
	a := post(t, ms.c, plinko.PathDrop, cookie, "currency", "tickets")
	close(release)
	checkShape(t, a, dropShape)
	if str(a, "status_code") != plinko.StatusOutcomeUnknown.String() || str(a, "user_tickets") != "100" || str(a, "user_gold") != "20" {
		t.Errorf("drop past the wait: status_code %s, balances %s/%s; want %s and 100/20",
			str(a, "status_code"), str(a, "user_tickets"), str(a, "user_gold"), plinko.StatusOutcomeUnknown)
	}
	// The account's changes run in order: this read follows the drop's.
	if acct, err := ms.app.Sys.Account(context.Background(), id); err != nil || acct.Tickets != 100 || acct.Gold != 20 {
		t.Errorf("after the refused drop: %+v %v", acct, err)
	}
}
