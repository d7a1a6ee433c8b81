package guides

import (
	"testing"

	"github.com/honmaster/masterserver/host/loadtest"
)

// The load tester's vote check on a guide where an account's last vote has
// an unknown outcome (a node killed under it): counts that either choice
// explains pass, counts none explains fail; it was left out before.
func TestLoadCheckVotesUnknownOutcome(t *testing.T) {
	before := map[uint32]loadCounts{7: {Up: 40, Down: 2}}
	known := &loadMarks{votes: map[uint32]int{7: 1}, unknown: map[uint32]map[int]bool{}}
	m := &loadMarks{votes: map[uint32]int{7: 0}, unknown: map[uint32]map[int]bool{}}
	m.voteUnknown(7, 1) // down before; this up vote may have counted
	for _, c := range []struct {
		up, down int64
		ok       bool
	}{{42, 2, true}, {41, 3, true}, {41, 2, false}, {42, 3, false}} {
		var got loadtest.Consistency
		loadCheckVotes(&got, before, map[uint32]loadCounts{7: {Up: c.up, Down: c.down}}, map[uint32]bool{7: true}, []*loadMarks{known, m})
		if got.VotesChecked != 1 || got.VotesUncertain != 0 || (got.VotesOK == 1) != c.ok {
			t.Errorf("%d up %d down: %s; want checked, OK %t", c.up, c.down, got.Summary(), c.ok)
		}
	}
}
