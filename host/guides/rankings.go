package guides

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// Reusing the plugin's rankings.
//
// A list asks the plugin for an order of the hero's visible guides. For a
// hero with 1,000 guides that is 25 KB of candidates sent to the plugin
// process and ranked there, several times the cost of the rest of the
// request. Yet the answer is a function of its facts (the contract,
// guidesapi.Rank): the hero's candidates, the account's default and
// favorites, and — unless the plugin declares the decision Shared — the
// account and its plugin state. So the host keeps each decision and hands
// it to later lists with the same facts, instead of asking again:
//
//   - the key is (hero, default, favorites) for a Shared decision (the
//     bundled ranking: one decision serves every account without a default
//     or favorites for the hero, the common case), plus the account and
//     its plugin state otherwise (an operator's plugin that may rank per
//     account keeps every account's own decision);
//   - a decision is reused only while the guides catalog (content, hidden,
//     premium) is the version it was ranked on: hiding, unhiding, marking
//     premium or importing re-ranks the next list at once;
//   - counts change with every vote, everywhere: a decision ranked on counts
//     that have since moved is reused for at most Staleness after those
//     counts were read (guides.rank_staleness, default 1s). A vote
//     acknowledged more than Staleness before a list starts is in that
//     list's order. Staleness 0 re-ranks after every vote;
//   - a list is one snapshot: the ratings it shows are the counts its order
//     was ranked on, kept with the decision (the listed guides' counts
//     only, at most 20, 8 bytes each), never counts read after the order.
//     Otherwise a vote between the ranking and the reply, or a reused
//     decision, showed new ratings in the old order (0.75, 0.50, 0.25,
//     1.00). So a reused decision shows ratings up to Staleness old, like
//     its order; get_guide always shows the current counts;
//   - concurrent lists that miss share one plugin call (single flight) when
//     the call's facts serve them all;
//   - every reused order is checked again against the current candidates
//     (ListEntries), so it can never list a hidden guide or another hero's;
//   - at most Entries decisions are kept (guides.rank_cache_entries); past
//     that an arbitrary one is dropped.
//
// Per-requester parts are never taken from a decision: is_def, is_fav and
// is_yours and the thumb are the host's, computed for each request.

// RankReuse are the settings of the reuse of rankings.
type RankReuse struct {
	// Staleness is how long after its counts were read a decision is still
	// reused once a vote has changed them; 0 re-ranks after every vote.
	Staleness time.Duration
	// Entries is the most decisions kept; 0 means DefaultRankEntries.
	Entries int
}

// DefaultRankEntries is how many ranking decisions are kept when the
// settings say nothing (config: guides.rank_cache_entries).
const DefaultRankEntries = 10000

// rankBasis says which counts a decision was ranked on: the catalog
// version and the generation of its hero's counts (Tally.Generation), read
// at read (the generation is read before any count).
type rankBasis struct {
	catVersion, gen uint64
	read            time.Time
}

// candSnapshot is a hero's candidates as of one basis.
type candSnapshot struct {
	rankBasis
	cands *guidesapi.SharedGuideCandidates
}

// rankKey names the facts a decision was made on.
type rankKey struct {
	hero    string
	account storage.AccountID // 0 for a Shared decision
	def     GuideID
	favs    string // the favorites, 4 bytes each, ascending
	state   string // the account's plugin state (hashed when long); "" when Shared
}

// rankEntry is a kept decision. It holds its basis, not its candidates:
// every snapshot of the same catalog version has the same guides, so the
// current one checks a reused order, and a kept decision never pins a
// hero's candidates in memory.
type rankEntry struct {
	basis    rankBasis
	decision guidesapi.GuideRankDecision
	shown    []Counts // the counts decision.Order was ranked on, one per gid (RankedCounts)
}

// rankFlight is one plugin call in flight; done closes when entry or err
// is set.
type rankFlight struct {
	snap    *candSnapshot
	account storage.AccountID
	state   string
	done    chan struct{}
	entry   rankEntry
	err     error
}

// rankings holds the reusable decisions of one Service.
type rankings struct {
	reuse      RankReuse
	now        func() time.Time
	mu         sync.Mutex
	entries    map[rankKey]*rankEntry
	flights    map[rankKey]*rankFlight
	lastShared atomic.Bool // the last decision was Shared: flights are keyed without the account
}

func newRankings(r RankReuse, now func() time.Time) *rankings {
	if r.Entries <= 0 {
		r.Entries = DefaultRankEntries
	}
	if now == nil {
		now = time.Now
	}
	return &rankings{reuse: r, now: now, entries: map[rankKey]*rankEntry{}, flights: map[rankKey]*rankFlight{}}
}

// usable reports whether a decision ranked on b may serve a list that
// starts at now, with the catalog at catVersion and the hero's counts at
// generation gen.
func (r *rankings) usable(b rankBasis, catVersion, gen uint64, now time.Time) bool {
	return b.catVersion == catVersion && (b.gen == gen || now.Sub(b.read) < r.reuse.Staleness)
}

func (r *rankings) store(k rankKey, e *rankEntry) {
	if _, ok := r.entries[k]; !ok && len(r.entries) >= r.reuse.Entries {
		for old := range r.entries {
			delete(r.entries, old)
			break
		}
	}
	r.entries[k] = e
}

func packGids(gs []GuideID) string {
	b := make([]byte, 0, 4*len(gs))
	for _, g := range gs {
		b = binary.BigEndian.AppendUint32(b, uint32(g))
	}
	return string(b)
}

func stateKey(state []byte) string {
	if len(state) <= sha256.Size {
		return string(state)
	}
	sum := sha256.Sum256(state)
	return "#" + string(sum[:])
}

