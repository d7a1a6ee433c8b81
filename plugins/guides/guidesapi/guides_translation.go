package guidesapi

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/honmaster/masterserver/plugins/guides/guidesapi/internal/pb"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Converters between the guides contract and its wire form. fromProto
// functions check shape (ranges) so a malformed message never becomes a
// plain Go value; meaning is checked by Validate functions.

func newRankFacts() *pb.RankFacts       { return &pb.RankFacts{} }
func newRankDecision() *pb.RankDecision { return &pb.RankDecision{} }
func newVoteFacts() *pb.VoteFacts       { return &pb.VoteFacts{} }
func newVoteDecision() *pb.VoteDecision { return &pb.VoteDecision{} }

// The codecs of the area's decisions (Rank, Vote).
var (
	rankFacts  = rankFactsCodec()
	rankResult = sdk.ProtoCodec(rankDecisionToProto, rankDecisionFromProto, newRankDecision)
	voteFacts  = sdk.ProtoCodec(voteFactsToProto, voteFactsFromProto, newVoteFacts)
	voteResult = sdk.ProtoCodec(voteDecisionToProto, voteDecisionFromProto, newVoteDecision)
)

func gidsToProto(gs []GuideID) []uint32 {
	out := make([]uint32, len(gs))
	for i, g := range gs {
		out[i] = uint32(g)
	}
	return out
}

func gidsFromProto(gs []uint32) []GuideID {
	if len(gs) == 0 {
		return nil
	}
	out := make([]GuideID, len(gs))
	for i, g := range gs {
		out[i] = GuideID(g)
	}
	return out
}

// rankFactsCodec is the rank facts' codec: ProtoCodec's, except that facts
// carrying shared candidates (WithShared) are encoded as their own small
// fields followed by the candidates' stored bytes. Protobuf decodes
// concatenated encodings as one message, and the small part never carries
// the candidates field (empty bytes are not encoded in proto3), so the
// plugin decodes exactly the facts a full encoding gives.
func rankFactsCodec() sdk.Codec[GuideRankFacts] {
	c := sdk.ProtoCodec(rankFactsToProto, rankFactsFromProto, newRankFacts)
	full := c.Marshal
	c.Marshal = func(f GuideRankFacts) ([]byte, error) {
		s := f.sharedCandidates()
		if s == nil {
			return full(f)
		}
		f.Candidates = nil
		b, err := full(f)
		if err != nil {
			return nil, err
		}
		return append(b, s.wire...), nil
	}
	return c
}

// candidateSize is the length of one candidate record in RankFacts.candidates.
const candidateSize = 25

func appendCandidates(b []byte, cs []GuideCandidate) []byte {
	b = slices.Grow(b, len(cs)*candidateSize)
	for _, c := range cs {
		var edited int64
		if !c.Edited.IsZero() {
			edited = c.Edited.Unix()
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(c.Gid))
		b = binary.LittleEndian.AppendUint32(b, c.Up)
		b = binary.LittleEndian.AppendUint32(b, c.Down)
		b = binary.LittleEndian.AppendUint32(b, uint32(c.Author))
		b = binary.LittleEndian.AppendUint64(b, uint64(edited))
		var premium byte
		if c.Premium {
			premium = 1
		}
		b = append(b, premium)
	}
	return b
}

// youngSize is the length of one candidate's record in RankFacts.young.
const youngSize = 8

// appendYoung appends the young counts of cs, or nothing when none has
// any (the common case costs no byte).
func appendYoung(b []byte, cs []GuideCandidate) []byte {
	if !slices.ContainsFunc(cs, func(c GuideCandidate) bool { return c.YoungUp != 0 || c.YoungDown != 0 }) {
		return b
	}
	b = slices.Grow(b, len(cs)*youngSize)
	for _, c := range cs {
		b = binary.LittleEndian.AppendUint32(b, c.YoungUp)
		b = binary.LittleEndian.AppendUint32(b, c.YoungDown)
	}
	return b
}

func rankFactsToProto(f GuideRankFacts) *pb.RankFacts {
	return &pb.RankFacts{Account: uint32(f.Account), Hero: f.Hero, DefaultGid: uint32(f.Default),
		Favorites: gidsToProto(f.Favorites), Candidates: appendCandidates(nil, f.Candidates),
		Young: appendYoung(nil, f.Candidates)}
}

