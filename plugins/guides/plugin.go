package guides

import (
	"context"

	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Plugin is the bundled guides plugin: Rank and AcceptVote serving the
// area's two decisions. The host binary carries it and runs it by
// re-executing itself as "honmaster plugin guides"; configuration can point the
// area at an external binary instead ([plugins.guides] path), which calls
// sdk.Serve with its own *sdk.Plugin.
func Plugin() *sdk.Plugin {
	return RulesPlugin("bundled", Rank, AcceptVote)
}

// RulesPlugin builds a guides plugin from a ranking and a vote rule, both
// stateless. An operator's plugin is one line:
//
//	func main() { sdk.Serve(guides.RulesPlugin("confidence", myRank, guides.AcceptVote)) }
func RulesPlugin(name string, rank func(RankFacts) RankDecision, vote func(VoteFacts) VoteDecision) *sdk.Plugin {
	p := &sdk.Plugin{Name: name, Version: "1"}
	sdk.Handle(p, guidesapi.Rank, func(_ context.Context, c sdk.Call[RankFacts]) (sdk.Result[RankDecision], error) {
		return sdk.Result[RankDecision]{Decision: rank(c.Facts), State: c.State}, nil
	})
	sdk.Handle(p, guidesapi.Vote, func(_ context.Context, c sdk.Call[VoteFacts]) (sdk.Result[VoteDecision], error) {
		return sdk.Result[VoteDecision]{Decision: vote(c.Facts), State: c.State}, nil
	})
	return p
}
