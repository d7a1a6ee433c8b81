package guides

import (
	"strings"
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
		v := got.Areas[loadVotesCheck]
		if v == nil || v.Checked != 1 || v.Left != 0 || (v.OK == 1) != c.ok || got.OK() != c.ok {
			t.Errorf("%d up %d down: %s; want checked, OK %t", c.up, c.down, got.Summary(), c.ok)
		}
	}
}

// A guide with more accounts whose last vote has an unknown outcome than
// the check follows is left out, and the report says so.
func TestLoadCheckVotesLeavesOut(t *testing.T) {
	var accts []*loadMarks
	for range loadMaxUnknownVotes + 1 {
		m := &loadMarks{votes: map[uint32]int{}, unknown: map[uint32]map[int]bool{}}
		m.voteUnknown(7, 1)
		accts = append(accts, m)
	}
	var got loadtest.Consistency
	loadCheckVotes(&got, map[uint32]loadCounts{7: {}}, map[uint32]loadCounts{7: {Up: 3}}, map[uint32]bool{7: true}, accts)
	v := got.Areas[loadVotesCheck]
	if v == nil || v.Checked != 0 || v.Left != 1 || !got.OK() || !strings.Contains(got.Summary(), "guides' vote counts 0/0 (1 left out") {
		t.Errorf("%s; want the guide left out", got.Summary())
	}
}

// Once the accounts are removed, every guide voted on must be back at its
// counts before the run: one that is not fails the check, and is named.
func TestLoadCheckRestored(t *testing.T) {
	before := map[uint32]loadCounts{7: {Up: 40, Down: 2}, 9: {Up: 1}}
	after := map[uint32]loadCounts{7: {Up: 40, Down: 2}, 9: {Up: 2}}
	var got loadtest.Consistency
	loadCheckRestored(&got, before, after, map[uint32]bool{7: true, 9: true})
	r := got.Areas[loadRestoredCheck]
	if r == nil || r.Checked != 2 || r.OK != 1 || got.OK() || len(got.Mismatches) != 1 || !strings.Contains(got.Mismatches[0], "guide 9 ") ||
		!strings.Contains(got.Summary(), "removed 1/2") {
		t.Errorf("%s %q; want guide 9 not restored", got.Summary(), got.Mismatches)
	}
	got = loadtest.Consistency{}
	loadCheckRestored(&got, before, before, map[uint32]bool{7: true, 9: true})
	if r := got.Areas[loadRestoredCheck]; r == nil || r.Checked != 2 || r.OK != 2 || !got.OK() {
		t.Errorf("%s; want both restored", got.Summary())
	}
}
