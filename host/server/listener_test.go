package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
)

// exhaustionChild is the environment variable that makes
// TestDescriptorExhaustionChild the server side of
// TestDescriptorExhaustion.
const exhaustionChild = "HONMASTER_FD_EXHAUSTION_CHILD"

// TestDescriptorExhaustionChild runs a server with a file limit of 64 and
// prints its address; the parent test drives it. It does nothing unless run
// by that test.
func TestDescriptorExhaustionChild(t *testing.T) {
	if os.Getenv(exhaustionChild) != "1" {
		t.Skip("run by TestDescriptorExhaustion")
	}
	lim := syscall.Rlimit{Cur: 64, Max: 64}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	s := New(Deps{Config: cfg, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("addr %s\n", ln.Addr())
	go func() {
		err := s.Serve(ln)
		fmt.Fprintf(os.Stderr, "SERVE RETURNED: %v\n", err)
	}()
	// Until the parent closes stdin (or a bound, should it die).
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
	}
}

// TestDescriptorExhaustion opens more idle connections than the server's
// file limit allows, so that accept fails with EMFILE, closes them, and
// checks that HTTP serves again (finding 1 of issue 9: fasthttp's accept
// loop used to give up for good).
func TestDescriptorExhaustion(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDescriptorExhaustionChild$", "-test.v")
	cmd.Env = append(os.Environ(), exhaustionChild+"=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	logs := make(chan string, 1024)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			select {
			case logs <- sc.Text():
			default:
			}
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait(); pw.Close() })

	sc := bufio.NewScanner(stdout)
	var addr string
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "addr "); ok {
			addr = a
			break
		}
	}
	if addr == "" {
		t.Fatalf("child printed no address; stderr:\n%s", stderr.String())
	}
	go io.Copy(io.Discard, stdout)

	// 200 idle connections against a limit of 64 descriptors.
	var conns []net.Conn
	for range 200 {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			break // the listen queue is full: enough
		}
		conns = append(conns, c)
	}
	// Wait (bounded) for the server to report the exhaustion.
	exhausted := false
	deadline := time.After(15 * time.Second)
	for !exhausted {
		select {
		case line := <-logs:
			exhausted = strings.Contains(line, "too many open files")
		case <-deadline:
			t.Fatalf("no accept error after %d connections; stderr:\n%s", len(conns), stderr.String())
		}
	}
	for _, c := range conns {
		c.Close()
	}

	// HTTP must come back.
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var lastErr error
	for range 15 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+PathHealth, nil)
		r, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(r.Body)
			r.Body.Close()
			cancel()
			if r.StatusCode == 200 && string(body) == "ok\n" {
				return
			}
			lastErr = fmt.Errorf("status %d %q", r.StatusCode, body)
		} else {
			cancel()
			lastErr = err
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("HTTP did not recover after the connections closed: %v; server stderr:\n%s", lastErr, stderr.String())
}

func TestConnectionLimits(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	gl := newGuardedListener(ln, 10, 3, slog.New(slog.DiscardHandler))
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := gl.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	var clients []net.Conn
	for range 4 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, c)
	}
	var served []net.Conn
	for range 3 {
		select {
		case c := <-accepted:
			served = append(served, c)
		case <-time.After(5 * time.Second):
			t.Fatal("a connection within the limit was not accepted")
		}
	}
	// The 4th from the same address is closed by the server: the client
	// reads EOF (or a reset).
	clients[3].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := clients[3].Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Errorf("4th connection from one address: read err %v; want closed by the server", err)
	}
	if gl.Open() != 3 {
		t.Errorf("open = %d, want 3", gl.Open())
	}
	// Closing one frees its slot (Close twice counts once).
	served[0].Close()
	served[0].Close()
	if gl.Open() != 2 {
		t.Errorf("after a close: open = %d, want 2", gl.Open())
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case <-accepted:
	case <-time.After(5 * time.Second):
		t.Fatal("a freed slot was not reused")
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

func TestTemporary(t *testing.T) {
	for err, want := range map[error]bool{
		&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.EMFILE)}: true,
		&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.ENFILE)}: true,
		net.ErrClosed: false,
		io.EOF:        false,
	} {
		if got := temporary(err); got != want {
			t.Errorf("temporary(%v) = %v, want %v", err, got, want)
		}
	}
}

