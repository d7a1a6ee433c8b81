package sdk

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/honmaster/masterserver/plugins/sdk/internal/pb"
)

// rawPlugin serves the plugin service srv as a plugin process would, for
// tests of what the host's Client does with its replies.
type rawPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv pb.PluginServer
}

func (r rawPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterPluginServer(s, r.srv)
	return nil
}

func (rawPlugin) GRPCClient(ctx context.Context, b *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return (&grpcPlugin{}).GRPCClient(ctx, b, conn)
}

func rawClient(t *testing.T, srv pb.PluginServer) *Client {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, plugin.PluginSet{dispenseName: rawPlugin{srv: srv}})
	t.Cleanup(func() { _ = client.Close() })
	c, err := Dispense(client)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// hungWithoutBatch serves no DecideBatch (as a plugin in another language
// may not) and answers no Decide.
type hungWithoutBatch struct{ pb.UnimplementedPluginServer }

func (hungWithoutBatch) Decide(ctx context.Context, _ *pb.DecideRequest) (*pb.DecideResponse, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// The first call to a plugin without DecideBatch (every call after each
// start, until one is refused as Unimplemented) was sent again with Decide
// bounded by its caller's context alone: a hung plugin held it past its
// call timeout, here for ever. It ends at its timeout now. (From a
// review; failed before.)
func TestAPluginWithoutBatchesKeepsTheCallTimeout(t *testing.T) {
	c := rawClient(t, hungWithoutBatch{})
	for i := range 2 { // the first call finds DecideBatch missing; the second knows
		done := make(chan error, 1)
		go func() {
			_, err := c.DecideWithin(context.Background(), 200*time.Millisecond, "test.pick", nil, nil)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrUnavailable) {
				t.Errorf("call %d: err = %v, want ErrUnavailable", i, err)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("call %d with a timeout of 200ms to a hung plugin without DecideBatch did not end within 2 minutes", i)
		}
	}
}

// oversized answers Info with an oversized name, and Ping with 2 MiB of
// fields this host does not know (a broken plugin, or one built from a
// later plugin.proto).
type oversized struct {
	pb.UnimplementedPluginServer
	name string
}

func (o oversized) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	return &pb.InfoResponse{Name: o.name, Version: "1"}, nil
}

func (oversized) Ping(context.Context, *pb.PingRequest) (*pb.PingResponse, error) {
	r := &pb.PingResponse{}
	n := 2 << 20
	raw := []byte{0x7a} // field 15, bytes
	for v := n; ; v >>= 7 {
		if v < 0x80 {
			raw = append(raw, byte(v))
			break
		}
		raw = append(raw, byte(v)|0x80)
	}
	r.ProtoReflect().SetUnknown(append(raw, make([]byte, n)...))
	return r, nil
}

// Info, Configure and Ping were read with go-plugin's bound, 2 GiB, at
// every start and every ping; Info's name is shown by the console. They
// are read up to 1 MiB now, and a name longer than 200 bytes is refused.
// (From a review; failed before.)
func TestControlRepliesAreBounded(t *testing.T) {
	ctx := context.Background()
	c := rawClient(t, oversized{name: strings.Repeat("x", 2<<20)})
	if _, err := c.Info(ctx); err == nil {
		t.Error("an Info reply of 2 MiB was read whole")
	}
	if err := c.Ping(ctx); err == nil {
		t.Error("a Ping reply of 2 MiB was read whole")
	}
	c = rawClient(t, oversized{name: strings.Repeat("x", 201)})
	if _, err := c.Info(ctx); err == nil || !strings.Contains(err.Error(), "201 bytes") {
		t.Errorf("an Info name of 201 bytes: %v, want refused", err)
	}
	c = rawClient(t, oversized{name: "guides-rules"})
	if info, err := c.Info(ctx); err != nil || info.Name != "guides-rules" {
		t.Errorf("a plain Info: %+v, %v", info, err)
	}
}
