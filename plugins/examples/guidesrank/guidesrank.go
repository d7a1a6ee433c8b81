// Package guidesrank is an example guides plugin that ranks a hero's list
// in reverse: the bundled order turned around (lowest rated first, the
// default last). It exists to show and test that the guides area is
// swappable; an operator's real plugin would rank, for example, by a
// confidence bound on the upvote fraction. Votes all count.
package guidesrank

import (
	"slices"

	"github.com/honmaster/masterserver/plugins/guides"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Name is the plugin's name as its Info reports it.
const Name = "guidesrank"

// Reverse ranks every candidate in the bundled order reversed, cut to the
// list's limit.
func Reverse(f guides.RankFacts) guides.RankDecision {
	all := f
	order := make([]guides.GuideID, 0, len(f.Candidates))
	// Rank keeps only the best MaxList: rank repeatedly without them to get
	// the whole order, then reverse it.
	rest := slices.Clone(f.Candidates)
	for len(rest) > 0 {
		all.Candidates = rest
		d := guides.Rank(all)
		order = append(order, d.Order...)
		rest = slices.DeleteFunc(rest, func(c guides.Candidate) bool { return slices.Contains(d.Order, c.Gid) })
	}
	slices.Reverse(order)
	return guides.RankDecision{Order: order[:min(len(order), guides.MaxList)]}
}

// Plugin is the example plugin.
func Plugin() *sdk.Plugin { return guides.RulesPlugin(Name, Reverse, guides.AcceptVote) }

// Serve serves Plugin to the host that started this process.
func Serve() { sdk.Serve(Plugin()) }
