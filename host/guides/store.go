package guides

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/guides/internal/guidespb"
	"github.com/honmaster/masterserver/storage"
)

// Stored records (proto messages of proto/guides_records.proto):
//
//	g/guides.guide/<gid:8>            Guide: content, premium, hidden, imported counts
//	x/guides.default/<id:4><hero>     Mark{gid}: the account's default guide for hero
//	x/guides.favorite/<id:4><gid:8>   Mark{gid}: a favorite
//	x/guides.vote/<id:4><gid:8>       Mark{gid, vote, young}: the account's vote and its class (Ballot)
//
// Guide records are global: only the global writer (System.UpdateGlobal)
// writes them, for the operator's import, hide/unhide and premium. Marks
// are per account: only the account's actor writes them (a Change). The
// default is keyed by hero, so setting another default for the same hero
// overwrites the old one in the same commit: one default per hero by
// construction. Nothing stores a guide's players' counts: Tally derives
// them from the vote records (see doc.go, Counts).
var (
	guideKS    = storage.NewGlobalKeyspace("guides.guide", storage.Proto[*guidespb.Guide]())
	defaultKS  = storage.NewAccountKeyspace("guides.default", storage.Proto[*guidespb.Mark]())
	favoriteKS = storage.NewAccountKeyspace("guides.favorite", storage.Proto[*guidespb.Mark]())
	voteKS     = storage.NewAccountKeyspace("guides.vote", storage.Proto[*guidespb.Mark]())
)

func gidKey(g GuideID) string { return storage.KeyUint64(uint64(g)) }

func guideToPB(g *Guide) *guidespb.Guide {
	var edited int64
	if !g.Edited.IsZero() {
		edited = g.Edited.UnixNano()
	}
	return &guidespb.Guide{Gid: uint32(g.Gid), Hero: g.Hero, HeroName: g.HeroName, Name: g.Name,
		AuthorName: g.AuthorName, Author: uint32(g.Author), EditedUnixNano: edited, Premium: g.Premium,
		Hidden: g.Hidden, Start: g.Start, Laning: g.Laning, Core: g.Core, Luxury: g.Luxury, Abil: g.Abil,
		Intro: g.Intro, Up: g.Up, Down: g.Down, ArchiveKey: g.ArchiveKey}
}

func guideFromPB(m *guidespb.Guide) Guide {
	var edited time.Time
	if n := m.GetEditedUnixNano(); n != 0 {
		edited = time.Unix(0, n).UTC()
	}
	return Guide{Gid: GuideID(m.GetGid()), Hero: m.GetHero(), HeroName: m.GetHeroName(), Name: m.GetName(),
		AuthorName: m.GetAuthorName(), Author: storage.AccountID(m.GetAuthor()), Edited: edited,
		Premium: m.GetPremium(), Hidden: m.GetHidden(), Start: nonNil(m.GetStart()), Laning: nonNil(m.GetLaning()),
		Core: nonNil(m.GetCore()), Luxury: nonNil(m.GetLuxury()), Abil: nonNil(m.GetAbil()), Intro: m.GetIntro(),
		Up: m.GetUp(), Down: m.GetDown(), ArchiveKey: m.GetArchiveKey()}
}

// LoadGuide reads one stored guide, hidden or not; ErrNotFound when none.
func LoadGuide(db *storage.DB, gid GuideID) (Guide, error) {
	m, err := guideKS.Get(db, gidKey(gid))
	if errors.Is(err, storage.ErrNotFound) {
		return Guide{}, Fail(ReasonNotFound, fmt.Errorf("gid %d", gid))
	} else if err != nil {
		return Guide{}, Fail(ReasonInternal, err)
	}
	return guideFromPB(m), nil
}

