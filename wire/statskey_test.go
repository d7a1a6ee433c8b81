package wire

import (
	"strconv"
	"strings"
	"testing"
)

// The expected keys were computed apart from this code, with
// printf '%s' "<id><salt>" | sha1sum.
func TestResubmissionKey(t *testing.T) {
	for _, tc := range []struct {
		match int64
		key   string
	}{
		{0, "deb5605d6ac9f100a2a2749570621872fee9cb9e"},
		{1, "3f3106d2b1acc57e8c7e670b4a2c278c5c49fb0e"},
		{4021, "b5554ccf4b51323f35248ade2c523a378405f26c"},
		{2147483647, "83468e9de36bff0a36d903999e2896ffa582fd9f"},
	} {
		if got := ResubmissionKey(tc.match); got != tc.key {
			t.Errorf("ResubmissionKey(%d) = %s, want %s", tc.match, got, tc.key)
		}
		if !ResubmissionKeyMatches(tc.match, tc.key) || !ResubmissionKeyMatches(tc.match, strings.ToUpper(tc.key)) {
			t.Errorf("match %d: its own key does not match", tc.match)
		}
		for _, wrong := range []string{
			ResubmissionKey(tc.match + 1),
			tc.key[:39],
			tc.key + "0",
			"",
			strconv.FormatInt(tc.match, 10) + "_honfigurator", // what one manager sends
			strings.Repeat("g", 40),
		} {
			if ResubmissionKeyMatches(tc.match, wrong) {
				t.Errorf("match %d: %q matches", tc.match, wrong)
			}
		}
	}
}
