// Package matches is the bundled plugin of the matches area (contract:
// package matchesapi). It is stateless and has no settings: for each
// participant of a recorded match it decides the totals delta the
// submitted facts call for (matchesapi.Expected: one match played, a win,
// loss, concede or disconnect where the facts say so, the K/D/A, one game
// of the hero, in the match's bucket, with the server's skill and rating
// changes where they count). The host checks the decision against the facts
// (matchesapi.Check) and applies it through each participant's actor.
package matches

import (
	"context"

	"github.com/honmaster/masterserver/plugins/matches/matchesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Name and Version, as "honmaster plugins" shows them.
const (
	Name    = "matches"
	Version = "1.1.0"
)

// Plugin returns the plugin.
func Plugin() *sdk.Plugin {
	p := &sdk.Plugin{Name: Name, Version: Version}
	sdk.Handle(p, matchesapi.Tally, tally)
	return p
}

// Decide is the plugin's rule, apart from the transport.
func Decide(f matchesapi.TallyFacts) matchesapi.TallyDecision {
	d := matchesapi.TallyDecision{Deltas: make([]matchesapi.Delta, len(f.Players))}
	for i, p := range f.Players {
		d.Deltas[i] = matchesapi.Expected(f.Bucket, p)
	}
	return d
}

func tally(_ context.Context, c sdk.Call[matchesapi.TallyFacts]) (sdk.Result[matchesapi.TallyDecision], error) {
	return sdk.Result[matchesapi.TallyDecision]{Decision: Decide(c.Facts)}, nil
}
