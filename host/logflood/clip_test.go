package logflood

import (
	"strings"
	"testing"
)

func TestClip(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"alice", "alice"},
		{strings.Repeat("a", DefaultClipBytes), strings.Repeat("a", DefaultClipBytes)},
		{strings.Repeat("a", 1<<20), strings.Repeat("a", DefaultClipBytes) + "...(1048576 bytes)"},
		// Cut at a character boundary: 63 bytes of "a" then "é" (2 bytes)
		// keeps the 63 only.
		{strings.Repeat("a", 63) + "éé", strings.Repeat("a", 63) + "...(67 bytes)"},
	} {
		if got := Clip(tt.in); got != tt.want {
			t.Errorf("Clip(%.20q... %d bytes) = %q, want %q", tt.in, len(tt.in), got, tt.want)
		}
	}
}
