package cli_test

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// TestAVoteQueuedBehindAFlipSpendsTheBudget: whether a vote changes the
// account's ballot, and so spends the address's vote budget, is decided
// against the ballot the vote replaces. The check used to run before the
// account's actor, against the stored ballot: a vote queued behind
// another that changes the ballot passed as a repeat and spent nothing,
// so an account could flip its vote back and forth past the per-guide
// budget. Here the account's stored vote is up, its actor is held busy,
// and a down vote then an up vote are queued to it: the down vote spends
// the budget's last vote, so the up vote, a change once the down vote is
// stored, is refused.
func TestAVoteQueuedBehindAFlipSpendsTheBudget(t *testing.T) {
	ts := clitest.Start(t, func(c *config.Config) {
		c.Limits.GuideVotesAddress = config.Rate{Burst: 10, Every: config.Duration{Duration: time.Hour}}
		c.Limits.GuideVotesGuideAddress = config.Rate{Burst: 2, Every: config.Duration{Duration: time.Hour}}
	})
	ts.Host(t, "account", "create", "--login", "flipper", "--password", "pw")
	ts.Host(t, "guides", "import", writeOwn(t, guide(7, "Target", "nobody", false, 10, 0)))
	g := loginGuides(t, ts, "flipper")
	okReply(t, g.must(t, "guide_vote", "gid", "7", "v", "1"), 6) // spends 1 of 2
	id, err := strconv.ParseUint(g.account, 10, 64)
	if err != nil {
		t.Fatal(err)
	}

	// Hold the account's actor until both votes are queued to it.
	entered, release := make(chan struct{}), make(chan struct{})
	var released sync.Once
	free := func() { released.Do(func() { close(release) }) }
	t.Cleanup(free) // a failure below does not leave the actor held
	held := make(chan error, 1)
	go func() {
		_, err := ts.Runtime.App.Sys.Apply(context.Background(), storage.AccountID(id), actors.ChangeFunc[struct{}](func(*actors.Tx) (struct{}, error) {
			close(entered)
			<-release
			return struct{}{}, nil
		}))
		held <- err
	}()
	select {
	case <-entered:
	case err := <-held:
		t.Fatalf("the change holding the actor did not run: %v", err)
	}
	type reply struct {
		a   *wire.Array
		err error
	}
	vote := func(v string) chan reply {
		c := make(chan reply, 1)
		go func() {
			a, err := g.call(context.Background(), "guide_vote", "gid", "7", "v", v)
			c <- reply{a, err}
		}()
		return c
	}
	down := vote("0")
	waitQueuedVotes(t, 1)
	up := vote("1")
	waitQueuedVotes(t, 2)
	free()
	if err := <-held; err != nil {
		t.Fatal(err)
	}

	d := <-down
	if d.err != nil {
		t.Fatal(d.err)
	}
	okReply(t, d.a, 6)
	u := <-up
	if u.err != nil {
		t.Fatal(u.err)
	}
	failReply(t, u.a, "vote_refused")
	r := g.must(t, "get_guide", "hero", "Hero_Parallax", "gid", "7")
	if v, has := r.Get("vote"); !has || num(r, "vote") != 0 {
		t.Errorf("stored vote %v after the refused flip back, want the down vote (0)", v)
	}
}

// waitQueuedVotes waits until n goroutines serving a guide vote have sent
// it to its account's actor and wait for the answer (the vote's ask is
// delivered before its goroutine waits in select).
func waitQueuedVotes(t *testing.T, n int) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		for {
			k := runtime.Stack(buf, true)
			if k < len(buf) {
				buf = buf[:k]
				break
			}
			buf = make([]byte, 2*len(buf))
		}
		queued := 0
		for _, g := range bytes.Split(buf, []byte("\n\n")) {
			if bytes.Contains(g, []byte(" [select")) && bytes.Contains(g, []byte("actors.(*System).call(")) &&
				bytes.Contains(g, []byte("guides.(*Service).Vote(")) {
				queued++
			}
		}
		if queued >= n {
			return
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("%d guide votes waiting for their actor after a minute, want %d", queued, n)
		}
		buf = buf[:cap(buf)]
	}
}
