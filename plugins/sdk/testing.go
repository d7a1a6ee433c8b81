package sdk

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/go-plugin"
)

// MockPlinko is a Plinko whose behaviour is set per test through func
// fields. A nil InfoFunc reports DefaultOdds; a nil DropFunc fails with
// ErrPluginFailed.
type MockPlinko struct {
	InfoFunc func(ctx context.Context) (PlinkoInfo, error)
	DropFunc func(ctx context.Context, f DropFacts) (DropDecision, error)
}

var _ Plinko = (*MockPlinko)(nil)

// Info calls InfoFunc.
func (m *MockPlinko) Info(ctx context.Context) (PlinkoInfo, error) {
	if m.InfoFunc == nil {
		return PlinkoInfo{Name: "mock", Version: "0", Odds: DefaultOdds}, nil
	}
	return m.InfoFunc(ctx)
}

// Drop calls DropFunc.
func (m *MockPlinko) Drop(ctx context.Context, f DropFacts) (DropDecision, error) {
	if m.DropFunc == nil {
		return DropDecision{}, fmt.Errorf("%w: MockPlinko.DropFunc not set", ErrPluginFailed)
	}
	return m.DropFunc(ctx, f)
}

// TestPlinkoClient serves impl over a real in-process gRPC connection
// (plugin.TestPluginGRPCConn) and returns the host-side client, so a test
// sees exactly what crosses the process boundary: converters, status codes
// and sentinel errors. Everything is closed when the test ends.
func TestPlinkoClient(t testing.TB, impl Plinko) Plinko {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, plugin.PluginSet{
		string(AreaPlinko): &PlinkoPlugin{Impl: impl},
	})
	// Close asks the server to stop through go-plugin's controller service;
	// stopping the server here as well would race inside go-plugin.
	t.Cleanup(func() { _ = client.Close() })
	raw, err := client.Dispense(string(AreaPlinko))
	if err != nil {
		t.Fatalf("sdk: dispense %s: %v", AreaPlinko, err)
	}
	return raw.(Plinko)
}
