// Package plinko provides the bundled plinko plugin: the contract's
// default decider (plinkoapi.DefaultDecider, the specification's proposed
// odds) served over go-plugin.
//
// The host binary carries it and runs it by re-executing itself in plugin
// mode (as Packer and Terraform do with their bundled plugins): the
// supervisor starts "honmaster plugin plinko", and host/cli's plugin mode
// serves the bundled plugin the area registered (host/area.Module.Bundled:
// Plugin). Serve is for other programs that start this plugin from their
// own binary, such as a test binary that starts a supervisor and re-executes
// itself as the plugin (plugins/supervisor's TestMain):
//
//	func TestMain(m *testing.M) {
//		if os.Getenv("SUPERVISOR_TEST_HELPER") == "plinko" { // set on the command the supervisor starts
//			plinko.Serve() // never returns
//		}
//		os.Exit(m.Run())
//	}
//
// Configuration can point the plinko area at an external binary instead
// (supervisor.Source.Path); that binary calls sdk.Serve itself.
package plinko
