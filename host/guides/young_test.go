package guides_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/guides"
	rules "github.com/honmaster/masterserver/plugins/guides"
	"github.com/honmaster/masterserver/storage"
)

// newAccountAge is limits.new_account_age's default.
const newAccountAge = 168 * time.Hour

// youngFixture is a server whose accounts were created on a fake clock:
// old ones a week and a day before young ones.
type youngFixture struct {
	app          *cli.App
	clock        *fakeClock
	old, young   []storage.AccountID
	svc          *guides.Service
	premium, top guides.GuideID
}

// newYoungFixture stores the guides of Hero_A — a premium guide
// rated 0.95 (19:1) and two others, 0.95 (19:1) and 0.70 (14:6) — creates
// nOld accounts, moves the clock on by eight days, creates nYoung, and
// serves the area with limits.new_account_age at its default and a
// ranking redone after every vote.
func newYoungFixture(t *testing.T, nOld, nYoung int) *youngFixture {
	t.Helper()
	app, _, _ := clitest.OpenApp(t)
	ctx := context.Background()
	gs := []guides.Guide{rankGuide(1, "Hero_A", 19, 1, true), rankGuide(2, "Hero_A", 19, 1, false), rankGuide(3, "Hero_A", 14, 6, false)}
	if _, err := guides.Seed(ctx, app.Sys, gs); err != nil {
		t.Fatal(err)
	}
	f := &youngFixture{app: app, clock: &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, premium: 1, top: 2}
	app.Accounts.Now = f.clock.now
	create := func(prefix string, n int) []storage.AccountID {
		var ids []storage.AccountID
		for i := range n {
			a, err := app.Accounts.Create(ctx, accounts.Create{Login: fmt.Sprintf("%s%d", prefix, i), Password: "pw"})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, a.ID)
		}
		return ids
	}
	f.old = create("veteran", nOld)
	f.clock.add(newAccountAge + 24*time.Hour)
	f.young = create("puppet", nYoung)
	f.svc = f.start(t)
	return f
}