// trickleHead is what a trickling client sends at once: the start of a
// request head, which it then never finishes.
const trickleHead = "GET " + PathHealth + " HTTP/1.1\r\nHost: game\r\nX-Slow: "

// trickler, from one client address, keeps up to want connections open
// to addr, each trickling a request head one byte per tick; each tick it
// drops the connections the server closed and opens new ones in their
// place (as many as the server lets it hold). It stops with ctx and closes
// its connections.
func trickler(ctx context.Context, addr string, from net.IP, want int, tick time.Duration) {
	type held struct {
		c    net.Conn
		gone chan struct{}
	}
	var conns []held
	defer func() {
		for _, h := range conns {
			h.c.Close()
		}
	}()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: from}, Timeout: 5 * time.Second}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		live := conns[:0]
		for _, h := range conns {
			select {
			case <-h.gone:
				h.c.Close()
				continue
			default:
			}
			h.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := h.c.Write([]byte("a")); err != nil {
				h.c.Close()
				continue
			}
			live = append(live, h)
		}
		conns = live
		for len(conns) < want && ctx.Err() == nil {
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				break
			}
			h := held{c, make(chan struct{})}
			go func() { io.Copy(io.Discard, c); close(h.gone) }()
			c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			io.WriteString(c, trickleHead)
			conns = append(conns, h)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// freshTries sends one request each from tries new client addresses
// (127.0.2.x), one after the other, each once the server holds at least
// full connections, and returns how many were answered 200 ok.
func freshTries(t *testing.T, s *Server, addr string, tries, full int) int {
	t.Helper()
	served := 0
	for i := range tries {
		waitOpen(t, s, full)
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 2, byte(1+i))}, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			continue
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		io.WriteString(c, "GET "+PathHealth+" HTTP/1.1\r\nHost: game\r\nConnection: close\r\n\r\n")
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && string(body) == "ok\n" {
				served++
			}
		}
		c.Close()
	}
	return served
}

// waitOpen waits (bounded) until s holds at least n connections.
func waitOpen(t *testing.T, s *Server, n int) {
	t.Helper()
	for giveUp := time.Now().Add(time.Minute); s.ConnStats().Open < n; {
		if time.Now().After(giveUp) {
			t.Fatalf("the server never held %d connections (%+v)", n, s.ConnStats())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serveOn runs a server with cfg on ln until the test ends.
func serveOn(t *testing.T, cfg *config.Config, ln net.Listener) *Server {
	t.Helper()
	s := New(Deps{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		<-served
	})
	return s
}

// serveTCP runs a server with cfg on a loopback port and returns its
// address.
func serveTCP(t *testing.T, cfg *config.Config) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, cfg, ln), ln.Addr().String()
}

// trickleFrom starts a trickler from each of n addresses 127.0.1.x, each
// trying to hold want connections, until the test ends.
func trickleFrom(t *testing.T, addr string, n, want int, tick time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			trickler(ctx, addr, net.IPv4(127, 0, 1, byte(1+i)), want, tick)
		}()
	}
}

// TestTricklingAddressesLeaveRoom is issue 36 item 2 at the default
// settings: 40 addresses each hold as many connections as the server lets
// them, every one trickling a request head a byte at a time, and fresh
// clients still get in (at least 90% of 20 tries). Before the fix, 40
// addresses could hold 40 x 256 connections, more than max_connections,
// every one busy: fresh clients were refused.
//
// The trickling clients run in a child process (TestTricklerChild): the
// server's and the clients' ends of the connections together would not
// fit one process's file limit before the fix.
func TestTricklingAddressesLeaveRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of connections, in a subprocess")
	}
	cfg := config.Default()
	s, addr := serveTCP(t, cfg)
	perAddr := cfg.Limits.MaxConnectionsPerAddress
	const addrs = 40
	cmd := exec.Command(os.Args[0], "-test.run=^TestTricklerChild$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %d", tricklerChild, addr, addrs, perAddr+2, time.Second))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	full := min(addrs*perAddr, cfg.Limits.MaxConnections)
	if served := freshTries(t, s, addr, 20, full); served < 18 {
		t.Errorf("%d of 20 fresh clients served while %d addresses trickle requests; want at least 18 (%+v)", served, addrs, s.ConnStats())
	}
	if st := s.ConnStats(); st.Shed[ShedAddressLimit] == 0 {
		t.Errorf("the trickling addresses were never refused past their limit (%+v)", st)
	}
}