// LoadGuides reads every stored guide (hero "" ) or one hero's, hidden
// ones included, in gid order.
func LoadGuides(db *storage.DB, hero string) ([]Guide, error) {
	var out []Guide
	err := guideKS.Each(db, "", func(_ string, m *guidespb.Guide) error {
		if hero == "" || m.GetHero() == hero {
			out = append(out, guideFromPB(m))
		}
		return nil
	})
	if err != nil {
		return nil, Fail(ReasonInternal, err)
	}
	return out, nil
}

// voteScanner reads every account's vote records (for NewTally).
type voteScanner struct{ db *storage.DB }

func (s voteScanner) ScanVotes(fn func(VoteRecord) error) error {
	return voteKS.EachAll(s.db, func(id storage.AccountID, _ string, m *guidespb.Mark) error {
		return fn(VoteRecord{Account: id, Gid: GuideID(m.GetGid()), Vote: Vote(m.GetVote()), Young: m.GetYoung()})
	})
}

// LoadTally rebuilds the players' counts from every stored vote record.
func LoadTally(db *storage.DB) (*Tally, error) { return NewTally(voteScanner{db}) }

// ImportResult tells what an import did.
type ImportResult struct {
	Added, Updated int
	Gids           []GuideID // in file order
	// Refused are the guides of the file that were left out, one per
	// guide with all its problems, in file order.
	Refused []*ImportError
}

// ImportOptions are an operator's choices for an import.
type ImportOptions struct {
	// Strict stores nothing when any guide of the file is refused (guides
	// import --strict). Without it the file's valid guides are stored and
	// the refused ones listed in ImportResult.Refused.
	Strict bool
}

// Import parses an import file of either format (ParseImport) and stores
// its valid guides in one global commit: a new gid is added, a known one is
// updated (Merge: content, counts and premium from the file; a hidden
// guide stays hidden). Authors whose name is an account's login become
// that account's. Guides with problems are left out and listed in the
// result. Nothing is stored, and the error (ErrImport, joining every
// refusal) names the problems, when the file as a whole is unreadable,
// when every guide of it is refused, or when any is and opts.Strict. The
// whole import (parse included) runs in the global writer, so that the
// gids given to archived guides see every stored guide and two imports
// never race; a large file holds the writer for its parse.
func Import(ctx context.Context, sys *actors.System, data []byte, opts ImportOptions) (ImportResult, error) {
	res, err := sys.UpdateGlobal(ctx, func(g *actors.GlobalTx) (any, error) {
		db := g.DB()
		taken := func(gid GuideID) (string, bool) {
			m, err := guideKS.Get(db, gidKey(gid))
			if err != nil {
				return "", false
			}
			return m.GetArchiveKey(), true
		}
		gs, refused, err := ParseImport(data, taken)
		if err != nil {
			return nil, err
		}
		if len(refused) > 0 && (opts.Strict || len(gs) == 0) {
			errs := make([]error, len(refused))
			for i, r := range refused {
				errs[i] = r
			}
			return nil, errors.Join(errs...)
		}
		res, err := putGuides(g, gs, false)
		res.Refused = refused
		return res, err
	})
	if err != nil {
		return ImportResult{}, err
	}
	return res.(ImportResult), nil
}

// Seed stores guides whose gid is not stored yet, leaving stored ones as
// they are (serve --demo: an operator's hide or premium survives a
// restart), authors resolved as for Import.
func Seed(ctx context.Context, sys *actors.System, gs []Guide) (ImportResult, error) {
	res, err := sys.UpdateGlobal(ctx, func(g *actors.GlobalTx) (any, error) { return putGuides(g, gs, true) })
	if err != nil {
		return ImportResult{}, err
	}
	return res.(ImportResult), nil
}

