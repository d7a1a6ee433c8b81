package guides_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/guides"
	rules "github.com/honmaster/masterserver/plugins/guides"
	"github.com/honmaster/masterserver/storage"
)

// TestAVoteWhoseAskerGaveUpIsCounted: a vote whose commit outlasts its
// asker (the player is told the outcome is unknown) but then lands is in
// the counts, as the records say. The counts were moved by the asker
// after its reply, so such a vote was stored and never counted, and when
// the player changed it later the count of the vote it replaced, never
// added, wrapped to 4294967295: the guide showed rating 1.00 and ranked
// first with one down-vote.
func TestAVoteWhoseAskerGaveUpIsCounted(t *testing.T) {
	app, _, _ := clitest.OpenApp(t)
	ctx := context.Background()
	if _, err := guides.Seed(ctx, app.Sys, []guides.Guide{rankGuide(1, "Hero_A", 0, 0, false)}); err != nil {
		t.Fatal(err)
	}
	a, err := app.Accounts.Create(ctx, accounts.Create{Login: "voter", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := guides.NewService(guides.Deps{Sys: app.Sys, Login: app.Login, Decider: rules.Plugin()})
	if err != nil {
		t.Fatal(err)
	}
	// The next commit (the vote's) waits in the disk check until the
	// asker has given up.
	var armed atomic.Bool
	entered, release := make(chan struct{}), make(chan struct{})
	armed.Store(true)
	app.Sys.DB().SetDiskGuard(storage.NewDiskGuard("", 1, func() (uint64, error) {
		if armed.Swap(false) {
			close(entered)
			<-release
		}
		return 1 << 40, nil
	}, nil))
	// The asker waits until its deadline and the actors' commit grace,
	// then gives up. Its context has a deadline but is never done, so
	// that the change, once it reached the commit, never refuses it; an
	// attempt whose deadline passed before it reached the commit (the
	// actor's start, the plugin's decision) is refused with nothing
	// written, and the next has twice the time.
	voted := make(chan error, 1)
	for wait := 10 * time.Millisecond; ; wait *= 2 {
		if wait > time.Minute {
			t.Fatal("no vote reached its commit before its deadline")
		}
		go func() { voted <- svc.Vote(deadlineOnly{ctx, time.Now().Add(wait)}, a.ID, 1, guides.VoteUp, nil) }()
		select {
		case err := <-voted:
			if err == nil {
				t.Fatal("vote answered without its commit")
			}
			continue
		case <-entered:
		}
		break
	}
	if err := <-voted; !errors.Is(err, actors.ErrTimeout) {
		t.Fatalf("vote whose asker gave up: %v, want actors.ErrTimeout (outcome unknown)", err)
	}
	close(release)
	// A later change of the account runs after the vote's commit in its
	// actor.
	if _, err := app.Sys.Apply(ctx, a.ID, actors.ChangeFunc[any](func(*actors.Tx) (any, error) { return nil, nil })); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := guides.LoadTally(app.Sys.DB())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := svc.Tally().Derived(1), rebuilt.Derived(1); got != want || want != (guides.Counts{Up: 1}) {
		t.Errorf("after the vote landed: counts %+v, records %+v, want one up-vote in both", got, want)
	}
	if err := svc.Vote(ctx, a.ID, 1, guides.VoteDown, nil); err != nil {
		t.Fatal(err)
	}
	view, err := svc.Guide(ctx, a.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if view.Counts != (guides.Counts{Up: 0, Down: 1}) {
		t.Errorf("after changing the vote to down: counts %+v (rating %s), want {Up:0 Down:1}", view.Counts, guides.FormatRating(view.Counts))
	}
}

// deadlineOnly is a context with a deadline that is never done.
type deadlineOnly struct {
	context.Context
	at time.Time
}

func (d deadlineOnly) Deadline() (time.Time, bool) { return d.at, true }
