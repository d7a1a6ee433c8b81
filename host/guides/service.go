package guides

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/guides/internal/guidespb"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// Deps are what the served guides area needs.
type Deps struct {
	Sys     *actors.System
	Login   *login.Service
	Decider sdk.Caller // the area's supervisor in a server; a *sdk.Plugin in tests
	Log     *slog.Logger
	// RankReuse bounds the reuse of the plugin's rankings (rankings.go;
	// config [guides]). The zero value reuses a ranking only while no
	// count has changed.
	RankReuse RankReuse
	// Now is the clock of RankReuse.Staleness, of Votes and of account
	// ages; nil is time.Now.
	Now func() time.Time
	// Votes bounds the votes of one client address (votebudget.go).
	Votes VoteBudget
	// Marks bounds the default and favourite changes of one account and
	// of one client address (limits.toggles_per_account,
	// toggles_per_address): each is a synced commit.
	Marks limit.WriteRates
	// NewAccountAge (limits.new_account_age): a vote cast by an account
	// younger than this is young (Ballot) and weighs less in the ranking
	// (the plugin's choice; the bundled one counts it a quarter). 0: no
	// vote is young.
	NewAccountAge time.Duration
}

// Service is the guides area over the host: guides and imported counts in
// global records, each account's marks in its own records written by its
// actor, the players' counts in a Tally rebuilt at start, and the ranking
// and vote rule asked of the area's plugin. It implements Backend.
type Service struct {
	d         Deps
	tally     *Tally
	cat       *catalogCache
	area      *Area
	cands     sync.Map // hero -> *candSnapshot: shared, read-only, rebuilt when the catalog or the hero's counts move
	ranks     *rankings
	rankCalls atomic.Uint64 // rank decisions asked of the plugin
	rankJoins atomic.Uint64 // lists that waited for another list's plugin call
	resyncing atomic.Bool   // resyncTally's rebuild runs
}

var _ Backend = (*Service)(nil)

// NewService builds the area, rebuilding the players' counts from every
// account's vote records. Call it before serving.
func NewService(d Deps) (*Service, error) {
	switch {
	case d.Sys == nil || d.Login == nil:
		return nil, errors.New("guides: Sys and Login are required")
	case d.Decider == nil:
		return nil, errors.New("guides: no decider (is the guides plugin running?)")
	}
	t, err := LoadTally(d.Sys.DB())
	if err != nil {
		return nil, err
	}
	s := &Service{d: d, tally: t, cat: &catalogCache{sys: d.Sys}, ranks: newRankings(d.RankReuse, d.Now)}
	d.Sys.OnDelete(s.dropVotes) // a deleted account's votes leave the counts (delete.go)
	s.area = New(AuthFunc(s.authenticate), s, d.Log)
	s.area.votes = d.Votes.limiters(d.Now)
	s.area.marks = limit.NewWrites(d.Marks, d.Now)
	return s, nil
}

// Tally is the service's players' counts.
func (s *Service) Tally() *Tally { return s.tally }

// Routes are the seven functions on /client_requester.php.
func (s *Service) Routes() []server.Route { return s.area.Routes() }

// authenticate maps a cookie to its account through the login service: an
// unknown or expired cookie is invalid_cookie.
func (s *Service) authenticate(cookie string) (storage.AccountID, error) {
	sess, err := s.d.Login.Authenticate(cookie)
	if err != nil {
		if login.ReasonOf(err) == login.ReasonInvalidCookie {
			return 0, Fail(ReasonInvalidCookie, err)
		}
		return 0, Fail(ReasonInternal, err)
	}
	return sess.AccountID, nil
}

func (s *Service) visible(gid GuideID) (*Guide, *catalog, error) {
	cat, err := s.cat.get()
	if err != nil {
		return nil, nil, err
	}
	g := cat.byGid[gid]
	if g == nil || g.Hidden {
		return nil, nil, Fail(ReasonNotFound, fmt.Errorf("gid %d", gid))
	}
	return g, cat, nil
}

// marks reads acct's default for hero and its favorites (committed
// records: every change commits before its reply).
func (s *Service) marks(acct storage.AccountID, hero string) (*Marks, error) {
	db := s.d.Sys.DB()
	m := &Marks{}
	if d, err := defaultKS.Get(db, acct, hero); err == nil {
		m.Defaults = map[string]GuideID{hero: GuideID(d.GetGid())}
	} else if !errors.Is(err, storage.ErrNotFound) {
		return nil, Fail(ReasonInternal, err)
	}
	err := favoriteKS.Each(db, acct, "", func(_ string, f *guidespb.Mark) error {
		if m.Favorites == nil {
			m.Favorites = map[GuideID]bool{}
		}
		m.Favorites[GuideID(f.GetGid())] = true
		return nil
	})
	if err != nil {
		return nil, Fail(ReasonInternal, err)
	}
	return m, nil
}

