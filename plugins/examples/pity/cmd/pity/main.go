// Command pity is the pity-timer plinko plugin of package pity, as a
// binary an operator points [plugins.plinko] path at.
package main

import "github.com/honmaster/masterserver/plugins/examples/pity"

func main() { pity.Serve() }
