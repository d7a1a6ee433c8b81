package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"math"
	"net"
	"os"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/wire"
)

// messageOverhead is what a forwarded request or its reply carries beside
// the request's body: its query (bounded by the HTTP server's header
// buffer), user agent, the protobuf framing of at most wire's field limit
// of fields, and protoactor's envelope (PIDs, type name).
const messageOverhead = 1 << 20

// maxMessage is the largest message the cluster port accepts: the largest
// forwarded request (a body of server.body_limit) and its overhead. Each
// gRPC message carries one protoactor message (remote's batching is off,
// see transport), or one request or reply of a forwarding stream, so no
// legitimate message is larger.
func (cfg Config) maxMessage() int {
	body := cfg.BodyLimit
	if body <= 0 {
		body = wire.DefaultLimits.MaxBody
	}
	return int(min(body+messageOverhead, math.MaxInt32))
}

// tlsOn reports whether the cluster port speaks mutual TLS.
func (cfg Config) tlsOn() bool { return cfg.TLSCert != "" || cfg.TLSKey != "" || cfg.TLSCA != "" }

// transport is protoactor remote's gRPC set-up of the cluster port:
//   - mutual TLS with the cluster's CA when configured: a connection that
//     does not present a node's certificate is closed in its handshake,
//     before anything it sends reaches an actor; without it the port must
//     be on the loopback (Start refuses anything else);
//   - messages of at most maxMessage bytes, one protoactor message each;
//   - the remoting service's unary calls (ListProcesses,
//     GetProcessDiagnostics, which protoactor leaves to panic "implement
//     me") answered Unimplemented, and a panic while a peer's stream is
//     read recovered: the stream ends, not the node;
//   - streams, when not nil, serves every method the remoting service does
//     not: the forwarding streams (stream.go), under the same TLS, limit
//     and recovery; it answers any other method Unimplemented.
//
// It returns protoactor's options and the dial options of the forwarding
// streams' connections.
func transport(cfg Config, log *slog.Logger, listenHost, advHost string, streams grpc.StreamHandler) ([]remote.ConfigOption, []grpc.DialOption, error) {
	srv := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(cfg.maxMessage()),
		grpc.MaxSendMsgSize(cfg.maxMessage()),
		grpc.UnaryInterceptor(refuseUnary),
		grpc.StreamInterceptor(recoverStream(log)),
		grpc.InitialWindowSize(flowWindow),
		grpc.InitialConnWindowSize(flowWindow),
		grpc.KeepaliveParams(cfg.keepaliveParams()),
	}
	if streams != nil {
		// The forwarding streams (stream.go): protoactor registers only
		// its remoting service on the server it makes.
		srv = append(srv, grpc.UnknownServiceHandler(streams))
	}
	creds := insecure.NewCredentials()
	if cfg.tlsOn() {
		server, client, err := loadTLS(cfg, advHost)
		if err != nil {
			return nil, nil, err
		}
		srv = append(srv, grpc.Creds(credentials.NewTLS(server)))
		creds = credentials.NewTLS(client)
	} else if !config.IsLoopback(listenHost) {
		return nil, nil, fmt.Errorf("cluster listen address %q is not a loopback address and the cluster port has no certificates "+
			"(cluster.tls_cert, cluster.tls_key, cluster.tls_ca): any machine that reaches it could act as a node; "+
			"make certificates with honmaster cluster certs, or listen on 127.0.0.1", cfg.Listen)
	}
	dial := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithInitialWindowSize(flowWindow),
		grpc.WithInitialConnWindowSize(flowWindow),
	}
	return []remote.ConfigOption{
		remote.WithServerOptions(srv...),
		remote.WithDialOptions(dial...),
		// One protoactor message per gRPC message, so that maxMessage,
		// sized for one forwarded request, holds for every message (a
		// batch of a few uploads would exceed it).
		remote.WithEndpointWriterBatchSize(1),
		// The queue of messages to a peer starts with room for this many
		// and grows when it must: protoactor's default of a million
		// slots is 16 MB per peer, allocated when the peer is first
		// reached, which the garbage collector scanned at every cycle
		// (about 5% of a loaded node's CPU, issue 35 item 7).
		remote.WithEndpointWriterQueueSize(endpointQueue),
	}, dial, nil
}

