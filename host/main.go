// Command honmaster is the Heroes of Newerth master server: run "honmaster
// serve" to serve the game client, "honmaster help" for the operator
// commands. Its main package lives in host/, so build it with
// "go build -o honmaster ./host" (a plain "go build ./host" names the binary
// host). The binary also carries the bundled plugins: the server re-executes
// it as "honmaster plugin AREA" to run them.
package main

import (
	"context"
	"os"

	"github.com/honmaster/masterserver/host/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
