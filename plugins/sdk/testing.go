package sdk

import (
	"context"
	"testing"

	"github.com/hashicorp/go-plugin"
)

// Mock returns a plugin that serves decision d with fn (a func field in
// all but name): tests set the behaviour per case. Add more decisions with
// Handle. A *Plugin is a Caller, so a test may call it directly (in
// process) or through TestClient (over gRPC).
func Mock[F, D any](d *Decision[F, D], fn func(ctx context.Context, c Call[F]) (Result[D], error)) *Plugin {
	p := &Plugin{Name: "mock", Version: "0", Configure: func(context.Context, Area, map[string]any) []ConfigProblem { return nil }}
	Handle(p, d, fn)
	return p
}

// TestClient serves p over a real in-process gRPC connection
// (plugin.TestPluginGRPCConn) and returns the host-side client, so a test
// sees exactly what crosses the process boundary: codecs, status codes,
// sentinel errors and batching. Everything is closed when the test ends.
func TestClient(t testing.TB, p *Plugin) *Client {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, plugin.PluginSet{dispenseName: &grpcPlugin{impl: p}})
	// Close asks the server to stop through go-plugin's controller service;
	// stopping the server here as well would race inside go-plugin.
	t.Cleanup(func() { _ = client.Close() })
	c, err := Dispense(client)
	if err != nil {
		t.Fatalf("sdk: dispense: %v", err)
	}
	return c
}
