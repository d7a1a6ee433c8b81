// Package sdk is the one generic contract between the master server host
// and its feature-area plugins, and everything a plugin author needs.
//
// Plugins are stateless processes. For each decision the host sends the
// facts and the plugin's own state for that (area, account); the plugin
// returns a decision and its new state; the host checks the decision
// (DecisionDef.Check) and applies it exactly as given, storing the state in
// the same commit, or refuses it. A plugin never touches storage.
//
// An area is declared once: RegisterArea names it, and NewDecision
// registers each of its decisions with the plain Go types of its facts and
// decision (F, D), their codecs to the area's protobuf messages
// (ProtoCodec) and the host's check. Everything else is generic: the gRPC
// transport (proto/plugin.proto: Info, Configure, Ping, Decide,
// DecideBatch), cross-request batching, errors as gRPC status codes mapped
// back to the sentinels (ErrInvalidFacts, ErrUnavailable, ...), Serve, the
// in-process Mock and the gRPC TestClient.
//
// The SDK knows no area: each area's contract is a package of its own that
// builds on this one (plugins/plinko/plinkoapi, plugins/guides/guidesapi,
// plugins/reports/reportsapi).
//
// A plugin binary builds a Plugin, adds a handler per decision and serves:
//
//	p := &sdk.Plugin{Name: "mine", Version: "1"}
//	sdk.Handle(p, plinkoapi.Drop, decide)
//	sdk.Serve(p)
//
// The host runs plugins through package supervisor, which is a Caller:
//
//	res, err := plinkoapi.Drop.Decide(ctx, sup, sdk.Call[plinkoapi.DropFacts]{Facts: f, State: st})
package sdk
