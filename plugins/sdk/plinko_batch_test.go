package sdk

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/honmaster/masterserver/plugins/sdk/internal/pb"
)

// echoPlinko decides tier 1 + AccountID mod 6 and refuses accounts that are
// multiples of 7, so every caller can check it got its own answer.
func echoPlinko(calls *atomic.Int64) *MockPlinko {
	return &MockPlinko{DropFunc: func(_ context.Context, f DropFacts) (DropDecision, error) {
		calls.Add(1)
		if f.AccountID%7 == 0 {
			return DropDecision{}, ErrInvalidFacts
		}
		t := Tier(1 + f.AccountID%6)
		d := DropDecision{Tier: t, PrizeIndex: -1, Tickets: t.Tickets()}
		if t.IsChest() {
			d.PrizeIndex = 0
		}
		return d, nil
	}}
}

func concurrentDrops(t *testing.T, p Plinko, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func(id uint32) {
			defer wg.Done()
			f := DropFacts{AccountID: id, Currency: CurrencyTickets, Unowned: [4]int{1, 1, 1, 1}}
			d, err := p.Drop(context.Background(), f)
			if id%7 == 0 {
				if !errors.Is(err, ErrInvalidFacts) {
					t.Errorf("account %d: err = %v, want ErrInvalidFacts", id, err)
				}
				return
			}
			if err != nil || d.Tier != Tier(1+id%6) {
				t.Errorf("account %d: got %+v, %v; want tier %d", id, d, err, 1+id%6)
			}
		}(uint32(i))
	}
	wg.Wait()
}

// TestDropBatching sends many concurrent drops over the real gRPC
// transport: each caller gets its own decision or error, in spite of
// sharing batches.
func TestDropBatching(t *testing.T) {
	var calls atomic.Int64
	p := TestPlinkoClient(t, echoPlinko(&calls))
	concurrentDrops(t, p, 500)
	if calls.Load() != 500 {
		t.Errorf("implementation decided %d drops, want 500", calls.Load())
	}
	if p.(*plinkoGRPCClient).batch.unsupported.Load() {
		t.Error("batching switched off against a plugin that supports it")
	}
}

// legacyServer is a plugin built before DropBatch existed.
type legacyServer struct{ *plinkoGRPCServer }

func (legacyServer) DropBatch(context.Context, *pb.DropBatchRequest) (*pb.DropBatchResponse, error) {
	return nil, status.Error(codes.Unimplemented, "unknown method DropBatch")
}

type legacyPlugin struct{ PlinkoPlugin }

func (p *legacyPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterPlinkoServer(s, legacyServer{&plinkoGRPCServer{impl: p.Impl}})
	return nil
}

// TestDropBatchFallback: against a plugin without DropBatch the host falls
// back to one Drop call per drop, with the same answers.
func TestDropBatchFallback(t *testing.T) {
	var calls atomic.Int64
	client, _ := plugin.TestPluginGRPCConn(t, false, plugin.PluginSet{
		string(AreaPlinko): &legacyPlugin{PlinkoPlugin{Impl: echoPlinko(&calls)}},
	})
	t.Cleanup(func() { _ = client.Close() })
	raw, err := client.Dispense(string(AreaPlinko))
	if err != nil {
		t.Fatal(err)
	}
	p := raw.(Plinko)
	concurrentDrops(t, p, 100)
	if !p.(*plinkoGRPCClient).batch.unsupported.Load() {
		t.Error("batching not switched off against a plugin without DropBatch")
	}
	concurrentDrops(t, p, 50) // direct calls from now on
	if calls.Load() != 150 {
		t.Errorf("implementation decided %d drops, want 150", calls.Load())
	}
}

func TestDropBatchServerLimits(t *testing.T) {
	s := &plinkoGRPCServer{impl: echoPlinko(new(atomic.Int64))}
	big := &pb.DropBatchRequest{Drops: make([]*pb.DropRequest, maxDropBatch+1)}
	if _, err := s.DropBatch(context.Background(), big); status.Code(err) != codes.InvalidArgument {
		t.Errorf("oversized batch: %v", err)
	}
	resp, err := s.DropBatch(context.Background(), &pb.DropBatchRequest{Drops: []*pb.DropRequest{
		factsToProto(DropFacts{AccountID: 1, Currency: CurrencyTickets}),
		{AccountId: 2, Currency: "tickets", Unowned: []int64{0, 0, 0}}, // three counts, not four,
		factsToProto(DropFacts{AccountID: 7, Currency: CurrencyTickets}),
	}})
	if err != nil || len(resp.Results) != 3 {
		t.Fatalf("DropBatch = %v, %v", resp, err)
	}
	if resp.Results[0].Code != 0 || resp.Results[0].Decision == nil {
		t.Errorf("first result %v", resp.Results[0])
	}
	for _, i := range []int{1, 2} {
		if codes.Code(resp.Results[i].Code) != codes.InvalidArgument {
			t.Errorf("result %d code %v, want InvalidArgument", i, codes.Code(resp.Results[i].Code))
		}
	}
}
