// Package supervisor provides the host side of the plugin system: it runs
// one feature-area plugin as a subprocess, keeps it alive, and hands the
// host a stable handle to it.
//
// A Supervisor launches the plugin (the host binary itself, re-executed as
// "host plugin <area>", or an external binary), negotiates the go-plugin
// handshake and the area's protocol version, and checks health with a first
// call. If the plugin dies it is restarted with a bounded backoff (the
// first retry is immediate). Calls made while it is down fail fast with an
// error wrapping sdk.ErrUnavailable; every call carries a timeout; every
// decision is validated before it is returned.
//
//	sup := supervisor.New(supervisor.Source{Area: sdk.AreaPlinko}, supervisor.Options{Logger: log})
//	if err := sup.Start(ctx); err != nil {
//		return err
//	}
//	defer sup.Stop()
//	decision, err := sup.Plinko().Drop(ctx, facts)
//
// On Linux a plugin gets SIGKILL when the host dies (Pdeathsig), and a
// plugin served by sdk.Serve also exits when its parent changes, so a host
// killed with SIGKILL leaves no orphan behind.
package supervisor
