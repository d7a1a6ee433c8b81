package storage

import (
	"slices"
	"testing"
)

// The registration index finds the accounts of one address, every address
// with its accounts, and one account's address; a deleted account leaves
// it.
func TestRegistrationIndex(t *testing.T) {
	db := openMem(t)
	b := db.NewBatch()
	for id, addr := range map[AccountID]string{1: "192.0.2.1", 2: "192.0.2.10", 3: "192.0.2.1", 4: "", 5: "2001:db8::1"} {
		b.PutAccount(&Account{ID: id, SuperID: id, Login: "p" + string(rune('0'+id))}, nil)
		b.PutRegistrationAddress(id, addr)
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if ids, err := db.RegisteredFrom("192.0.2.1"); err != nil || !slices.Equal(ids, []AccountID{1, 3}) {
		t.Errorf("RegisteredFrom(192.0.2.1) = %v, %v; want [1 3] (not 192.0.2.10's)", ids, err)
	}
	type group struct {
		addr string
		ids  []AccountID
	}
	var got []group
	if err := db.RegistrationAddresses(func(addr string, ids []AccountID) error {
		got = append(got, group{addr, ids})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []group{{"192.0.2.1", []AccountID{1, 3}}, {"192.0.2.10", []AccountID{2}}, {"2001:db8::1", []AccountID{5}}}
	if !slices.EqualFunc(got, want, func(a, b group) bool { return a.addr == b.addr && slices.Equal(a.ids, b.ids) }) {
		t.Errorf("RegistrationAddresses = %v, want %v", got, want)
	}
	for id, want := range map[AccountID]string{3: "192.0.2.1", 4: "", 5: "2001:db8::1"} {
		if addr, err := db.RegistrationAddress(id); err != nil || addr != want {
			t.Errorf("RegistrationAddress(%d) = %q, %v; want %q", id, addr, err, want)
		}
	}
	recs, err := db.AccountRecords(3)
	if err != nil {
		t.Fatal(err)
	}
	b = db.NewBatch()
	b.DeleteAccountRecords(recs)
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if ids, _ := db.RegisteredFrom("192.0.2.1"); !slices.Equal(ids, []AccountID{1}) {
		t.Errorf("after deleting account 3: %v", ids)
	}
}
