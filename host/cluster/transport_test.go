//go:build !race

package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/cluster/clustertest"
	"github.com/honmaster/masterserver/storage"
)

// testCerts makes a CA and a certificate for each of names (on
// 127.0.0.1) in a new directory.
func testCerts(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	var nodes []CertNode
	for _, n := range names {
		nodes = append(nodes, CertNode{Name: n, Hosts: []string{"127.0.0.1"}})
	}
	if _, err := MakeCerts(dir, nodes); err != nil {
		t.Fatal(err)
	}
	return dir
}

// withTLS gives each node its certificate from dir.
func withTLS(dir string) func(Config) Config {
	return func(c Config) Config {
		c.TLSCert, c.TLSKey, c.TLSCA = filepath.Join(dir, c.Node+".pem"), filepath.Join(dir, c.Node+"-key.pem"), filepath.Join(dir, CAFile)
		return c
	}
}

// connect opens protoactor's remoting stream to addr as a peer would and
// asks to connect; the error says why the node would not talk.
func connect(ctx context.Context, addr string, creds credentials.TransportCredentials) (remote.Remoting_ReceiveClient, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, func() { _ = conn.Close() })
	stream, err := remote.NewRemotingClient(conn).Receive(ctx)
	if err != nil {
		return nil, err
	}
	if err := stream.Send(&remote.RemoteMessage{MessageType: &remote.RemoteMessage_ConnectRequest{ConnectRequest: &remote.ConnectRequest{
		ConnectionType: &remote.ConnectRequest_ServerConnection{ServerConnection: &remote.ServerConnection{SystemId: "stranger", Address: "127.0.0.1:1"}},
	}}}); err != nil {
		return nil, err
	}
	m, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	if m.GetConnectResponse() == nil {
		return nil, errors.New("no connect response")
	}
	return stream, nil
}

func clientTLS(t *testing.T, dir, name string) credentials.TransportCredentials {
	t.Helper()
	pool := x509.NewCertPool()
	ca, err := os.ReadFile(filepath.Join(dir, CAFile))
	if err != nil || !pool.AppendCertsFromPEM(ca) {
		t.Fatalf("CA: %v", err)
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13}
	if name != "" {
		cert, err := tls.LoadX509KeyPair(filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return credentials.NewTLS(cfg)
}

// TestClusterPortAdmitsOnlyNodes: with certificates the nodes form their
// cluster over mutual TLS, and a process that is not a node (plain gRPC,
// TLS without a certificate, or a certificate of another CA) cannot even
// connect: nothing it sends (a Ping learning the cluster's name, a forged
// Forward in a player's name, a Stop) reaches an actor. Before, the port
// spoke plain gRPC to anyone.
func TestClusterPortAdmitsOnlyNodes(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dir := testCerts(t, "a", "b")
	nodes := startNodesWith(t, db, withTLS(dir), "a", "b")
	waitMembers(t, nodes, 2)
	if _, err := nodes[0].sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "p"}); err != nil {
		t.Fatal(err)
	}
	for _, via := range nodes {
		forward(t, via, "p") // served by its home, across nodes when needed
	}
	// A node's own certificate connects (the test's client is right).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := connect(ctx, nodes[0].n.self, clientTLS(t, dir, "b")); err != nil {
		t.Fatalf("a node's certificate: %v", err)
	}
	other := testCerts(t, "a")
	for _, c := range []struct {
		name  string
		creds credentials.TransportCredentials
	}{
		{"plain gRPC", insecure.NewCredentials()},
		{"TLS without a certificate", clientTLS(t, dir, "")},
		{"a certificate of another CA", clientTLS(t, other, "a")},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := connect(ctx, nodes[0].n.self, c.creds)
		cancel()
		if err == nil {
			t.Errorf("%s: connected to the cluster port", c.name)
		}
	}
	if err := nodes[0].n.Health(); err != nil {
		t.Fatal(err)
	}
}

