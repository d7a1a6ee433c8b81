package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/honmaster/masterserver/plugins/sdk/internal/pb"
)

// grpcPlugin is the go-plugin adapter of the base contract. Plugins set impl
// (Serve does this); the host side leaves it nil and dispenses a *Client.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl *Plugin
}

var (
	_ plugin.GRPCPlugin = (*grpcPlugin)(nil)
	_ pb.PluginServer   = (*grpcServer)(nil)
	_ Caller            = (*Client)(nil)
)

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterPluginServer(s, &grpcServer{impl: p.impl})
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	c := &Client{rpc: pb.NewPluginClient(conn)}
	c.batch.c = c
	return c, nil
}

// Client is the host side of one plugin connection: Go calls in, gRPC out,
// sentinel errors back. Concurrent Decide calls share DecideBatch calls.
type Client struct {
	rpc   pb.PluginClient
	batch batcher
}

// SetBatchesInFlight sets how many DecideBatch calls may be in flight at
// once (n <= 0: DefaultBatchesInFlight). Call it before the first Decide.
func (c *Client) SetBatchesInFlight(n int) {
	c.batch.mu.Lock()
	defer c.batch.mu.Unlock()
	c.batch.inFlight = n
}

// maxControlReplyBytes bounds the replies of Info, Configure and Ping, as
// the host reads them: a few names and problems, where go-plugin's
// connection would read up to 2 GiB at every start and every ping.
const maxControlReplyBytes = 1 << 20

// maxInfoText bounds the plugin's name and version, and each decision's
// name, shown by "honmaster plugins" and the console.
const maxInfoText = 200

// Info asks the plugin for its name, version and decisions.
func (c *Client) Info(ctx context.Context) (Info, error) {
	resp, err := c.rpc.Info(ctx, &pb.InfoRequest{}, grpc.MaxCallRecvMsgSize(maxControlReplyBytes))
	if err != nil {
		return Info{}, fromStatus(ctx, err)
	}
	texts := []string{resp.GetName(), resp.GetVersion()}
	for _, d := range resp.GetDecisions() {
		texts = append(texts, d.GetName())
	}
	for _, t := range texts {
		if len(t) > maxInfoText {
			return Info{}, fmt.Errorf("the plugin's Info names a name or version of %d bytes (at most %d)", len(t), maxInfoText)
		}
	}
	info := Info{Name: resp.GetName(), Version: resp.GetVersion()}
	for _, d := range resp.GetDecisions() {
		info.Decisions = append(info.Decisions, DecisionInfo{Name: d.GetName(), Version: d.GetVersion()})
	}
	return info, nil
}

// Configure hands cfg to the plugin and returns the problems it found.
func (c *Client) Configure(ctx context.Context, area Area, cfg map[string]any) ([]ConfigProblem, error) {
	if cfg == nil {
		cfg = map[string]any{}
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("config of %s plugin cannot be sent: %w", area, err)
	}
	resp, err := c.rpc.Configure(ctx, &pb.ConfigureRequest{Area: string(area), ConfigJson: b}, grpc.MaxCallRecvMsgSize(maxControlReplyBytes))
	if err != nil {
		return nil, fromStatus(ctx, err)
	}
	var out []ConfigProblem
	for _, p := range resp.GetProblems() {
		out = append(out, ConfigProblem{Key: p.GetKey(), Message: p.GetMessage()})
	}
	return out, nil
}

// Ping is the liveness check.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.rpc.Ping(ctx, &pb.PingRequest{}, grpc.MaxCallRecvMsgSize(maxControlReplyBytes))
	return fromStatus(ctx, err)
}

// Decide queues the call for the next DecideBatch (see batcher), or calls
// Decide directly when the plugin serves no DecideBatch.
func (c *Client) Decide(ctx context.Context, decision string, facts, state []byte) (RawResult, error) {
	return c.DecideWithin(ctx, 0, decision, facts, state)
}