func rankFactsFromProto(m *pb.RankFacts) (GuideRankFacts, error) {
	f := GuideRankFacts{Account: GuideAccount(m.GetAccount()), Hero: m.GetHero(),
		Default: GuideID(m.GetDefaultGid()), Favorites: gidsFromProto(m.GetFavorites())}
	b := m.GetCandidates()
	if len(b)%candidateSize != 0 {
		return GuideRankFacts{}, fmt.Errorf("%w: candidates of %d bytes, not a multiple of %d", sdk.ErrInvalidFacts, len(b), candidateSize)
	}
	n := len(b) / candidateSize
	if n > 0 {
		f.Candidates = make([]GuideCandidate, n)
	}
	young := m.GetYoung()
	if len(young) != 0 && len(young) != n*youngSize {
		return GuideRankFacts{}, fmt.Errorf("%w: young counts of %d bytes for %d candidates, want 0 or %d", sdk.ErrInvalidFacts, len(young), n, n*youngSize)
	}
	le := binary.LittleEndian
	for i := range f.Candidates {
		r := b[i*candidateSize : (i+1)*candidateSize]
		if r[24] > 1 {
			return GuideRankFacts{}, fmt.Errorf("%w: candidate %d: premium byte %d", sdk.ErrInvalidFacts, i, r[24])
		}
		c := GuideCandidate{Gid: GuideID(le.Uint32(r)), Up: le.Uint32(r[4:]), Down: le.Uint32(r[8:]),
			Author: GuideAccount(le.Uint32(r[12:])), Premium: r[24] == 1}
		if s := int64(le.Uint64(r[16:])); s != 0 {
			c.Edited = time.Unix(s, 0).UTC()
		}
		if len(young) != 0 {
			y := young[i*youngSize : (i+1)*youngSize]
			c.YoungUp, c.YoungDown = le.Uint32(y), le.Uint32(y[4:])
			if err := c.checkYoung(); err != nil {
				return GuideRankFacts{}, fmt.Errorf("%w: candidate %d: %w", sdk.ErrInvalidFacts, i, err)
			}
		}
		f.Candidates[i] = c
	}
	return f, nil
}

func rankDecisionToProto(d GuideRankDecision) *pb.RankDecision {
	return &pb.RankDecision{Order: gidsToProto(d.Order), Shared: d.Shared}
}

func rankDecisionFromProto(m *pb.RankDecision) (GuideRankDecision, error) {
	if n := len(m.GetOrder()); n > MaxGuideList {
		return GuideRankDecision{}, fmt.Errorf("%w: %d guides, at most %d", sdk.ErrInvalidDecision, n, MaxGuideList)
	}
	return GuideRankDecision{Order: gidsFromProto(m.GetOrder()), Shared: m.GetShared()}, nil
}

func voteFromProto(v pb.Vote) (GuideVote, error) {
	g := GuideVote(v)
	if v < 0 || !g.Valid() {
		return 0, fmt.Errorf("%w: vote %d", sdk.ErrInvalidFacts, int32(v))
	}
	return g, nil
}

func voteFactsToProto(f GuideVoteFacts) *pb.VoteFacts {
	return &pb.VoteFacts{Account: uint32(f.Account), Gid: uint32(f.Gid), Author: uint32(f.Author),
		Previous: pb.Vote(f.Previous), New: pb.Vote(f.New)}
}

func voteFactsFromProto(m *pb.VoteFacts) (GuideVoteFacts, error) {
	prev, err := voteFromProto(m.GetPrevious())
	if err != nil {
		return GuideVoteFacts{}, err
	}
	next, err := voteFromProto(m.GetNew())
	if err != nil {
		return GuideVoteFacts{}, err
	}
	return GuideVoteFacts{Account: GuideAccount(m.GetAccount()), Gid: GuideID(m.GetGid()),
		Author: GuideAccount(m.GetAuthor()), Previous: prev, New: next}, nil
}

func voteDecisionToProto(d GuideVoteDecision) *pb.VoteDecision {
	return &pb.VoteDecision{Counts: d.Counts}
}

func voteDecisionFromProto(m *pb.VoteDecision) (GuideVoteDecision, error) {
	return GuideVoteDecision{Counts: m.GetCounts()}, nil
}