// tricklerChild is the environment variable that makes TestTricklerChild
// the clients of TestTricklingAddressesLeaveRoom: "ADDR N WANT TICK" (TICK
// in nanoseconds).
const tricklerChild = "HONMASTER_TRICKLER_CHILD"

// TestTricklerChild runs tricklers from N addresses against ADDR until its
// standard input closes (or a bound, should the parent die). It does
// nothing unless run by TestTricklingAddressesLeaveRoom.
func TestTricklerChild(t *testing.T) {
	spec := os.Getenv(tricklerChild)
	if spec == "" {
		t.Skip("run by TestTricklingAddressesLeaveRoom")
	}
	var addr string
	var n, want int
	var tick time.Duration
	if _, err := fmt.Sscan(spec, &addr, &n, &want, &tick); err != nil {
		t.Fatalf("%s=%q: %v", tricklerChild, spec, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	go func() { io.Copy(io.Discard, os.Stdin); cancel() }()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			trickler(ctx, addr, net.IPv4(127, 0, 1, byte(1+i)), want, tick)
		}()
	}
	wg.Wait()
}

// TestTricklersGiveWayToFreshClients is issue 36 item 2's eviction, on
// small settings: more addresses than max_connections has room for hold
// every connection, trickling requests (and reopening each one the server
// closes); a fresh client gets in because the slowest of them gives way
// (the read timeout is far away: no timer makes room). Before the fix
// every connection was busy and fresh clients were refused.
func TestTricklersGiveWayToFreshClients(t *testing.T) {
	cfg := config.Default()
	cfg.Limits.MaxConnections, cfg.Limits.MaxConnectionsPerAddress = 48, 4
	cfg.Server.ReadTimeout.Duration = 10 * time.Minute
	s, addr := serveTCP(t, cfg)
	var observed atomic.Int64
	s.SetObserver(func(*RequestInfo) { observed.Add(1) })
	trickleFrom(t, addr, 16, 4, 250*time.Millisecond)
	served := freshTries(t, s, addr, 20, cfg.Limits.MaxConnections)
	st := s.ConnStats()
	// The evicted requests are counted as shed connections, not as
	// requests (nor access log lines): only the fresh clients' are.
	if n := observed.Load(); n > 20 || st.Shed[ShedEvictedSlow] == 0 {
		t.Errorf("%d requests observed for 20 fresh clients, %d connections evicted while their requests arrived", n, st.Shed[ShedEvictedSlow])
	}
	if served < 18 {
		t.Errorf("%d of 20 fresh clients served at max_connections held by trickling connections; want at least 18 (%+v)", served, st)
	}
	if st.Shed[ShedTotalLimit] != 0 {
		t.Errorf("connections refused with every one evictable (%+v)", st)
	}
}

// TestRequestDeadlineWholeHead: server.read_timeout is one deadline for
// the whole request, not one per read (fasthttp sets it once when the
// request starts): a client that keeps sending a byte every 50 ms is cut
// off long before it could finish its 500-byte head.
func TestRequestDeadlineWholeHead(t *testing.T) {
	cfg := config.Default()
	cfg.Server.ReadTimeout.Duration = time.Second
	_, addr := serveTCP(t, cfg)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	gone := make(chan struct{})
	go func() { io.Copy(io.Discard, c); close(gone) }()
	head := trickleHead + strings.Repeat("a", 500-len(trickleHead))
	for i := range len(head) {
		select {
		case <-gone:
			return // closed by the server, the head unfinished
		case <-time.After(50 * time.Millisecond):
		}
		if _, err := c.Write([]byte{head[i]}); err != nil {
			return
		}
	}
	t.Fatal("the server read a whole 25-second trickled head with a read timeout of 1s")
}
