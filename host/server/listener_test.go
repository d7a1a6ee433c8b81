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
