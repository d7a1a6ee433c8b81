// Package sdk provides the contract between the master server host and its
// feature-area plugins, and everything a plugin author needs to write one.
//
// Plugins are stateless deciders: the host sends the facts a decision needs,
// the plugin returns a decision, and the host validates it and applies it
// through the account's actor. A plugin never touches storage.
//
// Each area has a plain Go interface (Plinko), plain Go structs for its
// facts and decisions, and a default implementation (DefaultPlinko). The
// gRPC transport is hidden: protobuf types never appear in an exported
// signature, and errors cross the process boundary as gRPC status codes that
// the host side maps back to the sentinel errors of this package
// (ErrInvalidFacts, ErrUnavailable, ...), usable with errors.Is.
//
// A plugin binary is a tiny main that calls Serve:
//
//	func main() {
//		sdk.Serve(sdk.ServeOpts{Plinko: sdk.PlinkoWithOdds(sdk.Odds{0.10, 0.10, 0.20, 0.20, 0.20, 0.20})})
//	}
//
// The host runs plugins through package supervisor; tests use MockPlinko or
// TestPlinkoClient from testing.go.
package sdk