// keepaliveParams is the cluster port's keepalive: a connection that
// carried nothing to this node for keepaliveIdle gets an HTTP/2 PING,
// and is closed when the PING is not answered within keepaliveTimeout.
//
// A peer that vanished (its machine died or was cut off, so that no FIN
// came) is dropped from the topology by its missed probes, which ends
// this node's links to it (membersChanged). The connections it opened to
// this node are not links of this node's: without keepalive they lasted
// until TCP gave up, up to about 15 minutes with replies unacknowledged,
// and a home's replies to it, once they filled the connection's flow
// window, held the home's workers as long. With it they end within
// keepaliveIdle + keepaliveTimeout of the peer's last message.
//
// Only the port (the server side) pings: a node of an earlier version
// answers PINGs as any HTTP/2 peer must, while pings from a client would
// trip its server's default enforcement (a PING more often than every 5
// minutes ends the connection). Between live nodes the PINGs are rare: a
// connection with a probe on it every ProbeInterval is never idle, and an
// idle link gets one PING (and its answer) per keepaliveIdle.
func (cfg Config) keepaliveParams() keepalive.ServerParameters {
	if cfg.keepalive != nil {
		return *cfg.keepalive
	}
	return keepalive.ServerParameters{Time: keepaliveIdle, Timeout: keepaliveTimeout}
}

const (
	keepaliveIdle    = 15 * time.Second
	keepaliveTimeout = 15 * time.Second
)

// endpointQueue is the initial room of the queue to each peer.
const endpointQueue = 1024

// flowWindow is the HTTP/2 flow-control window of each connection of the
// cluster port and of its one stream (protoactor sends everything to a
// peer on one stream). Set, it replaces gRPC's dynamic window, which
// starts at 64 KiB and grows by measuring the bandwidth-delay product with
// a PING after every DATA frame that arrives while no such PING is out:
// between idle nodes, whose probes are each one small message, that was a
// PING and its answer for every probe and every reply, both ways (issue
// 35 item 7). 8 MiB covers a link of 1 Gbit/s with 60 ms round trips, and
// a forwarded upload of a few MiB goes in one window; a node never
// buffers more than the window for a peer that does not read.
const flowWindow = 8 << 20

// loadTLS reads the node's certificate, key and the cluster's CA, checks
// that the certificate is one the other nodes accept (signed by the CA,
// for servers and clients, naming advHost), and returns the server's and
// the client's TLS configurations: both require the other side's
// certificate, signed by the CA.
func loadTLS(cfg Config, advHost string) (server, client *tls.Config, err error) {
	if cfg.TLSCert == "" || cfg.TLSKey == "" || cfg.TLSCA == "" {
		return nil, nil, fmt.Errorf("cluster.tls_cert, cluster.tls_key and cluster.tls_ca go together: give all three or none")
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster.tls_cert %s with cluster.tls_key %s: %w", cfg.TLSCert, cfg.TLSKey, err)
	}
	caPEM, err := os.ReadFile(cfg.TLSCA)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster.tls_ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, nil, fmt.Errorf("cluster.tls_ca %s holds no PEM certificate", cfg.TLSCA)
	}
	leaf := cert.Leaf
	for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
			return nil, nil, fmt.Errorf("cluster.tls_cert %s is not a node certificate of the CA in cluster.tls_ca %s "+
				"(make both with honmaster cluster certs): %w", cfg.TLSCert, cfg.TLSCA, err)
		}
	}
	if ip := net.ParseIP(advHost); advHost != "" && (ip == nil || !ip.IsUnspecified()) {
		if err := leaf.VerifyHostname(advHost); err != nil {
			return nil, nil, fmt.Errorf("cluster.tls_cert %s is for %s, not for %s, which the other nodes dial (cluster.advertise, else cluster.listen): "+
				"make this node's certificate with honmaster cluster certs --nodes NAME=%s", cfg.TLSCert, certNames(leaf), advHost, advHost)
		}
	}
	server = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool,
		MinVersion: tls.VersionTLS13}
	client = &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS13}
	return server, client, nil
}

func certNames(c *x509.Certificate) string {
	names := append([]string(nil), c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		return "no address"
	}
	return strings.Join(names, ", ")
}

// refuseUnary answers every unary call of the cluster port: the remoting
// service's two (ListProcesses, GetProcessDiagnostics) are not implemented
// by protoactor, whose stubs panic.
func refuseUnary(context.Context, any, *grpc.UnaryServerInfo, grpc.UnaryHandler) (any, error) {
	return nil, status.Error(codes.Unimplemented, "not served")
}

// recoverStream ends a stream whose handling panicked (a malformed batch
// makes protoactor's reader index out of range) instead of the process.
func recoverStream(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		defer func() {
			if r := recover(); r != nil {
				from := "unknown"
				if p, ok := peer.FromContext(ss.Context()); ok {
					from = p.Addr.String()
				}
				log.Error("cluster port: a peer's message could not be read; its connection was closed", "peer", from,
					"method", info.FullMethod, "panic", fmt.Sprint(r))
				err = status.Error(codes.Internal, "malformed message")
			}
		}()
		return handler(srv, ss)
	}
}
