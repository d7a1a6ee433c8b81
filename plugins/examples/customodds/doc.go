// Command customodds is an example replacement plinko plugin. It changes
// only the odds and reuses the contract's default decider
// (plinkoapi.DefaultDecider) for everything else (payouts, exhausted
// chests, prize pick, randomness).
//
// Build it and point the host's plinko area at the binary:
//
//	go build -o /usr/local/lib/honmaster/customodds ./plugins/examples/customodds
package main