// List ranks hero's visible guides for acct through the plugin. A list is
// a read: it runs outside the account's actor on committed records and
// gives the plugin its stored state for the account. The plugin's decision
// may be one it made earlier on the same facts (rankings.go); either way
// it is checked against the current candidates and refused
// (guides_unavailable), never repaired, when it fails the contract. The
// ratings shown are the counts the order was ranked on: one snapshot.
func (s *Service) List(ctx context.Context, acct storage.AccountID, hero string) ([]ListEntry, error) {
	cat, err := s.cat.get()
	if err != nil {
		return nil, err
	}
	if len(cat.byHero[hero]) == 0 {
		// No guide of this hero is stored: an empty list, without asking
		// the plugin or keeping anything for the name (a client may send
		// any number of well-formed hero names; only stored heroes get
		// candidate snapshots and rankings).
		return nil, nil
	}
	m, err := s.marks(acct, hero)
	if err != nil {
		return nil, err
	}
	state, err := s.d.Sys.DB().PluginState(acct, string(guidesapi.Area))
	if err != nil {
		return nil, Fail(ReasonInternal, err)
	}
	f := guidesapi.GuideRankFacts{Account: guidesapi.GuideAccount(acct), Hero: hero}
	if d := m.Defaults[hero]; d != 0 && visibleFor(cat, d, hero) {
		f.Default = d
	}
	for gid := range m.Favorites {
		if visibleFor(cat, gid, hero) {
			f.Favorites = append(f.Favorites, gid)
		}
	}
	slices.Sort(f.Favorites)
	cands, d, shown, err := s.rank(ctx, cat, f, state)
	if err != nil {
		return nil, err
	}
	es, err := ListEntries(acct, f.WithShared(cands), d, shown, func(g GuideID) *Guide { return cat.byGid[g] }, m)
	for i := range es {
		es[i].head = cat.head(cat.byGid[es[i].Gid])
	}
	return es, err
}

// visibleFor reports whether gid is a visible guide of hero.
func visibleFor(cat *catalog, gid GuideID, hero string) bool {
	g := cat.byGid[gid]
	return g != nil && !g.Hidden && g.Hero == hero
}

// Guide returns a visible guide with acct's flags and its full counts.
func (s *Service) Guide(_ context.Context, acct storage.AccountID, gid GuideID) (GuideView, error) {
	g, _, err := s.visible(gid)
	if err != nil {
		return GuideView{}, err
	}
	db := s.d.Sys.DB()
	var fl Flags
	if d, err := defaultKS.Get(db, acct, g.Hero); err == nil {
		fl.Default = GuideID(d.GetGid()) == gid
	} else if !errors.Is(err, storage.ErrNotFound) {
		return GuideView{}, Fail(ReasonInternal, err)
	}
	if _, err := favoriteKS.Get(db, acct, gidKey(gid)); err == nil {
		fl.Favorite = true
	} else if !errors.Is(err, storage.ErrNotFound) {
		return GuideView{}, Fail(ReasonInternal, err)
	}
	if v, err := voteKS.Get(db, acct, gidKey(gid)); err == nil {
		fl.Vote = Vote(v.GetVote())
	} else if !errors.Is(err, storage.ErrNotFound) {
		return GuideView{}, Fail(ReasonInternal, err)
	}
	return GuideView{Guide: *g, Counts: s.tally.Counts(g), Flags: fl}, nil
}

// SetFlag sets or removes one of acct's flags through its actor; spend
// (nil: none) is called there once the change is known to write.
func (s *Service) SetFlag(ctx context.Context, acct storage.AccountID, gid GuideID, flag Flag, on bool, spend func() error) error {
	g, _, err := s.visible(gid)
	if err != nil {
		return err
	}
	_, err = s.d.Sys.Apply(ctx, acct, &flagChange{gid: gid, hero: g.Hero, flag: flag, on: on, spend: spend})
	return err
}

// Vote records acct's vote through its actor, if the plugin counts it;
// the actor moves the guide's counts once the vote is stored
// (voteChange), whether or not this call still waits for it.
func (s *Service) Vote(ctx context.Context, acct storage.AccountID, gid GuideID, v Vote, spend func() error) error {
	g, _, err := s.visible(gid)
	if err != nil {
		return err
	}
	now := time.Now
	if s.d.Now != nil {
		now = s.d.Now
	}
	_, err = actors.Apply(ctx, s.d.Sys, acct, (&voteChange{ctx: ctx, decider: s.d.Decider, gid: gid, hero: g.Hero, author: g.Author, vote: v, spend: spend,
		now: now(), newAccountAge: s.d.NewAccountAge, tally: s.tally, unknown: s.resyncTally}).apply)
	return err
}

