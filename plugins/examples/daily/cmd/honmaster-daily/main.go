// Command honmaster-daily is the master server with the daily-reward
// example area: host/main.go's main plus the area's one import line.
package main

import (
	"context"
	"os"

	"github.com/honmaster/masterserver/host/cli"

	_ "github.com/honmaster/masterserver/plugins/examples/daily/dailyarea" // the daily-reward area
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
