package guides

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/honmaster/masterserver/storage"
)

// VoteRecord is one account's stored vote on one guide. Each account's
// vote records are written only by that account's actor.
type VoteRecord struct {
	Account storage.AccountID
	Gid     GuideID
	Vote    Vote
}

// VoteScanner reads every stored vote record (a prefix scan over the vote
// records of all accounts). fn's error stops the scan and is returned.
type VoteScanner interface {
	ScanVotes(fn func(VoteRecord) error) error
}

// Tally holds the players' vote counts of every guide, derived from the
// accounts' own vote records; a guide's full counts are its imported
// starting counts (Guide.Up, Guide.Down, a global record the import writes)
// plus these.
//
// No record is shared by voters: an account's actor writes only that
// account's vote record, and after its commit applies the vote's delta
// here with one atomic add, so concurrent voters never read-modify-write a
// shared value. Up and down of a guide are packed in one 64-bit word, so a
// changed vote moves both counts in one step and readers never see half of
// it. Memory is the only place the derived counts live; NewTally rebuilds
// them from the records at start, so they are exact after any crash: a vote
// is counted if and only if its record committed.
//
// Each hero's counts also have a generation (Generation), which moves after
// every Apply that changed a count of one of the hero's guides: caches of
// a hero's counts (candidate snapshots, reused rankings) compare it, so a
// vote invalidates only its own hero's.
type Tally struct {
	m      sync.Map      // GuideID -> *atomic.Uint64 (up<<32 | down)
	gens   sync.Map      // hero -> *atomic.Uint64, added by the first Apply on one of its guides
	anyGen atomic.Uint64 // moves after an Apply whose hero is unknown ("": every hero's generation moves)
}

// NewTally builds the counts from every vote record. Call it before any
// vote is applied (at start, before serving).
func NewTally(s VoteScanner) (*Tally, error) {
	t := &Tally{}
	if s == nil {
		return t, nil
	}
	err := s.ScanVotes(func(r VoteRecord) error {
		if !r.Vote.Valid() {
			return fmt.Errorf("vote record of account %d on guide %d: bad vote %d", r.Account, r.Gid, uint8(r.Vote))
		}
		t.Apply("", r.Gid, VoteNone, r.Vote) // before any cache: no generation to keep
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rebuild vote counts: %w", err)
	}
	return t, nil
}

func (t *Tally) word(gid GuideID) *atomic.Uint64 {
	if w, ok := t.m.Load(gid); ok {
		return w.(*atomic.Uint64)
	}
	w, _ := t.m.LoadOrStore(gid, new(atomic.Uint64))
	return w.(*atomic.Uint64)
}

// delta is the packed change of moving one vote from prev to next. Packed
// arithmetic modulo 2^64 is exact as long as neither count leaves
// [0, 2^32), which holds because each count is a number of records.
func delta(prev, next Vote) uint64 {
	var d uint64
	switch prev {
	case VoteUp:
		d -= 1 << 32
	case VoteDown:
		d--
	}
	switch next {
	case VoteUp:
		d += 1 << 32
	case VoteDown:
		d++
	}
	return d
}

// Apply moves one account's vote on gid, a guide of hero, from prev to
// next, then hero's generation ("" when the hero is unknown: every hero's
// moves). The vote's caller applies it once the account's actor committed
// next, with the vote it replaced; prev == next changes nothing.
func (t *Tally) Apply(hero string, gid GuideID, prev, next Vote) {
	if prev == next {
		return
	}
	t.word(gid).Add(delta(prev, next))
	if hero == "" {
		t.anyGen.Add(1)
		return
	}
	g, ok := t.gens.Load(hero)
	if !ok {
		g, _ = t.gens.LoadOrStore(hero, new(atomic.Uint64))
	}
	g.(*atomic.Uint64).Add(1)
}

// Generation is the generation of hero's counts: a value computed from
// them at generation g is current while Generation still returns g (read
// it before reading any count). A hero no vote has touched has no entry
// and generation 0 (reading adds none: clients name heroes freely). Both
// parts only grow, so their sum moves whenever either does.
func (t *Tally) Generation(hero string) uint64 {
	var own uint64
	if g, ok := t.gens.Load(hero); ok {
		own = g.(*atomic.Uint64).Load()
	}
	return t.anyGen.Load() + own
}

// Derived returns the players' counts of gid (without the imported ones).
func (t *Tally) Derived(gid GuideID) Counts {
	w, ok := t.m.Load(gid)
	if !ok {
		return Counts{}
	}
	v := w.(*atomic.Uint64).Load()
	return Counts{Up: uint32(v >> 32), Down: uint32(v)}
}

// Counts returns g's full counts: imported plus players'.
func (t *Tally) Counts(g *Guide) Counts {
	return Counts{Up: g.Up, Down: g.Down}.Add(t.Derived(g.Gid))
}