// snapshot returns hero's candidates as of the current catalog version and
// generation of the hero's counts, building them when either has moved.
func (s *Service) snapshot(cat *catalog, hero string) (*candSnapshot, error) {
	gen := s.tally.Generation(hero) // before reading any count
	if v, ok := s.cands.Load(hero); ok {
		if sn := v.(*candSnapshot); sn.catVersion == cat.version && sn.gen == gen {
			return sn, nil
		}
	}
	read := s.ranks.now()
	shared, err := guidesapi.ShareGuideCandidates(RankFacts(0, hero, cat.byHero[hero], &Marks{}, s.tally).Candidates)
	if err != nil {
		return nil, Fail(ReasonInternal, err)
	}
	sn := &candSnapshot{rankBasis: rankBasis{catVersion: cat.version, gen: gen, read: read}, cands: shared}
	s.cands.Store(hero, sn)
	return sn, nil
}

// candidatesOf returns hero's candidates as of cat's version, whatever
// their counts: what a reused decision is checked against.
func (s *Service) candidatesOf(cat *catalog, hero string) (*guidesapi.SharedGuideCandidates, error) {
	if v, ok := s.cands.Load(hero); ok {
		if sn := v.(*candSnapshot); sn.catVersion == cat.version {
			return sn.cands, nil
		}
	}
	sn, err := s.snapshot(cat, hero)
	if err != nil {
		return nil, err
	}
	return sn.cands, nil
}

// rank returns the plugin's decision for facts f (Account, Hero, Default
// and Favorites set; candidates are the hero's) with the account's state,
// the counts it was ranked on (one per gid of its order), and candidates
// of cat's version to check it against: a kept decision when one may serve
// (see above), else one plugin call, shared with concurrent lists of the
// same facts.
func (s *Service) rank(ctx context.Context, cat *catalog, f guidesapi.GuideRankFacts, state []byte) (*guidesapi.SharedGuideCandidates, guidesapi.GuideRankDecision, []Counts, error) {
	r := s.ranks
	acct := storage.AccountID(f.Account)
	shared := rankKey{hero: f.Hero, def: f.Default, favs: packGids(f.Favorites)}
	own := shared
	own.account, own.state = acct, stateKey(state)
	servesMe := func(e rankEntry, account storage.AccountID, st string) bool {
		return e.decision.Shared || (account == acct && st == own.state)
	}
	for attempt := 0; ; attempt++ {
		now, gen := r.now(), s.tally.Generation(f.Hero)
		flightKey := own
		if r.lastShared.Load() {
			flightKey = shared
		}
		r.mu.Lock()
		for _, k := range []rankKey{shared, own} {
			if e := r.entries[k]; e != nil && r.usable(e.basis, cat.version, gen, now) {
				r.mu.Unlock()
				cands, err := s.candidatesOf(cat, f.Hero)
				return cands, e.decision, e.shown, err
			}
		}
		fl := r.flights[flightKey]
		r.mu.Unlock()
		if fl != nil && attempt == 0 && r.usable(fl.snap.rankBasis, cat.version, gen, now) {
			s.rankJoins.Add(1)
			select {
			case <-fl.done:
			case <-ctx.Done():
				return nil, guidesapi.GuideRankDecision{}, nil, Fail(ReasonUnavailable, ctx.Err())
			}
			if fl.err == nil && servesMe(fl.entry, fl.account, fl.state) {
				return fl.snap.cands, fl.entry.decision, fl.entry.shown, nil
			}
			continue // its facts were not mine, or it failed: ask myself
		}
		snap, err := s.snapshot(cat, f.Hero)
		if err != nil {
			return nil, guidesapi.GuideRankDecision{}, nil, err
		}
		fl = &rankFlight{snap: snap, account: acct, state: own.state, done: make(chan struct{})}
		r.mu.Lock()
		r.flights[flightKey] = fl
		r.mu.Unlock()
		fl.entry, fl.err = s.askRank(ctx, f.WithShared(snap.cands), state, snap)
		r.mu.Lock()
		if fl.err == nil {
			k := own
			if fl.entry.decision.Shared {
				k = shared
			}
			r.store(k, &fl.entry)
		}
		if r.flights[flightKey] == fl {
			delete(r.flights, flightKey)
		}
		r.mu.Unlock()
		close(fl.done)
		if fl.err != nil {
			return nil, guidesapi.GuideRankDecision{}, nil, fl.err
		}
		r.lastShared.Store(fl.entry.decision.Shared)
		return snap.cands, fl.entry.decision, fl.entry.shown, nil
	}
}

// askRank asks the plugin. A list is a read: a result that changes the
// account's plugin state is refused, as is one that fails the contract's
// check (guides_unavailable), never repaired.
func (s *Service) askRank(ctx context.Context, f guidesapi.GuideRankFacts, state []byte, snap *candSnapshot) (rankEntry, error) {
	s.rankCalls.Add(1)
	res, err := guidesapi.Rank.Decide(ctx, s.d.Decider, sdk.Call[guidesapi.GuideRankFacts]{Facts: f, State: state})
	if err != nil {
		return rankEntry{}, Fail(ReasonUnavailable, err)
	}
	if !bytes.Equal(res.State, state) {
		return rankEntry{}, Fail(ReasonUnavailable, fmt.Errorf("%w: %s changed the plugin state of a read", sdk.ErrInvalidDecision, guidesapi.Rank.Name()))
	}
	// The counts shown beside the order are those it was ranked on, taken
	// now from the same candidates (see "one snapshot" above). An order
	// longer than a list is refused by ListEntries' check anyway: its
	// counts are not worth an allocation.
	e := rankEntry{basis: snap.rankBasis, decision: res.Decision}
	if len(res.Decision.Order) <= MaxListEntries {
		e.shown = RankedCounts(snap.cands.List(), res.Decision.Order)
	}
	return e, nil
}
