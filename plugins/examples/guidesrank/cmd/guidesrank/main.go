// Command guidesrank is the reversed-ranking guides plugin of package
// guidesrank, as a binary an operator points [plugins.guides] path at.
package main

import "github.com/honmaster/masterserver/plugins/examples/guidesrank"

func main() { guidesrank.Serve() }
