package sdk

import (
	"fmt"
	"time"

	"github.com/honmaster/masterserver/plugins/sdk/internal/pb"
)

// Converters between the guides contract and its wire form. fromProto
// functions check shape (ranges) so a malformed message never becomes a
// plain Go value; meaning is checked by Validate functions.

func newRankFacts() *pb.RankFacts       { return &pb.RankFacts{} }
func newRankDecision() *pb.RankDecision { return &pb.RankDecision{} }
func newVoteFacts() *pb.VoteFacts       { return &pb.VoteFacts{} }
func newVoteDecision() *pb.VoteDecision { return &pb.VoteDecision{} }

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
// concatenated encodings as one message whose repeated fields are
// appended, so the plugin decodes exactly the facts a full encoding gives.
func rankFactsCodec() Codec[GuideRankFacts] {
	c := ProtoCodec(rankFactsToProto, rankFactsFromProto, newRankFacts)
	full := c.Marshal
	c.Marshal = func(f GuideRankFacts) ([]byte, error) {
		s := f.shared
		if s == nil || len(s.list) != len(f.Candidates) || (len(s.list) > 0 && &s.list[0] != &f.Candidates[0]) {
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

func rankFactsToProto(f GuideRankFacts) *pb.RankFacts {
	n := len(f.Candidates)
	m := &pb.RankFacts{Account: uint32(f.Account), Hero: f.Hero, DefaultGid: uint32(f.Default),
		Favorites: gidsToProto(f.Favorites), Gid: make([]uint32, n), Up: make([]uint32, n), Down: make([]uint32, n),
		Premium: make([]bool, n), Author: make([]uint32, n), EditedUnix: make([]int64, n)}
	for i, c := range f.Candidates {
		m.Gid[i], m.Up[i], m.Down[i], m.Premium[i], m.Author[i] = uint32(c.Gid), c.Up, c.Down, c.Premium, uint32(c.Author)
		if !c.Edited.IsZero() {
			m.EditedUnix[i] = c.Edited.Unix()
		}
	}
	return m
}

func rankFactsFromProto(m *pb.RankFacts) (GuideRankFacts, error) {
	f := GuideRankFacts{Account: GuideAccount(m.GetAccount()), Hero: m.GetHero(),
		Default: GuideID(m.GetDefaultGid()), Favorites: gidsFromProto(m.GetFavorites())}
	n := len(m.GetGid())
	for _, l := range []int{len(m.GetUp()), len(m.GetDown()), len(m.GetPremium()), len(m.GetAuthor()), len(m.GetEditedUnix())} {
		if l != n {
			return GuideRankFacts{}, fmt.Errorf("%w: candidate columns of %d and %d entries", ErrInvalidFacts, n, l)
		}
	}
	if n > 0 {
		f.Candidates = make([]GuideCandidate, n)
	}
	for i := range f.Candidates {
		var edited time.Time
		if s := m.EditedUnix[i]; s != 0 {
			edited = time.Unix(s, 0).UTC()
		}
		f.Candidates[i] = GuideCandidate{Gid: GuideID(m.Gid[i]), Up: m.Up[i], Down: m.Down[i],
			Premium: m.Premium[i], Author: GuideAccount(m.Author[i]), Edited: edited}
	}
	return f, nil
}

func rankDecisionToProto(d GuideRankDecision) *pb.RankDecision {
	return &pb.RankDecision{Order: gidsToProto(d.Order)}
}

func rankDecisionFromProto(m *pb.RankDecision) (GuideRankDecision, error) {
	if n := len(m.GetOrder()); n > MaxGuideList {
		return GuideRankDecision{}, fmt.Errorf("%w: %d guides, at most %d", ErrInvalidDecision, n, MaxGuideList)
	}
	return GuideRankDecision{Order: gidsFromProto(m.GetOrder())}, nil
}

func voteFromProto(v pb.Vote) (GuideVote, error) {
	g := GuideVote(v)
	if v < 0 || !g.Valid() {
		return 0, fmt.Errorf("%w: vote %d", ErrInvalidFacts, int32(v))
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
