package actors

import (
	"errors"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
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
	res, err := s.call(&pidDestination{root: s.as.Root, pid: pid}, &envelope{Msg: &getAccount{}}, time.Hour)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("ask of a stopped actor: %v, %v; want ErrStopped", res, err)
	}
}

// An actor that never answers leaves the asker its timeout, and a late
// answer neither blocks the actor nor reaches a later ask.
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
