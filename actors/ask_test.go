package actors

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/honmaster/masterserver/storage"
)

// A request sent to an actor that has stopped is answered ErrStopped at
// once (the dead-letter subscription), not left to its timeout, as
// protoactor's futures answer a dead letter.
func TestAskStoppedActorIsAnsweredStopped(t *testing.T) {
	s := newSystem(t, Options{})
	pid := s.as.Root.Spawn(actor.PropsFromFunc(func(actor.Context) {}))
	if err := s.as.Root.PoisonFuture(pid).Wait(); err != nil {
		t.Fatal(err)
	}
	// Without the answer, the asker would wait for its whole timeout and
	// then get ErrTimeout.
	res, err := s.call(&pidDestination{root: s.as.Root, pid: pid}, &envelope{Msg: &getAccount{}}, 10*time.Second)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("ask of a stopped actor: %v, %v; want ErrStopped", res, err)
	}
}

// An actor that never answers leaves the asker its timeout; answering an
// envelope twice keeps the first answer and never blocks the answerer.
func TestAskTimeoutAndLateAnswer(t *testing.T) {
	s := newSystem(t, Options{})
	got := make(chan *envelope, 1)
	pid := s.as.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if env, ok := c.Message().(*envelope); ok {
			got <- env
		}
	}))
	if _, err := s.call(&pidDestination{root: s.as.Root, pid: pid}, &envelope{Msg: &getAccount{}}, time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("unanswered ask: %v, want ErrTimeout", err)
	}
	env := <-got
	env.respond(&changed{})
	env.respond(&changed{}) // a second answer is dropped, never blocks
	if n := len(env.reply); n != 1 {
		t.Errorf("reply channel holds %d answers, want the first only", n)
	}
}

// Shutdown's wait for the account actors is bounded as a whole: with an
// actor stuck in a change on each of two shards, it returns after about
// ShutdownWait, not never.
func TestShutdownWaitIsBoundedAcrossShards(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(db, Options{Shards: 2, ShutdownWait: 100 * time.Millisecond})
	release := make(chan struct{})
	defer close(release)
	stuck := map[*shard]bool{}
	for i := 0; len(stuck) < 2; i++ {
		a := create(t, s, fmt.Sprintf("S%d", i), "")
		if sh := s.shardOf(a.ID); !stuck[sh] {
			stuck[sh] = true
			started := make(chan struct{})
			go func() { _, _ = s.Apply(context.Background(), a.ID, slowChange{started, release}) }()
			<-started
		}
	}
	done := make(chan struct{})
	go func() { s.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Shutdown still waiting for stuck actors long after ShutdownWait")
	}
}
