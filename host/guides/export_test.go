package guides

import (
	"context"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/server"
)

// CeilingRoutes are the no-op ceilings of the guide benchmarks, on the
// same server code as the real functions: each parses its request and
// authenticates it exactly like the real function (cookie through the
// login service, account check), then answers a reply of the real shape
// without catalog, marks, tally, plugin, actor or commit. list is the
// 20-entry list text the list ceiling answers.
func (s *Service) CeilingRoutes(listFunc, voteFunc string, list string) []server.Route {
	a := s.area
	return []server.Route{
		area.NewRoute(a.replies, area.Route[ListRequest, listReply]{Func: listFunc, Decode: ParseList, Fail: guideFail[ListRequest, listReply],
			Serve: func(_ context.Context, req ListRequest) (listReply, error) {
				if err := a.authenticate(req.Caller); err != nil {
					return listReply{}, err
				}
				return listReply{status: ok, GuideList: list, HostTime: req.HostTime}, nil
			}}),
		area.NewRoute(a.replies, area.Route[VoteRequest, voteReply]{Func: voteFunc, Decode: ParseVote, Fail: guideFail[VoteRequest, voteReply],
			Serve: func(_ context.Context, req VoteRequest) (voteReply, error) {
				if err := a.authenticate(req.Caller); err != nil {
					return voteReply{}, err
				}
				return voteReply{status: ok, Vote: voteValue(req.Vote), HostTime: req.HostTime}, nil
			}}),
	}
}

// RankCalls is how many ranking decisions the service has asked of the
// plugin (the others were reused).
func (s *Service) RankCalls() uint64 { return s.rankCalls.Load() }

// RankJoins is how many lists waited for another list's plugin call.
func (s *Service) RankJoins() uint64 { return s.rankJoins.Load() }

// SetMaxMemoBallots sets the bound of an account's ballots memo for a test
// and returns what restores it.
func SetMaxMemoBallots(n int) (restore func()) {
	old := maxMemoBallots
	maxMemoBallots = n
	return func() { maxMemoBallots = old }
}
