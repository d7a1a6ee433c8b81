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
	Young   bool // the account was new when it voted (Ballot)
}

// Ballot is one account's vote on one guide with its weight class: Young
// when the account was new (younger than limits.new_account_age) at the
// moment it cast the vote. The class is stored with the vote and never
// changes as the account ages: a vote weighs, in rankings, what its voter
// weighed when it voted, so nothing is re-tallied as accounts age, and the
// rebuild at start finds every class in the records. Changing a vote casts
// it anew (with the account's class then); repeating it changes nothing.
// The zero Ballot is no vote.
type Ballot struct {
	Vote  Vote
	Young bool
}

// VoteScanner reads every stored vote record (a prefix scan over the vote
// records of all accounts). fn's error stops the scan and is returned.
type VoteScanner interface {
	ScanVotes(fn func(VoteRecord) error) error
}

// Tally holds the players' vote counts of every guide, derived from the
// accounts' own vote records; a guide's full counts are its imported
// starting counts (Guide.Up, Guide.Down, a global record the import writes)
// plus these. Beside each guide's counts it keeps their young part: the
// votes cast by accounts that were new (Ballot). The counts stay exact —
// players are shown every vote — and the young part lets the ranking weigh
// sock puppets less (RankCounts, guidesapi.GuideCandidate.YoungUp).
//
// No record is shared by voters: an account's actor writes only that
// account's vote record, and after its commit, in the actor, applies the
// vote's delta here (actors.Tx.AfterCommit: whether or not the voter
// still waits for the reply), so concurrent voters never
// read-modify-write a shared record, and one account's deltas arrive in
// the order of its commits. A
// guide's counts and their young part are one immutable value behind an
// atomic pointer, replaced by compare-and-swap: a changed vote moves all
// its counts in one step and readers never see half of it (young within
// its count, but for the instant between two out-of-order applies of one
// account's votes: see count). Memory is the only place the derived counts live;
// NewTally rebuilds them from the records at start, so they are exact
// after any crash: a vote is counted, in its class, if and only if its
// record committed.
//
// Each hero's counts also have a generation (Generation), which moves after
// every Apply that changed a count of one of the hero's guides: caches of
// a hero's counts (candidate snapshots, reused rankings) compare it, so a
// vote invalidates only its own hero's.
type Tally struct {
	m      sync.Map      // GuideID -> *atomic.Pointer[tallied]
	gens   sync.Map      // hero -> *atomic.Uint64, added by the first Apply on one of its guides
	anyGen atomic.Uint64 // moves after an Apply whose hero is unknown ("": every hero's generation moves)
}

// tallied is one guide's players' counts and their young part; never
// changed once published.
type tallied struct{ all, young Counts }

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
		t.Apply("", r.Gid, Ballot{}, Ballot{Vote: r.Vote, Young: r.Young}) // before any cache: no generation to keep
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rebuild vote counts: %w", err)
	}
	return t, nil
}

func (t *Tally) cell(gid GuideID) *atomic.Pointer[tallied] {
	if p, ok := t.m.Load(gid); ok {
		return p.(*atomic.Pointer[tallied])
	}
	p, _ := t.m.LoadOrStore(gid, new(atomic.Pointer[tallied]))
	return p.(*atomic.Pointer[tallied])
}

// count adds n (1 or -1 as uint32) to b's vote in c. A count never goes
// below zero: a removal the count cannot hold is dropped. That happens
// only when the counts missed the vote being removed (a Resync whose scan
// ran while the vote was applied; its next scan makes them exact again);
// wrapping would show 4294967295 votes and put the guide first.
func (c *tallied) count(b Ballot, n uint32) {
	addVote(&c.all, b.Vote, n)
	if b.Young {
		addVote(&c.young, b.Vote, n)
	}
}

func addVote(cs *Counts, v Vote, n uint32) {
	var p *uint32
	switch v {
	case VoteUp:
		p = &cs.Up
	case VoteDown:
		p = &cs.Down
	default:
		return
	}
	if n == ^uint32(0) && *p == 0 {
		return
	}
	*p += n
}

