package guides

import (
	"context"

	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
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
		{Func: listFunc, Area: areaName, Fail: a.Fail, Handler: func(_ context.Context, r *wire.Request) server.Response {
			req, err := ParseList(r)
			if err == nil {
				err = a.authenticate(req.Caller)
			}
			if err != nil {
				return a.fail(FuncList, req.HostTime, err)
			}
			return a.php(listReply{status: ok, GuideList: list, HostTime: req.HostTime})
		}},
		{Func: voteFunc, Area: areaName, Fail: a.Fail, Handler: func(_ context.Context, r *wire.Request) server.Response {
			req, err := ParseVote(r)
			if err == nil {
				err = a.authenticate(req.Caller)
			}
			if err != nil {
				return a.fail(FuncVote, req.HostTime, err)
			}
			return a.php(voteReply{status: ok, Vote: voteValue(req.Vote), HostTime: req.HostTime})
		}},
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
