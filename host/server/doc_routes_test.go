package server

import (
	"slices"
	"testing"

	"github.com/honmaster/masterserver/wire"
)

// ReplyKeys lists the keys in wire order, an embedded struct's own keys in
// its place (as the encoder writes them), without wire.Extras or untagged
// fields.
func TestReplyKeys(t *testing.T) {
	type head struct {
		Errors  string `php:"errors"`
		Success int    `php:"success"`
	}
	type reply struct {
		head
		List     string `php:"guide_list"`
		Skipped  string `php:"-"`
		Untagged string
		HostTime string `php:"hosttime,omitempty"`
		wire.Extras
	}
	for _, tt := range []struct {
		name string
		v    any
		want []string
	}{
		{"embedded", reply{}, []string{"errors", "success", "guide_list", "hosttime"}},
		{"pointer", &reply{}, []string{"errors", "success", "guide_list", "hosttime"}},
		{"not a struct", 5, nil},
		{"none", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Doc{ReplyValue: tt.v}).ReplyKeys(); !slices.Equal(got, tt.want) {
				t.Fatalf("ReplyKeys = %v, want %v", got, tt.want)
			}
		})
	}
}
