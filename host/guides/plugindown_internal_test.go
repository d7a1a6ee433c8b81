package guides

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// downCaller is the guides plugin while it is down (crashed, restarting):
// the supervisor fails every decision at once, the plugin never asked.
type downCaller struct{ calls int }

func (d *downCaller) Decide(context.Context, string, []byte, []byte) (sdk.RawResult, error) {
	d.calls++
	return sdk.RawResult{}, fmt.Errorf("%w (%w): guides plugin is restarting", sdk.ErrUnavailable, sdk.ErrNotRunning) // as the supervisor fails it
}

// TestAVoteWhileThePluginIsDownKeepsNoSpend: 2934225 kept the spend of
// every vote failed as guides_unavailable, "the plugin was asked". A
// plugin that is down is never asked (the supervisor fails fast with
// sdk.ErrNotRunning), yet the spend was kept: a player who retried a vote
// three times while the plugin restarted used up the address's budget on
// that guide (guide_votes_per_guide_address: 3 in 8 hours), and the
// household's real vote, once the plugin was back, was refused for hours.
// (From the third review; failed before.)
func TestAVoteWhileThePluginIsDownKeepsNoSpend(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	sys := actors.New(db, actors.Options{})
	t.Cleanup(sys.Shutdown)
	ctx := context.Background()
	if _, err := Seed(ctx, sys, testGuides()); err != nil {
		t.Fatal(err)
	}
	acct, err := sys.CreateAccount(ctx, &actors.NewAccount{Login: "voter"})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := LoadTally(db)
	if err != nil {
		t.Fatal(err)
	}
	down := &downCaller{}
	s := &Service{d: Deps{Sys: sys, Decider: down}, tally: tl, cat: &catalogCache{sys: sys}, ranks: newRankings(RankReuse{}, nil)}
	s.area = New(fakeAuth(map[string]storage.AccountID{cookieA: acct.ID}), s, nil)
	clock := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	s.area.votes = VoteBudget{PerAddress: limit.Rate{Burst: 30, Every: 2 * time.Minute},
		PerGuideAddress: limit.Rate{Burst: 3, Every: 8 * time.Hour}}.limiters(func() time.Time { return clock })
	call := func() error {
		_, err := s.area.vote(ctx, voteCall{VoteRequest: VoteRequest{Caller: Caller{Cookie: cookieA, Account: acct.ID}, Gid: 1, Vote: VoteUp}, addr: "192.0.2.9"})
		return err
	}
	for i := range 3 {
		if err := call(); ReasonOf(err) != ReasonUnavailable {
			t.Fatalf("vote %d while the plugin is down: %v", i, err)
		}
	}
	// The plugin is back: the vote, never decided, should be accepted.
	if err := s.area.votes.spend("192.0.2.9", 1); err != nil {
		t.Errorf("after 3 votes the plugin never decided (%d calls, all failed fast), the address's budget on guide 1 is spent: %v", down.calls, err)
	}
}
