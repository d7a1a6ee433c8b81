package plinko

import (
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Serve serves plinkoapi.DefaultDecider (the spec's proposed odds, crypto/rand) to
// the host that started this process, then exits the process. Call it only
// when the host re-executed itself as "honmaster plugin plinko".
func Serve() { sdk.Serve(Plugin()) }

// Plugin is the bundled plinko plugin.
func Plugin() *sdk.Plugin { return (&plinkoapi.DefaultDecider{Name: "bundled"}).Plugin() }
