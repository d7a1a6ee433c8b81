// Package plinko provides the bundled plinko plugin: the SDK's default
// decider (sdk.DefaultPlinko) served over go-plugin.
//
// The host binary carries it and runs it by re-executing itself in plugin
// mode (as Packer and Terraform do with their bundled plugins):
//
//	// in the host's main, before anything else:
//	if len(os.Args) >= 3 && os.Args[1] == "plugin" && os.Args[2] == "plinko" {
//		plinko.Serve() // never returns
//	}
//
// Configuration can point the plinko area at an external binary instead
// (supervisor.Source.Path); that binary calls sdk.Serve itself.
package plinko