// maxResyncPasses bounds resyncTally's passes under a steady stream of
// votes.
const maxResyncPasses = 8

// resyncTally rebuilds the counts from the vote records after a vote's
// commit of unknown outcome (the vote may be stored or not) whose record
// could not be read either, in the background, one rebuild at a time: until it ends, that guide's counts
// may miss the vote. A rebuild that fails is logged, and the next such
// commit (or, in a cluster, the next sync) tries again.
func (s *Service) resyncTally() {
	if !s.resyncing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.resyncing.Store(false)
		if err := s.tally.ResyncUntilSettled(voteScanner{s.d.Sys.DB()}, maxResyncPasses); err != nil && s.d.Log != nil {
			s.d.Log.Warn("guides: could not recount the votes after a vote whose outcome is unknown; the counts may miss it until the next restart",
				"err", err)
		}
	}()
}

// flagChange sets or removes one mark of the account, in its actor.
type flagChange struct {
	gid  GuideID
	hero string
	flag Flag
	on   bool
	// spend takes the change from the account's and the address's budgets
	// (nil: none), once the change is known to write; spent keeps a change
	// run again (a fenced activation's retry) from spending twice.
	spend func() error
	spent bool
}

func (c *flagChange) Apply(tx *actors.Tx) (any, error) {
	db, id := tx.DB(), tx.ID()
	var put, del bool
	key := gidKey(c.gid)
	ks := favoriteKS
	switch c.flag {
	case FlagDefault:
		// Keyed by hero: setting replaces the hero's previous default in
		// the same commit.
		ks, key = defaultKS, c.hero
		cur, err := defaultKS.Get(db, id, c.hero)
		has := err == nil
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return nil, Fail(ReasonInternal, err)
		}
		put = c.on && (!has || GuideID(cur.GetGid()) != c.gid)
		del = !c.on && has && GuideID(cur.GetGid()) == c.gid
	case FlagFavorite:
		_, err := favoriteKS.Get(db, id, key)
		has := err == nil
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return nil, Fail(ReasonInternal, err)
		}
		put, del = c.on && !has, !c.on && has
	default:
		return nil, Fail(ReasonBadRequest, fmt.Errorf("unknown flag %d", c.flag))
	}
	if !put && !del {
		return nil, nil // already as asked: nothing to write, nothing spent
	}
	if c.spend != nil && !c.spent {
		if err := c.spend(); err != nil {
			return nil, err
		}
		c.spent = true
	}
	if put {
		return nil, ks.Put(tx, key, &guidespb.Mark{Gid: uint32(c.gid)})
	}
	ks.Delete(tx, key)
	return nil, nil
}

// voteChange asks the plugin whether the vote counts and stores it with
// the plugin's new state and its class (Ballot: young when the account is
// younger than newAccountAge at now), in the account's actor, in one
// commit, and moves the counts once the commit is done (Tx.AfterCommit).
type voteChange struct {
	ctx           context.Context // the request's: bounds the plugin call
	decider       sdk.Caller
	gid           GuideID
	hero          string // the guide's, for the counts' generation
	author        storage.AccountID
	vote          Vote
	now           time.Time
	newAccountAge time.Duration
	// tally gets the vote's delta once it is stored (Tx.AfterCommit), in
	// the actor, so that a vote whose asker gave up (outcome unknown to
	// the player) is counted too; unknown runs after a commit of unknown
	// outcome whose record cannot be read.
	tally   *Tally
	unknown func()
	// spend takes the vote from the client address's budgets (nil: none),
	// once the vote is known to change the stored ballot; spent keeps a
	// change run again (a fenced activation's retry) from spending twice.
	spend func() error
	spent bool
}

// youngAt reports whether an account created at created is new at now. An
// unknown creation time counts as established, as in the reports area.
func youngAt(created, now time.Time, age time.Duration) bool {
	return age > 0 && !created.IsZero() && now.Sub(created) < age
}

// ballotsMemo names the memo (actors.Tx.Memo) of an account's ballots:
// read whole, by one scan of its records, at its first vote since its
// actor started, and kept current by its votes, so that a vote reads no
// record to learn the account's previous ballot on the guide.
const ballotsMemo = "guides.ballots"

// maxMemoBallots bounds the ballots an account's memo holds: an account
// that voted on more guides is not remembered, and each of its votes reads
// its one ballot (a var for tests).
var maxMemoBallots = 128

// ballots maps a guide to the account's ballot on it (absent: no vote);
// never edited once remembered.
type ballots map[GuideID]Ballot