// TestRemotingCallsCannotEndTheNode: protoactor's remoting service has two
// unary calls whose stubs panic ("implement me"), and its stream reader
// indexes a batch's tables as the batch says; one call from any process
// that reached the port ended the node. Now the calls are refused and a
// malformed batch closes its stream only.
func TestRemotingCallsCannotEndTheNode(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Without TLS (on loopback), where any local process reaches the port.
	nodes := startNodes(t, db, "a")
	waitMembers(t, nodes, 1)
	addr := nodes[0].n.self
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rc := remote.NewRemotingClient(conn)
	if _, err := rc.ListProcesses(ctx, &remote.ListProcessesRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("ListProcesses: %v, want Unimplemented", err)
	}
	if _, err := rc.GetProcessDiagnostics(ctx, &remote.GetProcessDiagnosticsRequest{Pid: actor.NewPID(addr, memberActorName)}); status.Code(err) != codes.Unimplemented {
		t.Errorf("GetProcessDiagnostics: %v, want Unimplemented", err)
	}
	stream, err := connect(ctx, addr, insecure.NewCredentials())
	if err != nil {
		t.Fatal(err)
	}
	// A target index past the batch's table of targets.
	if err := stream.Send(&remote.RemoteMessage{MessageType: &remote.RemoteMessage_MessageBatch{MessageBatch: &remote.MessageBatch{
		TypeNames: []string{"x"}, Envelopes: []*remote.MessageEnvelope{{Target: 7, Sender: 9}},
	}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); status.Code(err) != codes.Internal {
		t.Errorf("a malformed batch: %v, want its stream closed (Internal)", err)
	}
	// The node lives on and still serves.
	if _, err := nodes[0].sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "p"}); err != nil {
		t.Fatal(err)
	}
	forward(t, nodes[0], "p")
}

// TestClusterPortRefusesOversizedMessages: the port accepted messages of
// up to 2 GiB from anyone; now a message larger than the largest
// forwarded request (server.body_limit and its overhead) closes its
// stream, and the node goes on.
func TestClusterPortRefusesOversizedMessages(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes := startNodesWith(t, db, func(c Config) Config { c.BodyLimit = 1 << 20; return c }, "a")
	waitMembers(t, nodes, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := connect(ctx, nodes[0].n.self, insecure.NewCredentials())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&remote.RemoteMessage{MessageType: &remote.RemoteMessage_MessageBatch{MessageBatch: &remote.MessageBatch{
		TypeNames: []string{"x"}, Targets: []*actor.PID{actor.NewPID(nodes[0].n.self, "nobody")},
		Envelopes: []*remote.MessageEnvelope{{MessageData: make([]byte, 3<<20)}},
	}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("a 3 MiB message under a 1 MiB body limit: %v, want ResourceExhausted", err)
	}
	if err := nodes[0].n.Health(); err != nil {
		t.Fatal(err)
	}
}

// TestClusterStartRefusesAnOpenPortWithoutTLS: without certificates the
// port admits anyone, so a node refuses to listen off loopback, with a
// sentence naming the way out; a certificate that does not name the
// address the others dial is refused as well (they could not connect).
func TestClusterStartRefusesAnOpenPortWithoutTLS(t *testing.T) {
	addr := clustertest.FreeAddrs(t, 1)[0]
	port := addr[strings.LastIndex(addr, ":"):]
	base := Config{Name: "test", Node: "a", ProbeInterval: time.Second, ProbeTimeout: time.Second, ProbeFailures: 3, RequestTimeout: time.Second}
	for _, listen := range []string{"0.0.0.0" + port, port, "192.0.2.1" + port} {
		cfg := base
		cfg.Listen = listen
		n, err := Start(cfg)
		if err == nil {
			n.Stop()
			t.Fatalf("listen %q without TLS: started", listen)
		}
		for _, want := range []string{"not a loopback address", "honmaster cluster certs"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("listen %q: %q lacks %q", listen, err, want)
			}
		}
	}
	dir := t.TempDir()
	if _, err := MakeCerts(dir, []CertNode{{Name: "a", Hosts: []string{"10.0.0.11"}}}); err != nil {
		t.Fatal(err)
	}
	cfg := withTLS(dir)(base)
	cfg.Listen = addr
	n, err := Start(cfg)
	if err == nil {
		n.Stop()
		t.Fatal("a certificate for 10.0.0.11 accepted for a node the others dial at 127.0.0.1")
	}
	if !strings.Contains(err.Error(), "not for 127.0.0.1") || !strings.Contains(err.Error(), "--nodes NAME=127.0.0.1") {
		t.Errorf("wrong certificate: %q", err)
	}
}