// DecideWithin is Decide bounded by timeout as well as by ctx (timeout <= 0:
// by ctx alone). It is what context.WithTimeout around Decide would do,
// without a timer per call (that timer was ~3% of a vote's server CPU): the
// bound is the deadline of the DecideBatch call that carries the decision,
// and a call still queued when its bound passes goes in the next batch,
// whose call then ends at once. A call in a batch stops waiting when the
// batch's call ends, at the latest deadline of its calls: the spread of
// arrival times of one batch, a few milliseconds, after its own.
func (c *Client) DecideWithin(ctx context.Context, timeout time.Duration, decision string, facts, state []byte) (RawResult, error) {
	req := &pb.DecideRequest{Decision: decision, Facts: facts, State: state}
	var by time.Time
	if timeout > 0 {
		by = time.Now().Add(timeout)
	}
	if dl, ok := ctx.Deadline(); ok && (by.IsZero() || dl.Before(by)) {
		by = dl
	}
	if c.batch.unsupported.Load() {
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, by)
			defer cancel()
		}
		return c.decideOne(ctx, req)
	}
	return c.batch.submit(ctx, by, req)
}

func (c *Client) decideOne(ctx context.Context, req *pb.DecideRequest) (RawResult, error) {
	resp, err := c.rpc.Decide(ctx, req, grpc.MaxCallRecvMsgSize(maxReplyBytes))
	if err != nil {
		return RawResult{}, fromStatus(ctx, err)
	}
	return RawResult{Decision: resp.GetDecision(), State: resp.GetState()}, nil
}

// grpcServer is the plugin side: gRPC in, Go calls to impl, status out.
type grpcServer struct {
	pb.UnimplementedPluginServer
	impl *Plugin
}

func (s *grpcServer) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	info := s.impl.Info()
	resp := &pb.InfoResponse{Name: info.Name, Version: info.Version}
	for _, d := range info.Decisions {
		resp.Decisions = append(resp.Decisions, &pb.DecisionInfo{Name: d.Name, Version: d.Version})
	}
	return resp, nil
}

func (s *grpcServer) Configure(ctx context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	cfg := map[string]any{}
	if len(req.GetConfigJson()) > 0 {
		if err := json.Unmarshal(req.GetConfigJson(), &cfg); err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "config is not a JSON object: %v", err)
		}
	}
	resp := &pb.ConfigureResponse{}
	for _, p := range s.impl.configure(ctx, Area(req.GetArea()), cfg) {
		resp.Problems = append(resp.Problems, &pb.ConfigProblem{Key: p.Key, Message: p.Message})
	}
	return resp, nil
}

func (s *grpcServer) Ping(context.Context, *pb.PingRequest) (*pb.PingResponse, error) {
	return &pb.PingResponse{}, nil
}

func (s *grpcServer) Decide(ctx context.Context, req *pb.DecideRequest) (*pb.DecideResponse, error) {
	res, err := s.impl.Decide(ctx, req.GetDecision(), req.GetFacts(), req.GetState())
	if err != nil {
		return nil, toStatus(err)
	}
	return &pb.DecideResponse{Decision: res.Decision, State: res.State}, nil
}

// DecideBatch decides each call in order. One call's error is that call's
// result; the others are still decided.
func (s *grpcServer) DecideBatch(ctx context.Context, req *pb.DecideBatchRequest) (*pb.DecideBatchResponse, error) {
	if len(req.GetCalls()) > maxBatch {
		return nil, status.Errorf(codes.InvalidArgument, "batch of %d calls, at most %d", len(req.GetCalls()), maxBatch)
	}
	out := &pb.DecideBatchResponse{Results: make([]*pb.DecideResult, len(req.GetCalls()))}
	for i, c := range req.GetCalls() {
		res, err := s.impl.Decide(ctx, c.GetDecision(), c.GetFacts(), c.GetState())
		if err != nil {
			st, _ := status.FromError(toStatus(err))
			out.Results[i] = &pb.DecideResult{Code: int32(st.Code()), Message: st.Message()}
			continue
		}
		out.Results[i] = &pb.DecideResult{Response: &pb.DecideResponse{Decision: res.Decision, State: res.State}}
	}
	return out, nil
}
