package guides

import (
	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/guides/internal/guidespb"
)

// dropVotes is the service's actors.DeleteHook: a deleted account's vote
// records go with the account (the deletion removes every record of it),
// and its votes leave the guides' counts once that commit succeeded, by
// the same deltas a changed vote uses. A restart rebuilds the counts from
// the records left, without the deleted account's: both agree.
func (s *Service) dropVotes(tx *actors.Tx) (func(), error) {
	var votes []VoteRecord
	err := voteKS.Each(tx.DB(), tx.ID(), "", func(_ string, m *guidespb.Mark) error {
		votes = append(votes, VoteRecord{Account: tx.ID(), Gid: GuideID(m.GetGid()), Vote: Vote(m.GetVote()), Young: m.GetYoung()})
		return nil
	})
	if err != nil || len(votes) == 0 {
		return nil, err
	}
	return func() {
		var byGid map[GuideID]*Guide
		if cat, err := s.cat.get(); err == nil {
			byGid = cat.byGid
		}
		for _, v := range votes {
			hero := "" // unknown: every hero's generation moves
			if g := byGid[v.Gid]; g != nil {
				hero = g.Hero
			}
			s.tally.Apply(hero, v.Gid, Ballot{Vote: v.Vote, Young: v.Young}, Ballot{})
		}
	}, nil
}
