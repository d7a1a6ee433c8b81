package sdk

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/honmaster/masterserver/plugins/sdk/internal/pb"
)

// PlinkoPlugin is the go-plugin adapter for the plinko area. Plugins set
// Impl (Serve does this); the host side leaves it nil and gets a Plinko
// from Dispense.
type PlinkoPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl Plinko
}

var (
	_ plugin.GRPCPlugin = (*PlinkoPlugin)(nil)
	_ Plinko            = (*plinkoGRPCClient)(nil)
	_ pb.PlinkoServer   = (*plinkoGRPCServer)(nil)
)

// GRPCServer registers the plinko service backed by p.Impl.
func (p *PlinkoPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterPlinkoServer(s, &plinkoGRPCServer{impl: p.Impl})
	return nil
}

// GRPCClient returns a Plinko that calls the plugin over conn.
func (p *PlinkoPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	c := &plinkoGRPCClient{client: pb.NewPlinkoClient(conn)}
	c.batch.c = c
	return c, nil
}

// plinkoGRPCClient is the host side: Go calls in, gRPC out, sentinels back.
type plinkoGRPCClient struct {
	client pb.PlinkoClient
	batch  dropBatcher
}

func (c *plinkoGRPCClient) Info(ctx context.Context) (PlinkoInfo, error) {
	resp, err := c.client.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		return PlinkoInfo{}, fromStatus(ctx, err)
	}
	return infoFromProto(resp)
}

// Drop queues the drop for the next DropBatch call (see dropBatcher), or
// calls Drop directly when the plugin predates DropBatch.
func (c *plinkoGRPCClient) Drop(ctx context.Context, f DropFacts) (DropDecision, error) {
	if c.batch.unsupported.Load() {
		return c.dropOne(ctx, f)
	}
	return c.batch.submit(ctx, f)
}

func (c *plinkoGRPCClient) dropOne(ctx context.Context, f DropFacts) (DropDecision, error) {
	resp, err := c.client.Drop(ctx, factsToProto(f))
	if err != nil {
		return DropDecision{}, fromStatus(ctx, err)
	}
	return decisionFromProto(resp)
}

// plinkoGRPCServer is the plugin side: gRPC in, Go calls to impl, status out.
type plinkoGRPCServer struct {
	pb.UnimplementedPlinkoServer
	impl Plinko
}

func (s *plinkoGRPCServer) Info(ctx context.Context, _ *pb.InfoRequest) (*pb.InfoResponse, error) {
	if s.impl == nil {
		return nil, status.Error(codes.Unimplemented, "plinko: no implementation")
	}
	info, err := s.impl.Info(ctx)
	if err != nil {
		return nil, toStatus(err)
	}
	return infoToProto(info), nil
}

func (s *plinkoGRPCServer) Drop(ctx context.Context, req *pb.DropRequest) (*pb.DropResponse, error) {
	if s.impl == nil {
		return nil, status.Error(codes.Unimplemented, "plinko: no implementation")
	}
	f, err := factsFromProto(req)
	if err != nil {
		return nil, toStatus(err)
	}
	d, err := s.impl.Drop(ctx, f)
	if err != nil {
		return nil, toStatus(err)
	}
	return decisionToProto(d), nil
}

// DropBatch decides each drop with the implementation, in order. One drop's
// error is that drop's result; the others are still decided.
func (s *plinkoGRPCServer) DropBatch(ctx context.Context, req *pb.DropBatchRequest) (*pb.DropBatchResponse, error) {
	if s.impl == nil {
		return nil, status.Error(codes.Unimplemented, "plinko: no implementation")
	}
	if len(req.GetDrops()) > maxDropBatch {
		return nil, status.Errorf(codes.InvalidArgument, "plinko: batch of %d drops, at most %d", len(req.GetDrops()), maxDropBatch)
	}
	out := &pb.DropBatchResponse{Results: make([]*pb.DropResult, len(req.GetDrops()))}
	for i, m := range req.GetDrops() {
		f, err := factsFromProto(m)
		var d DropDecision
		if err == nil {
			d, err = s.impl.Drop(ctx, f)
		}
		if err != nil {
			st, _ := status.FromError(toStatus(err))
			out.Results[i] = &pb.DropResult{Code: int32(st.Code()), Message: st.Message()}
			continue
		}
		out.Results[i] = &pb.DropResult{Decision: decisionToProto(d)}
	}
	return out, nil
}
