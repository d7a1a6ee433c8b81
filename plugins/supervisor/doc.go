// Package supervisor provides the host side of the plugin system: it runs
// one feature-area plugin as a subprocess, keeps it alive, and hands the
// host a stable handle to it.
//
// A Supervisor launches the plugin (the host binary itself, re-executed as
// "honmaster plugin <area>", or an external binary), negotiates the go-plugin
// handshake, checks with Info that the plugin serves every decision of the
// area in the right version, and hands it the operator's configuration
// (Configure). It then pings the plugin every PingInterval: a plugin that
// exits, or does not answer a ping within PingTimeout (hung, SIGSTOPped),
// is killed and restarted with a bounded backoff (the first retry is
// immediate), and configured again. Calls made while it is down fail fast
// with an error wrapping sdk.ErrUnavailable; every call carries a timeout.
// A Supervisor is an sdk.Caller: the area's decisions (which check what
// they get) are called through it.
//
//	sup := supervisor.New(supervisor.Source{Area: plinkoapi.Area}, supervisor.Options{Logger: log})
//	if err := sup.Start(ctx); err != nil {
//		return err
//	}
//	defer sup.Stop()
//	res, err := plinkoapi.Drop.Decide(ctx, sup, sdk.Call[plinkoapi.DropFacts]{Facts: facts, State: state})
//
// On Linux a plugin gets SIGKILL when the host dies (Pdeathsig), and a
// plugin served by sdk.Serve also exits when its parent changes, so a host
// killed with SIGKILL leaves no orphan behind.
package supervisor
