package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/plugins/sdk/internal/pb"
	"github.com/honmaster/masterserver/plugins/supervisor"
)

// crossLangEnv selects the "other language" plugin role of this test
// binary; its value is the version of test.pick the plugin claims.
const crossLangEnv = "SDK_TEST_CROSSLANG"

func TestMain(m *testing.M) {
	if v := os.Getenv(crossLangEnv); v != "" {
		n, _ := strconv.Atoi(v)
		serveCrossLang(uint32(n))
		return
	}
	os.Exit(m.Run())
}

// serveCrossLang is a plugin written as one would in another language: it
// uses only code generated from .proto files (proto/plugin.proto, and
// protobuf's wrappers.proto for the test area's messages), a gRPC server
// with the standard health service, and go-plugin's documented handshake (check the
// magic cookie, print "CORE|APP|tcp|ADDR|grpc" on stdout). Nothing of
// package sdk.
func serveCrossLang(version uint32) {
	if os.Getenv("HONMASTER_PLUGIN_MAGIC_COOKIE") != "4f1d3a0c8e2b47a6b9d5c7e1f0a2b3c4-honmaster-plugin" {
		fmt.Fprintln(os.Stderr, "not started by the host")
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(1)
	}
	s := grpc.NewServer()
	hs := health.NewServer()
	hs.SetServingStatus("plugin", healthpb.HealthCheckResponse_SERVING) // go-plugin's health check name
	healthpb.RegisterHealthServer(s, hs)
	pb.RegisterPluginServer(s, &rawPlugin{version: version})
	fmt.Printf("1|2|tcp|%s|grpc\n", ln.Addr())
	_ = s.Serve(ln)
	os.Exit(0)
}

// rawPlugin always picks the last option and appends "+" to the state. It serves
// no DecideBatch (the host falls back to Decide).
type rawPlugin struct {
	pb.UnimplementedPluginServer
	version uint32
}

func (p *rawPlugin) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	return &pb.InfoResponse{Name: "crosslang", Version: "0.1",
		Decisions: []*pb.DecisionInfo{{Name: "test.pick", Version: p.version}}}, nil
}

func (p *rawPlugin) Configure(_ context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	if string(req.GetConfigJson()) != "{}" {
		return &pb.ConfigureResponse{Problems: []*pb.ConfigProblem{{Key: "*", Message: "takes no settings"}}}, nil
	}
	return &pb.ConfigureResponse{}, nil
}

func (p *rawPlugin) Ping(context.Context, *pb.PingRequest) (*pb.PingResponse, error) {
	return &pb.PingResponse{}, nil
}

func (p *rawPlugin) Decide(_ context.Context, req *pb.DecideRequest) (*pb.DecideResponse, error) {
	var facts wrapperspb.BytesValue
	if err := proto.Unmarshal(req.GetFacts(), &facts); err != nil || req.GetDecision() != "test.pick" {
		return nil, fmt.Errorf("bad request")
	}
	dec, _ := proto.Marshal(wrapperspb.Int64(int64(len(facts.GetValue()) - 1)))
	return &pb.DecideResponse{Decision: dec, State: append(req.GetState(), '+')}, nil
}

func crossLangSource(version int) (supervisor.Source, supervisor.Options) {
	return supervisor.Source{
			Area: sdk.PickArea, Path: os.Args[0], Args: []string{"-test.run=^$"},
			Env:          []string{crossLangEnv + "=" + strconv.Itoa(version), "GORACE=atexit_sleep_ms=0"},
			StartTimeout: 30 * time.Second, CallTimeout: 5 * time.Second,
		}, supervisor.Options{
			Logger: slog.New(slog.DiscardHandler),
		}
}

func TestCrossLanguagePlugin(t *testing.T) {
	src, opts := crossLangSource(1)
	s := supervisor.New(src, opts)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if st := s.Status(); st.Plugin != "crosslang" || st.PluginVersion != "0.1" {
		t.Fatalf("status %+v", st)
	}
	facts := sdk.PickFacts{Options: []byte("xyz")}
	state := []byte("s")
	for range 3 {
		res, err := sdk.Pick.Decide(context.Background(), s, sdk.Call[sdk.PickFacts]{Facts: facts, State: state})
		if err != nil {
			t.Fatal(err)
		}
		want := sdk.PickDecision{Index: 2}
		if res.Decision != want || string(res.State) != string(state)+"+" {
			t.Fatalf("decision %+v state %q", res, res.State)
		}
		state = res.State
	}
}

func TestCrossLanguageWrongVersionRefused(t *testing.T) {
	src, opts := crossLangSource(9)
	s := supervisor.New(src, opts)
	defer s.Stop()
	err := s.Start(context.Background())
	if !errors.Is(err, supervisor.ErrContract) {
		t.Fatalf("Start = %v, want ErrContract", err)
	}
	for _, want := range []string{"test plugin", "test.pick v9", "needs v1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