// start builds the area's service on the fixture's database, as a server
// start does: the counts are rebuilt from the stored vote records.
func (f *youngFixture) start(t *testing.T) *guides.Service {
	t.Helper()
	svc, err := guides.NewService(guides.Deps{Sys: f.app.Sys, Login: f.app.Login, Decider: rules.Plugin(),
		Now: f.clock.now, NewAccountAge: newAccountAge})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func (f *youngFixture) vote(t *testing.T, acct storage.AccountID, gid guides.GuideID, v guides.Vote) {
	t.Helper()
	if err := f.svc.Vote(context.Background(), acct, gid, v, nil); err != nil {
		t.Fatalf("account %d votes %v on %d: %v", acct, v, gid, err)
	}
}

// list returns the order of Hero_A's list and the ratings it shows.
func (f *youngFixture) list(t *testing.T, svc *guides.Service) ([]guides.GuideID, map[guides.GuideID]string) {
	t.Helper()
	es, err := svc.List(context.Background(), f.old[0], "Hero_A")
	if err != nil {
		t.Fatal(err)
	}
	order, shown := make([]guides.GuideID, len(es)), map[guides.GuideID]string{}
	for i, e := range es {
		order[i] = e.Gid
		shown[e.Gid] = guides.FormatRating(e.Counts)
	}
	return order, shown
}

func (f *youngFixture) counts(t *testing.T, svc *guides.Service, gid guides.GuideID) guides.Counts {
	t.Helper()
	v, err := svc.Guide(context.Background(), f.old[0], gid)
	if err != nil {
		t.Fatal(err)
	}
	return v.Counts
}

// The attack: twenty accounts vote a guide down. Twenty fresh
// accounts (sock puppets) no longer take the 0.95 guide below the 0.70
// one, where twenty established accounts still do; either way get_guide
// and the list show the exact counts (19 up, 21 down: 0.48), and a
// restart, which rebuilds the counts from the vote records, ranks the
// same.
func TestYoungVotesWeighLessInRanking(t *testing.T) {
	for _, tc := range []struct {
		name  string
		young bool
		want  []guides.GuideID
	}{
		{"established accounts", false, []guides.GuideID{1, 3, 2}},
		{"new accounts", true, []guides.GuideID{1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newYoungFixture(t, 21, 20)
			wantGids(t, "before the votes", must(f.list(t, f.svc)), 1, 2, 3)
			voters := f.old[1:]
			if tc.young {
				voters = f.young
			}
			for _, a := range voters {
				f.vote(t, a, f.top, guides.VoteDown)
				f.vote(t, a, f.premium, guides.VoteDown)
			}
			exact := guides.Counts{Up: 19, Down: 21}
			for _, svc := range []*guides.Service{f.svc, f.start(t)} { // as served, then after a restart
				order, shown := f.list(t, svc)
				wantGids(t, "after twenty votes down", order, tc.want...)
				for _, gid := range []guides.GuideID{f.top, f.premium} {
					if got := f.counts(t, svc, gid); got != exact {
						t.Errorf("get_guide %d: counts %+v, want the exact %+v", gid, got, exact)
					}
					if got, want := shown[gid], guides.FormatRating(exact); got != want {
						t.Errorf("list: guide %d rated %s, want the exact %s", gid, got, want)
					}
				}
			}
		})
	}
}

// must drops the second result of a two-result call.
func must[A, B any](a A, _ B) A { return a }

// A vote keeps the class its account had when it cast it: an account that
// ages does not re-weigh its vote, a changed vote is cast anew in the
// account's class then (moving the counter it was in to the right one),
// a repeated vote changes nothing; a restart rebuilds the same classes.
func TestYoungVoteClassFollowsItsRecord(t *testing.T) {
	f := newYoungFixture(t, 1, 1)
	g := &guides.Guide{Gid: f.top, Up: 19, Down: 1}
	check := func(svc *guides.Service, what string, full, young guides.Counts) {
		t.Helper()
		gotFull, gotYoung := svc.Tally().RankCounts(g)
		if gotFull != full || gotYoung != young {
			t.Fatalf("%s: counts %+v of which young %+v, want %+v of which %+v", what, gotFull, gotYoung, full, young)
		}
	}
	puppet := f.young[0]
	f.vote(t, puppet, f.top, guides.VoteDown)
	check(f.svc, "a new account's vote", guides.Counts{Up: 19, Down: 2}, guides.Counts{Down: 1})
	f.vote(t, puppet, f.top, guides.VoteUp)
	check(f.svc, "changed while new", guides.Counts{Up: 20, Down: 1}, guides.Counts{Up: 1})
	f.clock.add(newAccountAge)
	check(f.svc, "the account aged", guides.Counts{Up: 20, Down: 1}, guides.Counts{Up: 1})
	f.vote(t, puppet, f.top, guides.VoteUp)
	check(f.svc, "repeated once established", guides.Counts{Up: 20, Down: 1}, guides.Counts{Up: 1})
	check(f.start(t), "repeated, after a restart", guides.Counts{Up: 20, Down: 1}, guides.Counts{Up: 1})
	f.vote(t, puppet, f.top, guides.VoteDown)
	check(f.svc, "changed once established", guides.Counts{Up: 19, Down: 2}, guides.Counts{})
	check(f.start(t), "after a restart", guides.Counts{Up: 19, Down: 2}, guides.Counts{})
}

// limits.new_account_age = 0 makes no vote young.
func TestNoAccountAgeNoYoungVotes(t *testing.T) {
	f := newYoungFixture(t, 0, 1)
	svc, err := guides.NewService(guides.Deps{Sys: f.app.Sys, Login: f.app.Login, Decider: rules.Plugin(), Now: f.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Vote(context.Background(), f.young[0], f.top, guides.VoteDown, nil); err != nil {
		t.Fatal(err)
	}
	if _, young := svc.Tally().RankCounts(&guides.Guide{Gid: f.top}); young != (guides.Counts{}) {
		t.Fatalf("young counts %+v without an account age", young)
	}
}

// A deleted account's young vote leaves both its count and the young
// part, live as after a restart.
func TestDeletedYoungVoteLeavesItsClass(t *testing.T) {
	f := newYoungFixture(t, 0, 2)
	f.vote(t, f.young[0], f.top, guides.VoteDown)
	f.vote(t, f.young[1], f.top, guides.VoteUp)
	if _, err := f.app.Sys.DeleteAccount(context.Background(), f.young[0]); err != nil {
		t.Fatal(err)
	}
	g := &guides.Guide{Gid: f.top}
	for i, svc := range []*guides.Service{f.svc, f.start(t)} {
		if full, young := svc.Tally().RankCounts(g); full != (guides.Counts{Up: 1}) || young != (guides.Counts{Up: 1}) {
			t.Errorf("service %d: counts %+v of which young %+v, want one young up", i, full, young)
		}
	}
}
