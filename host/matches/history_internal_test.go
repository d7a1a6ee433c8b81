package matches

import (
	"strconv"
	"testing"
)

// TestKeptFieldsBounded: what a match keeps of a submission is bounded in
// count and bytes, whatever a server sends.
func TestKeptFieldsBounded(t *testing.T) {
	in := map[string]string{}
	for i := range 1000 {
		in["field"+strconv.Itoa(i)] = string(make([]byte, 200))
	}
	in["x"+string(make([]byte, 100))] = "long name"
	in["small"] = "1"
	got := keptFields(in)
	size := 0
	for k, v := range got {
		size += len(k) + len(v)
		if len(k) > maxKeptNameLen || len(v) > maxKeptValueLen {
			t.Errorf("kept %q (%d bytes)", k[:10], len(v))
		}
	}
	if len(got) > maxKeptFields || size > maxKeptBytes || got["small"] != "1" {
		t.Errorf("kept %d fields, %d bytes, small %q", len(got), size, got["small"])
	}
	if inv := keptInventory(map[string]string{"1": "Item_A", "6": "Item_F", "7": "Item_X"}); len(inv) != 6 || inv[0] != "Item_A" || inv[5] != "Item_F" {
		t.Errorf("inventory %q", inv)
	}
}
