package actors

import (
	"context"
	"errors"
	"testing"
)

// stepState appends "x" to the account's plinko plugin state and answers the
// state it read; with fail it sets the state and then refuses the change.
type stepState struct{ fail bool }

var errStep = errors.New("test: refused after setting state")

func (c stepState) Apply(tx *Tx) (any, error) {
	s, err := tx.PluginState("plinko")
	if err != nil {
		return nil, err
	}
	got := string(s)
	s = append(s, 'x')
	tx.SetPluginState("plinko", s)
	s[0] = '!' // the Tx keeps its own copy
	if again, _ := tx.PluginState("plinko"); string(again) != got+"x" {
		return nil, errors.New("test: state set in this change not read back: " + string(again))
	}
	if c.fail {
		return nil, errStep
	}
	return got, nil
}

// The actor keeps the plugin states it read or committed: each change sees
// the state the previous committed one left, a refused change leaves it
// as it was, and storage holds the same bytes.
func TestPluginStateKeptByActor(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "plugstate", "")
	steps := []struct {
		fail bool
		want string
	}{
		{false, ""}, {false, "x"}, {true, ""}, {false, "xx"}, {true, ""}, {false, "xxx"},
	}
	for i, st := range steps {
		r, err := s.Apply(ctx, a.ID, stepState{fail: st.fail})
		if st.fail {
			if !errors.Is(err, errStep) {
				t.Fatalf("step %d: %v, want errStep", i, err)
			}
			continue
		}
		if err != nil || r != st.want {
			t.Fatalf("step %d: read %q, %v; want %q", i, r, err, st.want)
		}
	}
	stored, err := s.DB().PluginState(a.ID, "plinko")
	if err != nil || string(stored) != "xxxx" {
		t.Fatalf("stored state %q, %v; want xxxx", stored, err)
	}
}

// memoStep remembers n under "k" (refusing the change with fail) and
// answers what was remembered before.
type memoStep struct {
	n    int
	fail bool
}

func (c memoStep) Apply(tx *Tx) (any, error) {
	before := tx.Memo("k")
	tx.SetMemo("k", c.n)
	if tx.Memo("k") != c.n {
		return nil, errors.New("test: memo set in this change not read back")
	}
	if c.fail {
		return nil, errStep
	}
	return before, nil
}

// A memo is kept only from changes that committed.
func TestMemoKeptFromCommittedChanges(t *testing.T) {
	s := newSystem(t, Options{})
	ctx := context.Background()
	a := create(t, s, "memo", "")
	steps := []struct {
		m    memoStep
		want any
	}{
		{memoStep{1, false}, nil}, {memoStep{2, true}, nil}, {memoStep{3, false}, 1}, {memoStep{4, false}, 3},
	}
	for i, st := range steps {
		r, err := s.Apply(ctx, a.ID, st.m)
		if st.m.fail {
			if !errors.Is(err, errStep) {
				t.Fatalf("step %d: %v", i, err)
			}
			continue
		}
		if err != nil || r != st.want {
			t.Fatalf("step %d: %v, %v; want %v", i, r, err, st.want)
		}
	}
}
