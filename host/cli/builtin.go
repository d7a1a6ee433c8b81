package cli

// The areas this server serves: each registers itself (host/area) from
// its own package. Adding an area to the server is one line here (or in
// another program's main package, see docs/adding-an-area.md).
import (
	_ "github.com/honmaster/masterserver/host/cloud"   // cloud storage of the client's settings (no plugin)
	_ "github.com/honmaster/masterserver/host/guides"  // hero guides
	_ "github.com/honmaster/masterserver/host/matches" // game servers, matches and their statistics
	_ "github.com/honmaster/masterserver/host/plinko"  // Plinko and the ticket exchange
	_ "github.com/honmaster/masterserver/host/reports" // player reports and their moderation

	_ "github.com/honmaster/masterserver/plugins/examples/coinflip/coinfliparea" // the coin-flip example (docs/adding-an-area.md)
)
