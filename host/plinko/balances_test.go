package plinko_test

import (
	"testing"

	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// TestRefusedPurchaseShowsBalance: a purchase refused after the cookie
// named the account answers the account's real tickets, whatever refused
// it (issue 22, item 14: a missing or malformed id answered 0).
func TestRefusedPurchaseShowsBalance(t *testing.T) {
	ms := newMockServer(t, forced(sdk.TierSilver), catalogFile)
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