// Apply moves one account's vote on gid, a guide of hero, from prev to
// next, then hero's generation ("" when the hero is unknown: every hero's
// moves). The account's actor applies it once it committed next, with
// the ballot it replaced; prev == next changes nothing.
func (t *Tally) Apply(hero string, gid GuideID, prev, next Ballot) {
	if prev == next {
		return
	}
	p := t.cell(gid)
	for {
		old := p.Load()
		moved := new(tallied)
		if old != nil {
			*moved = *old
		}
		moved.count(prev, ^uint32(0))
		moved.count(next, 1)
		if p.CompareAndSwap(old, moved) {
			break
		}
	}
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

func (t *Tally) load(gid GuideID) tallied {
	p, ok := t.m.Load(gid)
	if !ok {
		return tallied{}
	}
	if c := p.(*atomic.Pointer[tallied]).Load(); c != nil {
		return *c
	}
	return tallied{}
}

// Derived returns the players' counts of gid (without the imported ones).
func (t *Tally) Derived(gid GuideID) Counts { return t.load(gid).all }

// Counts returns g's full counts: imported plus players'.
func (t *Tally) Counts(g *Guide) Counts {
	return Counts{Up: g.Up, Down: g.Down}.Add(t.Derived(g.Gid))
}

// RankCounts returns g's full counts and, read in the same step, their
// young part: the votes of accounts that were new when they voted
// (imported counts are never young). A ranking gets both
// (guidesapi.GuideCandidate) and may weigh the young part less.
func (t *Tally) RankCounts(g *Guide) (full, young Counts) {
	c := t.load(g.Gid)
	return Counts{Up: g.Up, Down: g.Down}.Add(c.all), c.young
}

// Resync makes the counts equal to the vote records, for a cluster: votes
// cast on other nodes reach this node's counts only through it (each node
// applies its own votes at once). It rebuilds the counts from s and
// replaces every guide's that differ, moving every hero's generation when
// any did. A vote applied here while the scan runs may be undone until
// the next Resync, whose scan includes its record: the counts converge to
// the records within two resyncs, and the records are exact. It returns
// how many guides' counts it changed.
func (t *Tally) Resync(s VoteScanner) (int, error) {
	fresh, err := NewTally(s)
	if err != nil {
		return 0, err
	}
	changed := 0
	seen := map[GuideID]bool{}
	fresh.m.Range(func(k, v any) bool {
		gid := k.(GuideID)
		seen[gid] = true
		want := v.(*atomic.Pointer[tallied]).Load()
		if p := t.cell(gid); !sameTally(p.Load(), want) {
			p.Store(want)
			changed++
		}
		return true
	})
	t.m.Range(func(k, v any) bool {
		if p := v.(*atomic.Pointer[tallied]); !seen[k.(GuideID)] && !sameTally(p.Load(), nil) {
			p.Store(nil)
			changed++
		}
		return true
	})
	if changed > 0 {
		t.anyGen.Add(1)
	}
	return changed, nil
}

func sameTally(a, b *tallied) bool {
	var za, zb tallied
	if a != nil {
		za = *a
	}
	if b != nil {
		zb = *b
	}
	return za == zb
}

// ResyncUntilSettled runs Resync until a pass changes nothing, at most
// passes times. One pass undoes a vote applied while its scan ran (not in
// the scan) and counts twice one the scan saw but applied after the pass
// stored its counts; the next pass, whose scan includes both, sets them
// right. A node that resyncs once, not periodically as a cluster's do
// (the recount after a vote of unknown outcome), would otherwise keep
// such an error until restart.
func (t *Tally) ResyncUntilSettled(s VoteScanner, passes int) error {
	for range passes {
		changed, err := t.Resync(s)
		if err != nil || changed == 0 {
			return err
		}
	}
	return nil
}

// ResyncTally is Resync over every vote record in db.
func ResyncTally(t *Tally, db *storage.DB) (int, error) { return t.Resync(voteScanner{db}) }
