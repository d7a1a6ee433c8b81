// Command host is the Heroes of Newerth master server: run "honmaster serve" to
// serve the game client, "host help" for the operator commands. The binary
// also carries the bundled plugins: the server re-executes it as
// "honmaster plugin AREA" to run them.
package main

import (
	"context"
	"os"

	"github.com/honmaster/masterserver/host/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
