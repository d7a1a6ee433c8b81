package guides_test

import (
	"testing"

	"github.com/honmaster/masterserver/host/guides"
)

// votesAt is a VoteScanner whose records are those of its scan's number
// (the last ones for any later scan), and which runs during(n) after the
// n-th scan read them: a vote committed and applied while a scan runs.
type votesAt struct {
	scans  *int
	at     [][]guides.VoteRecord
	during func(n int)
}

func (v votesAt) ScanVotes(fn func(guides.VoteRecord) error) error {
	n := *v.scans
	*v.scans++
	for _, r := range v.at[min(n, len(v.at)-1)] {
		if err := fn(r); err != nil {
			return err
		}
	}
	v.during(n)
	return nil
}

// TestResyncUntilSettledKeepsAVoteCastDuringTheScan: a recount whose
// scan misses a vote committed and applied while it ran undoes that
// vote; one pass left the counts so until restart (on a single node,
// whose recount after a vote of unknown outcome runs once), and the
// voter's later change then took a count from another vote. Passes run
// until one changes nothing.
func TestResyncUntilSettledKeepsAVoteCastDuringTheScan(t *testing.T) {
	const gid = guides.GuideID(7)
	first := guides.VoteRecord{Account: 1, Gid: gid, Vote: guides.VoteUp}
	second := guides.VoteRecord{Account: 2, Gid: gid, Vote: guides.VoteUp}
	scans := 0
	start := votesAt{scans: new(int), at: [][]guides.VoteRecord{{first}}, during: func(int) {}}
	tally, err := guides.NewTally(start)
	if err != nil {
		t.Fatal(err)
	}
	recount := votesAt{scans: &scans, at: [][]guides.VoteRecord{{first}, {first, second}}, during: func(n int) {
		if n == 0 { // account 2's vote commits after the first scan's snapshot and is applied
			tally.Apply("Hero_A", gid, guides.Ballot{}, guides.Ballot{Vote: guides.VoteUp})
		}
	}}
	if err := tally.ResyncUntilSettled(recount, 8); err != nil {
		t.Fatal(err)
	}
	if got := tally.Derived(gid); got != (guides.Counts{Up: 2}) {
		t.Errorf("after the recount: counts %+v, the records hold {Up:2 Down:0}", got)
	}
	if scans < 2 {
		t.Errorf("%d scans, want a second pass", scans)
	}
}
