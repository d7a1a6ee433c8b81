package guides

import (
	"errors"
	"testing"
)

func TestMarks(t *testing.T) {
	var m Marks
	a1 := &Guide{Gid: 1, Hero: "Hero_A"}
	a2 := &Guide{Gid: 2, Hero: "Hero_A"}
	b3 := &Guide{Gid: 3, Hero: "Hero_B"}
	steps := []struct {
		g       *Guide
		flag    Flag
		on      bool
		changed bool
	}{
		{a1, FlagDefault, true, true},
		{a1, FlagDefault, true, false}, // again: nothing
		{b3, FlagDefault, true, true},  // another hero: both kept
		{a2, FlagDefault, true, true},  // replaces 1 for Hero_A
		{a1, FlagDefault, false, false},
		{a1, FlagFavorite, true, true},
		{a1, FlagFavorite, true, false},
		{a2, FlagFavorite, false, false},
	}
	for i, s := range steps {
		changed, err := m.SetFlag(s.g, s.flag, s.on)
		if err != nil || changed != s.changed {
			t.Fatalf("step %d: changed %v, %v; want %v", i, changed, err, s.changed)
		}
	}
	if m.Flags(a1) != (Flags{Favorite: true}) || m.Flags(a2) != (Flags{Default: true}) || m.Flags(b3) != (Flags{Default: true}) {
		t.Fatalf("flags %+v %+v %+v", m.Flags(a1), m.Flags(a2), m.Flags(b3))
	}
	if changed, _ := m.SetFlag(a2, FlagDefault, false); !changed || m.Flags(a2).Default {
		t.Fatal("default not removed")
	}
	for _, s := range []struct {
		v, prev Vote
	}{{VoteUp, VoteNone}, {VoteUp, VoteUp}, {VoteDown, VoteUp}} {
		if prev, err := m.SetVote(1, s.v); err != nil || prev != s.prev {
			t.Fatalf("SetVote(%v) = %v, %v; want prev %v", s.v, prev, err, s.prev)
		}
	}
	if _, err := m.SetVote(1, VoteNone); !errors.Is(err, ErrBadRequest) || m.Votes[1] != VoteDown {
		t.Fatalf("SetVote(none) = %v", err)
	}
	if _, err := m.SetFlag(a1, Flag(9), true); err == nil {
		t.Fatal("unknown flag accepted")
	}
}