func putGuides(g *actors.GlobalTx, gs []Guide, onlyNew bool) (ImportResult, error) {
	db := g.DB()
	gs = slices.Clone(gs)
	ResolveAuthors(gs, func(name string) (storage.AccountID, bool) {
		id, err := db.LoginID(name)
		return id, err == nil
	})
	var res ImportResult
	for i := range gs {
		var stored *Guide
		if m, err := guideKS.Get(db, gidKey(gs[i].Gid)); err == nil {
			s := guideFromPB(m)
			stored = &s
		} else if !errors.Is(err, storage.ErrNotFound) {
			return res, err
		}
		if stored != nil && onlyNew {
			continue
		}
		if stored != nil && stored.Hero != gs[i].Hero {
			// Players' votes and their default and favourite marks are
			// records of the gid: moved to another hero, the new guide
			// would start with the old one's ratings and a voter's thumb.
			return res, &ImportError{Guide: fmt.Sprintf("gid %d (%q)", gs[i].Gid, gs[i].Name),
				Problem: fmt.Sprintf("the stored guide of this gid is for %s, not %s: a re-import cannot move a gid to another hero (its votes are for that guide); give the new guide another gid",
					stored.Hero, gs[i].Hero)}
		}
		merged := Merge(stored, gs[i])
		if err := guideKS.Put(g, gidKey(merged.Gid), guideToPB(&merged)); err != nil {
			return res, err
		}
		if stored == nil {
			res.Added++
		} else {
			res.Updated++
		}
		res.Gids = append(res.Gids, merged.Gid)
	}
	return res, nil
}

// Moderate changes one stored guide's operator flags in one global
// commit: hidden (hide/unhide) when hidden is non-nil, premium when premium
// is non-nil. ErrNotFound for an unknown gid.
func Moderate(ctx context.Context, sys *actors.System, gid GuideID, hidden, premium *bool) (Guide, error) {
	res, err := sys.UpdateGlobal(ctx, func(g *actors.GlobalTx) (any, error) {
		cur, err := LoadGuide(g.DB(), gid)
		if err != nil {
			return nil, err
		}
		if hidden != nil {
			cur.Hidden = *hidden
		}
		if premium != nil {
			cur.Premium = *premium
		}
		return cur, guideKS.Put(g, gidKey(gid), guideToPB(&cur))
	})
	if err != nil {
		return Guide{}, err
	}
	return res.(Guide), nil
}

// catalog is an immutable view of every stored guide, shared by requests.
type catalog struct {
	version uint64
	byGid   map[GuideID]*Guide
	byHero  map[string][]*Guide // gid order, hidden ones included
	heads   sync.Map            // GuideID -> string: the guide's list entry head, made when first listed
}

// head is the list entry fields of g that depend on the guide alone (see
// appendHead), made once per catalog version.
func (c *catalog) head(g *Guide) string {
	if h, ok := c.heads.Load(g.Gid); ok {
		return h.(string)
	}
	h := string(appendHead(nil, g.Gid, g.Edited, g.AuthorName, g.Name))
	c.heads.Store(g.Gid, h)
	return h
}

// catalogCache reloads the guides when the global writer has changed them
// (System.GlobalVersion of guides.guide), so list requests read memory.
type catalogCache struct {
	sys *actors.System
	cur atomic.Pointer[catalog]
	mu  sync.Mutex // one reload at a time; never held by a reader of a fresh view
}

func (c *catalogCache) get() (*catalog, error) {
	v := c.sys.GlobalVersion(guideKS.Name())
	if cat := c.cur.Load(); cat != nil && cat.version == v {
		return cat, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cat := c.cur.Load(); cat != nil && cat.version == v {
		return cat, nil
	}
	gs, err := LoadGuides(c.sys.DB(), "")
	if err != nil {
		return nil, err
	}
	cat := &catalog{version: v, byGid: make(map[GuideID]*Guide, len(gs)), byHero: map[string][]*Guide{}}
	for i := range gs {
		g := &gs[i]
		cat.byGid[g.Gid] = g
		cat.byHero[g.Hero] = append(cat.byHero[g.Hero], g)
	}
	c.cur.Store(cat)
	return cat, nil
}