// memoBallots returns the account's ballots from its memo, or reads them;
// nil when the account has more than maxMemoBallots (a nil memo: once past
// the bound, the actor does not read them all again).
func memoBallots(tx *actors.Tx) (ballots, error) {
	if known, ok := tx.Memo(ballotsMemo).(ballots); ok {
		return known, nil
	}
	known := ballots{}
	err := voteKS.Each(tx.DB(), tx.ID(), "", func(_ string, m *guidespb.Mark) error {
		if len(known) == maxMemoBallots {
			return errTooManyBallots
		}
		known[GuideID(m.GetGid())] = Ballot{Vote: Vote(m.GetVote()), Young: m.GetYoung()}
		return nil
	})
	switch {
	case errors.Is(err, errTooManyBallots):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return known, nil
}

// errTooManyBallots stops memoBallots' scan.
var errTooManyBallots = errors.New("more ballots than a memo holds")

// apply is the change, run by actors.Apply.
func (c *voteChange) apply(tx *actors.Tx) (struct{}, error) {
	if c.vote != VoteUp && c.vote != VoteDown {
		return struct{}{}, Fail(ReasonBadRequest, fmt.Errorf("vote %v", c.vote))
	}
	known, err := memoBallots(tx)
	if err != nil {
		return struct{}{}, Fail(ReasonInternal, err)
	}
	var prev Ballot
	if known != nil {
		prev = known[c.gid]
	} else if m, err := voteKS.Get(tx.DB(), tx.ID(), gidKey(c.gid)); err == nil {
		prev = Ballot{Vote: Vote(m.GetVote()), Young: m.GetYoung()}
	} else if !errors.Is(err, storage.ErrNotFound) {
		return struct{}{}, Fail(ReasonInternal, err)
	}
	if prev.Vote != c.vote && c.spend != nil && !c.spent {
		if err := c.spend(); err != nil {
			return struct{}{}, err
		}
		c.spent = true
	}
	area := string(guidesapi.Area)
	state, err := tx.PluginState(area)
	if err != nil {
		return struct{}{}, Fail(ReasonInternal, err)
	}
	facts := guidesapi.GuideVoteFacts{Account: guidesapi.GuideAccount(tx.ID()), Gid: c.gid, Author: guidesapi.GuideAccount(c.author),
		Previous: prev.Vote, New: c.vote}
	out, err := guidesapi.Vote.Decide(c.ctx, c.decider, sdk.Call[guidesapi.GuideVoteFacts]{Facts: facts, State: state})
	if err != nil {
		return struct{}{}, Fail(ReasonUnavailable, err)
	}
	if err := c.ctx.Err(); err != nil {
		// The asker has gone: committing now would hide a write behind an
		// error reply.
		return struct{}{}, Fail(ReasonUnavailable, err)
	}
	if !out.Decision.Counts {
		return struct{}{}, Fail(ReasonVoteRefused, nil)
	}
	next := prev // a repeated vote changes nothing, not even its class
	if prev.Vote != c.vote {
		next = Ballot{Vote: c.vote, Young: youngAt(tx.View().Created, c.now, c.newAccountAge)}
		if err := voteKS.Put(tx, gidKey(c.gid), &guidespb.Mark{Gid: uint32(c.gid), Vote: uint32(c.vote), Young: next.Young}); err != nil {
			return struct{}{}, Fail(ReasonInternal, err)
		}
		if _, had := known[c.gid]; known != nil && (had || len(known) < maxMemoBallots) {
			known = maps.Clone(known)
			known[c.gid] = next
		} else {
			known = nil // past the bound: not remembered from now on
		}
	}
	tx.SetMemo(ballotsMemo, known) // kept only if this change commits
	if prev != next && c.tally != nil {
		// One account's deltas are applied in its actor, in the order
		// of its commits.
		db, acct := tx.DB(), tx.ID()
		tx.AfterCommit(func(stored bool) {
			if stored {
				c.tally.Apply(c.hero, c.gid, prev, next)
				return
			}
			// Outcome unknown: the record tells whether the vote is
			// stored (the counts still hold prev); when it cannot be
			// read, every count is rebuilt.
			m, err := voteKS.Get(db, acct, gidKey(c.gid))
			switch {
			case err == nil:
				c.tally.Apply(c.hero, c.gid, prev, Ballot{Vote: Vote(m.GetVote()), Young: m.GetYoung()})
			case errors.Is(err, storage.ErrNotFound):
				c.tally.Apply(c.hero, c.gid, prev, Ballot{})
			case c.unknown != nil:
				c.unknown()
			}
		})
	}
	if !bytes.Equal(out.State, state) {
		tx.SetPluginState(area, out.State)
	}
	return struct{}{}, nil
}
