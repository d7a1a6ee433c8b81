// Package plinkoapi is the plinko area's contract, built on package sdk:
// the area (Area), its one decision Drop ("plinko.drop") with the plain Go
// facts and decision it carries (DropFacts, DropDecision), the tiers,
// currencies and odds they speak of, their wire form (proto/plinko.proto,
// converted in plinko_translation.go) and the default decider
// (DefaultDecider) that a plugin may serve as it is or with other odds
// (WithOdds).
//
// Both sides import it: the host's plinko area asks a plugin for Drop, a
// plugin serves it:
//
//	p := &sdk.Plugin{Name: "mine", Version: "1"}
//	sdk.Handle(p, plinkoapi.Drop, decide)
//	sdk.Serve(p)
package plinkoapi
