package guides

import (
	"fmt"
	"strconv"
	"time"

	"github.com/honmaster/masterserver/host/limit"
)

// VoteBudget bounds the votes cast from one client address over all its
// accounts (limits.guide_votes_per_address and
// guide_votes_per_guide_address): every account has one vote per guide,
// so without it one address with twenty accounts moves a guide's rating
// as it likes. A zero Rate is no budget; Keys bounds the keys each limiter
// remembers (0: limit.DefaultMaxKeys).
type VoteBudget struct {
	PerAddress      limit.Rate // votes on any guides
	PerGuideAddress limit.Rate // votes on one and the same guide
	Keys            int
}

// voteLimits is a VoteBudget's limiters; a nil *voteLimits allows all.
type voteLimits struct {
	any, one *limit.Keyed
}

func (b VoteBudget) limiters(now func() time.Time) *voteLimits {
	return &voteLimits{any: limit.NewAdjustable(b.PerAddress, b.Keys, now), one: limit.NewAdjustable(b.PerGuideAddress, b.Keys, now)}
}

// SetVoteBudget changes Deps.Votes' rates (limits.guide_votes_per_address
// and guide_votes_per_guide_address, a configuration reload): what an
// address spent stays spent, capped at the new bursts; a zero rate turns a
// budget off. Keys stays as built.
func (s *Service) SetVoteBudget(b VoteBudget) {
	s.area.votes.any.SetRate(b.PerAddress)
	s.area.votes.one.SetRate(b.PerGuideAddress)
}

// spend takes a vote on gid from the address ip out of both budgets, or
// refuses it as the vote rule refuses one (vote_refused): the client
// knows that answer. The address's overall token is taken first, so that
// an address out of votes cannot create per-guide buckets (one per
// visible guide it votes on) and crowd the limiter's table until its own
// buckets are evicted; it is given back when the guide's budget refuses
// the vote.
// Taking it (Allow) rather than checking it and charging it after the
// guide's budget allowed the vote keeps the budget under votes sent at
// once: every one of them passed the check before any was charged (64 of
// 64 against a burst of 5).
func (l *voteLimits) spend(ip string, gid GuideID) error {
	if l == nil {
		return nil
	}
	if ok, wait := l.any.Allow(ip); !ok {
		return Fail(ReasonVoteRefused, fmt.Errorf("votes from %s: next in %v", ip, wait))
	}
	if ok, wait := l.one.Allow(strconv.FormatUint(uint64(gid), 10) + "\x00" + ip); !ok {
		l.any.Refund(ip)
		return Fail(ReasonVoteRefused, fmt.Errorf("votes on guide %d from %s: next in %v", gid, ip, wait))
	}
	return nil
}

// refund gives back the vote spend took on gid from ip: the vote was
// refused with nothing written and its rule not asked, or asked in vain
// (a full disk, the plugin down): the player's retry once it passes must
// not find the budget used up by votes that never counted.
func (l *voteLimits) refund(ip string, gid GuideID) {
	l.any.Refund(ip)
	l.one.Refund(strconv.FormatUint(uint64(gid), 10) + "\x00" + ip)
}

// SetMarkBudget changes Deps.Marks (a configuration reload), as
// SetVoteBudget.
func (s *Service) SetMarkBudget(r limit.WriteRates) { s.area.marks.SetRates(r) }
