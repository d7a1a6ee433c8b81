package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/wire"
)

// fieldsBody is a form of n fields, padded to at least size bytes.
func fieldsBody(n, size int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString("k")
		b.WriteString(strconv.Itoa(i))
		b.WriteString("=v")
	}
	if pad := size - b.Len(); pad > 0 {
		b.WriteString("&pad=")
		b.WriteString(strings.Repeat("x", pad))
	}
	return b.String()
}

// post sends body to path on a connection of its own and returns the
// reply's body: written from one goroutine while the reply is read, so that a
// refusal answered before the body was read (and the connection closed) is
// still seen.
func post(t *testing.T, ln *fasthttputil.InmemoryListener, path, body string) string {
	t.Helper()
	conn, err := ln.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go func() {
		io.WriteString(conn, "POST "+path+" HTTP/1.1\r\nHost: host\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "+
			strconv.Itoa(len(body))+"\r\n\r\n"+body)
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return string(b)
}

// largeServer serves /large with its own limits (4 MiB, 30,000 fields) and
// /small with the server's, both answering the number of form fields read
// or the failure's text.
func largeServer(t testing.TB, budget config.ByteSize) (*Server, *fasthttputil.InmemoryListener) {
	t.Helper()
	cfg := config.Default()
	cfg.Server.LargeBodyBudget = budget
	s := New(Deps{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	count := func(_ context.Context, r *wire.Request) Response {
		return Text("text/plain", strconv.Itoa(len(r.Form)))
	}
	fail := func(err error) Response {
		if errors.Is(err, ErrBusy) {
			return Text("text/plain", "busy")
		}
		return Text("text/plain", "failed: "+err.Error())
	}
	if err := s.Mount(
		Route{Path: "/large", Area: "test", Handler: count, Fail: fail, Limits: wire.Limits{MaxBody: 4 << 20, MaxFields: 30000}},
		Route{Path: "/small", Area: "test", Handler: count, Fail: fail},
	); err != nil {
		t.Fatal(err)
	}
	ln := fasthttputil.NewInmemoryListener()
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(context.Background()); ln.Close() })
	return s, ln
}

// TestRouteLimits: a route's own limits let a long match's form through on
// that route only; beyond them it is refused as too large, and nothing of
// the budget stays held.
func TestRouteLimits(t *testing.T) {
	s, ln := largeServer(t, 128<<20)
	long := fieldsBody(25000, 2<<20) // 2 MiB, 25,001 fields: above body_limit and wire's default field count
	if body := post(t, ln, "/large", long); body != "25001" {
		t.Errorf("/large, 2 MiB of 25,001 fields: %q", body)
	}
	if body := post(t, ln, "/small", long); !strings.HasPrefix(body, "failed: bad request") || !strings.Contains(body, "too large") {
		t.Errorf("/small, 2 MiB: %q", body)
	}
	if body := post(t, ln, "/large", fieldsBody(1, 5<<20)); !strings.Contains(body, "too large") {
		t.Errorf("/large, 5 MiB: %q", body)
	}
	if body := post(t, ln, "/large", fieldsBody(30001, 0)); !strings.HasPrefix(body, "failed: bad request") {
		t.Errorf("/large, 30,001 fields: %q", body)
	}
	if body := post(t, ln, "/large?x=1", "a=1"); body != "1" {
		t.Errorf("/large, small body with a query: %q", body)
	}
	// The route as the server routes it, however its target is spelled: a
	// manager whose base URL ends in "/" sends "//large". These were routed
	// to /large with no hold of the budget, and refused as busy (from a
	// review).
	for _, target := range []string{"//large", "/%6Carge", "/./large", "http://host/large", "/large/../large?x=1", "/large#frag", "/large#a?b=c"} {
		if body := post(t, ln, target, long); body != "25001" {
			t.Errorf("%s, 2 MiB of 25,001 fields: %q", target, body)
		}
	}
	if n := s.big.inUse(); n != 0 {
		t.Errorf("budget held after every request was answered: %d bytes", n)
	}
}

// TestRouteLimitsBudget: while one large body is being read and holds the
// budget, another large body is refused as busy before it is read; a small
// one to the same route is served; once the first is answered the budget is
// free again.
func TestRouteLimitsBudget(t *testing.T) {
	s, ln := largeServer(t, 4<<20)
	c := &http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) { return ln.Dial() }}}
	first := fieldsBody(10, 3<<20)
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", "http://host/large", pr)
	req.ContentLength = int64(len(first))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	done := make(chan string, 1)
	go func() {
		r, err := c.Do(req)
		if err != nil {
			done <- err.Error()
			return
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		done <- string(b)
	}()
	if _, err := io.WriteString(pw, first[:1<<20]); err != nil {
		t.Fatal(err)
	}
	// The header has arrived and the first body holds its share: wait for
	// that state (bounded), not for a time.
	for i := 0; s.big.inUse() == 0; i++ {
		if i > 6000 {
			t.Fatal("the first body never held the budget")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if body := post(t, ln, "/large", fieldsBody(10, 2<<20)); body != "busy" {
		t.Errorf("second large body while the budget is spent: %q", body)
	}
	if body := post(t, ln, "/large", "a=1&b=2"); body != "2" {
		t.Errorf("small body while the budget is spent: %q", body)
	}
	if _, err := io.WriteString(pw, first[1<<20:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if got := <-done; got != "11" {
		t.Errorf("first large body: %q", got)
	}
	if body := post(t, ln, "/large", fieldsBody(10, 2<<20)); body != "11" {
		t.Errorf("large body after the first was answered: %q", body)
	}
	if n := s.big.inUse(); n != 0 {
		t.Errorf("budget held after every request was answered: %d bytes", n)
	}
}

// TestBigBodiesExpire: a hold whose request never reached an answer (its
// connection broke while the body arrived) stops counting after its time.
func TestBigBodiesExpire(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBigBodies(10, time.Minute)
	b.now = func() time.Time { return now }
	h1, h2 := new(fasthttp.RequestHeader), new(fasthttp.RequestHeader)
	if !b.grant(h1, 8) {
		t.Fatal("first grant refused")
	}
	if b.grant(h2, 8) {
		t.Fatal("second grant beyond the budget accepted")
	}
	if !b.release(h2) {
		t.Error("a refused hold did not say busy")
	}
	now = now.Add(2 * time.Minute)
	if !b.grant(h2, 8) {
		t.Error("grant refused after the first hold's time ran out")
	}
	if b.release(h1) || b.inUse() != 8 {
		t.Errorf("after the expired hold's release: %d bytes held", b.inUse())
	}
	// A new request on a connection replaces its previous hold.
	if !b.grant(h2, 9) || b.inUse() != 9 {
		t.Errorf("a connection's second request: %d bytes held", b.inUse())
	}
}

func TestMountRefusesLimits(t *testing.T) {
	s := newTestServer()
	h := func(context.Context, *wire.Request) Response { return Text("text/plain", "") }
	if err := s.Mount(Route{Func: "f", Area: "a", Handler: h, Limits: wire.Limits{MaxFields: 9000}}); err == nil {
		t.Error("limits on a function accepted")
	}
	if err := s.Mount(Route{Path: "/p", Area: "a", Handler: h, Limits: wire.Limits{MaxBody: 64 << 20}}); err == nil ||
		!strings.Contains(err.Error(), "server.large_body_limit") {
		t.Errorf("a body limit beyond server.large_body_limit: %v", err)
	}
}

// TestChunkedHeadsHoldNoBudget: a chunked request head to a large-body
// route holds nothing of the budget (its length is unknown). With the
// defaults, four such heads, which one address may send on 4 of its 64
// connections, used to hold the whole budget (the route's bound each), and
// every game server's statistics were refused as busy while they trickled.
func TestChunkedHeadsHoldNoBudget(t *testing.T) {
	cfg := config.Default()
	s := New(Deps{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	h := func(context.Context, *wire.Request) Response { return Text("text/plain", "") }
	if err := s.Mount(Route{Path: "/large", Area: "test", Handler: h, Limits: wire.Limits{MaxBody: int64(cfg.Server.LargeBodyLimit)}}); err != nil {
		t.Fatal(err)
	}
	head := func(extra string) *fasthttp.RequestHeader {
		var rh fasthttp.RequestHeader
		if err := rh.Read(bufio.NewReader(strings.NewReader("POST /large HTTP/1.1\r\nHost: x\r\n" + extra + "\r\n\r\n"))); err != nil {
			t.Fatal(err)
		}
		return &rh
	}
	for range 4 {
		if rc := s.headerReceived(head("Transfer-Encoding: chunked")); rc.MaxRequestBodySize != 0 {
			t.Errorf("a chunked body gets a bound of %d bytes, not server.body_limit", rc.MaxRequestBodySize)
		}
	}
	if n := s.big.inUse(); n != 0 {
		t.Errorf("four chunked heads hold %d bytes of the budget", n)
	}
	if rc := s.headerReceived(head("Content-Length: 2097152")); rc.MaxRequestBodySize == 0 {
		t.Errorf("a 2 MiB body is refused as busy: the budget holds %d of %d bytes", s.big.inUse(), cfg.Server.LargeBodyBudget)
	}
}

// TestChunkedLargeBodyRefused: a chunked body to a large-body route is
// read with server.body_limit: within it, it is served; above it, refused
// as too large (a large body must declare its Content-Length). Nothing of
// the budget stays held.
func TestChunkedLargeBodyRefused(t *testing.T) {
	s, ln := largeServer(t, 128<<20)
	chunked := func(body string) string {
		conn, err := ln.Dial()
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		go io.WriteString(conn, "POST /large HTTP/1.1\r\nHost: host\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n"+
			strconv.FormatInt(int64(len(body)), 16)+"\r\n"+body+"\r\n0\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(b)
	}
	if got := chunked("a=1&b=2"); got != "2" {
		t.Errorf("small chunked body: %q", got)
	}
	if got := chunked(fieldsBody(10, 2<<20)); !strings.Contains(got, "too large") {
		t.Errorf("2 MiB chunked body: %q", got)
	}
	if n := s.big.inUse(); n != 0 {
		t.Errorf("budget held after every request was answered: %d bytes", n)
	}
}

// waitClosed waits (bounded, without sleeping) until s has no open
// connection.
func waitClosed(t *testing.T, s *Server) {
	t.Helper()
	for i := 0; s.ConnStats().Open != 0; i++ {
		if i > 1e8 {
			t.Fatal("the connection never closed")
		}
		runtime.Gosched()
	}
}

// TestBrokenUploadReleasesBudget: a client that sends the head of a large
// body to a large-body route and hangs up holds nothing of the budget once
// its connection is gone, whether the body was chunked (fasthttp ends that
// request without calling the error handler, so a hold lasted until it
// expired, some 66 s) or of declared length.
func TestBrokenUploadReleasesBudget(t *testing.T) {
	for _, tc := range []struct{ framing, body string }{
		{"Transfer-Encoding: chunked", ""}, // no chunk: fasthttp takes the end for a clean close
		{"Content-Length: 2097152", "a=1"},
	} {
		t.Run(tc.framing, func(t *testing.T) {
			s, ln := largeServer(t, 128<<20)
			conn, err := ln.Dial()
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(conn, "POST /large HTTP/1.1\r\nHost: host\r\nContent-Type: application/x-www-form-urlencoded\r\n"+tc.framing+"\r\n\r\n"+tc.body)
			conn.Close()
			waitClosed(t, s)
			if n := s.big.inUse(); n != 0 {
				t.Errorf("budget held after the connection closed: %d bytes", n)
			}
		})
	}
}

// TestRefusedRequestsReleaseBudget: a large body's hold ends however its
// request ends: refused for its framing (both Content-Length and
// Transfer-Encoding: serveHTTP returned before its deferred release), or
// cut by the listener while it arrived (fasthttpError returned before its
// release for a connection the listener dropped).
func TestRefusedRequestsReleaseBudget(t *testing.T) {
	t.Run("framing", func(t *testing.T) {
		s, ln := largeServer(t, 128<<20)
		conn, err := ln.Dial()
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		go io.WriteString(conn, "POST /large HTTP/1.1\r\nHost: host\r\nContent-Type: application/x-www-form-urlencoded\r\n"+
			"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\na=1\r\n0\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d, want 400", resp.StatusCode)
		}
		if n := s.big.inUse(); n != 0 {
			t.Errorf("budget held after the refused request was answered: %d bytes", n)
		}
	})
	// A request of declared length on a connection the listener has
	// released (evicted to make room): its hold is granted, then the
	// request ends in fasthttpError (the body cut short) or, when the body
	// had arrived, in serveHTTP, whose handler may not start.
	granted := func(t *testing.T) (*Server, *fasthttp.RequestCtx) {
		s, _ := largeServer(t, 128<<20)
		gc := &guardedConn{Conn: newScriptConn("192.0.2.1"), l: newGuardedListener(nil, 10, 10, slog.New(slog.DiscardHandler)), released: true}
		gc.dropped.Store(true)
		ctx := new(fasthttp.RequestCtx)
		ctx.Init2(gc, nil, false)
		if err := ctx.Request.Header.Read(bufio.NewReader(strings.NewReader("POST /large HTTP/1.1\r\nHost: x\r\nContent-Length: 2097152\r\n\r\n"))); err != nil {
			t.Fatal(err)
		}
		if rc := s.headerReceived(&ctx.Request.Header); rc.MaxRequestBodySize == 0 || s.big.inUse() == 0 {
			t.Fatal("the large body holds nothing of the budget")
		}
		return s, ctx
	}
	t.Run("dropped while its body arrived", func(t *testing.T) {
		s, ctx := granted(t)
		s.fasthttpError(ctx, io.ErrUnexpectedEOF)
		if n := s.big.inUse(); n != 0 {
			t.Errorf("budget held after the dropped connection's request ended: %d bytes", n)
		}
	})
	t.Run("dropped before its handler", func(t *testing.T) {
		s, ctx := granted(t)
		s.serveHTTP(ctx)
		if n := s.big.inUse(); n != 0 {
			t.Errorf("budget held after the dropped connection's request ended: %d bytes", n)
		}
	})
}

// TestHeadsPinNoBodyMemory: a request head that declares a body takes no
// memory for it before its bytes arrive. fasthttp allocated the whole
// declared body first: one address's 64 connections
// (max_connections_per_address), each sending a 55-byte head that
// declares server.body_limit and nothing more, pinned 64 MiB for
// server.read_timeout; max_connections of them about 10 GiB.
func TestHeadsPinNoBodyMemory(t *testing.T) {
	s := newTestServer()
	if err := s.Mount(Route{Path: "/ok", Area: "test", Handler: func(context.Context, *wire.Request) Response { return Text("text/plain", "ok") }}); err != nil {
		t.Fatal(err)
	}
	var heads atomic.Int64
	received := s.srv.HeaderReceived
	s.srv.HeaderReceived = func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
		defer heads.Add(1)
		return received(h)
	}
	ln := listen(t, s)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	head := "POST /ok HTTP/1.1\r\nHost: h\r\nContent-Length: " + strconv.Itoa(int(s.conf().Server.BodyLimit)) + "\r\n\r\n"
	n := s.conf().Limits.MaxConnectionsPerAddress
	for range n {
		conn, err := ln.Dial()
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, head)
	}
	for i := 0; heads.Load() < int64(n); i++ {
		if i > 1e8 {
			t.Fatal("the heads never arrived")
		}
		runtime.Gosched()
	}
	// fasthttp allocated right after HeaderReceived, before any read: let
	// every connection's goroutine get there (or block reading the body).
	const bound = 16 << 20 // far above what 64 heads and their connections' buffers need
	var now runtime.MemStats
	var grew int64
	for i := 0; i < 20000 && grew <= bound; i++ {
		runtime.Gosched()
		runtime.ReadMemStats(&now)
		grew = max(grew, int64(now.HeapInuse)-int64(before.HeapInuse))
	}
	if grew > bound {
		t.Errorf("%d heads of %d bytes from one address pin %d MiB of heap", n, len(head), grew>>20)
	}
}

// TestStreamedBodies: the server reads a body as it arrives (fasthttp
// streams it), so it must read it whole itself: a body cut short is never
// served, and a reply given before the body was read to its end closes
// the connection (what is left of the body is no next request).
func TestStreamedBodies(t *testing.T) {
	var served atomic.Int64
	s := newTestServer()
	if err := s.Mount(Route{Path: "/ok", Area: "test", Handler: func(_ context.Context, r *wire.Request) Response {
		served.Add(1)
		return Text("text/plain", strconv.Itoa(len(r.Form)))
	}}); err != nil {
		t.Fatal(err)
	}
	ln := listen(t, s)
	exchange := func(raw string) (*http.Response, string, *bufio.Reader) {
		t.Helper()
		conn, err := ln.Dial()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		go io.WriteString(conn, raw)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b), br
	}
	form := "POST /ok HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\n"
	next := "GET /ok?a=1 HTTP/1.1\r\nHost: h\r\n\r\n"

	t.Run("cut short", func(t *testing.T) {
		conn, err := ln.Dial()
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, form+"Content-Length: 40000\r\n\r\n"+fieldsBody(1, 20000))
		conn.Close()
		waitClosed(t, s)
		if n := served.Load(); n != 0 {
			t.Errorf("a body cut short was served (%d)", n)
		}
	})
	t.Run("served, then the next request", func(t *testing.T) {
		body := fieldsBody(3, 100<<10)
		resp, got, br := exchange(form + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body + next)
		if resp.StatusCode != 200 || got != "4" || resp.Close {
			t.Fatalf("status %d, close %v, body %q", resp.StatusCode, resp.Close, got)
		}
		if r2, err := http.ReadResponse(br, nil); err != nil || r2.StatusCode != 200 {
			t.Errorf("the next request on the connection: %v %v", r2, err)
		}
	})
	t.Run("refused unread", func(t *testing.T) {
		for _, raw := range []string{
			form + "Content-Length: 2097152\r\n\r\n" + fieldsBody(1, 9000) + next,                 // too large
			"POST /ok?a=%zz HTTP/1.1\r\nHost: h\r\nContent-Length: 20\r\n\r\n" + next[:20] + next, // the query is refused first
			"POST /healthz HTTP/1.1\r\nHost: h\r\nContent-Length: 20\r\n\r\n" + next[:20] + next,
		} {
			resp, got, _ := exchange(raw)
			if !resp.Close {
				t.Errorf("%.30q: answered %d %q, and the connection kept with the body unread", raw, resp.StatusCode, got)
			}
		}
	})
}

// TestARefusedBodyIsReadBeforeTheReply: a body over its route's limit
// (up to server.body_limit and 64 KiB, what fasthttp read whole before the
// server streamed bodies) is read to its end and dropped before the reply,
// so a client still sending it gets to read the reply. Before, the server
// answered and closed at once, and a client writing its body (the game
// client's over-large pre_auth in TestLoginBadInput) read a connection
// reset instead. The in-memory connection holds four unread writes at
// most, so the client's writes finish only if the server reads them.
func TestARefusedBodyIsReadBeforeTheReply(t *testing.T) {
	s := newTestServer()
	if err := s.Mount(Route{Path: "/ok", Area: "test", Handler: func(context.Context, *wire.Request) Response { return Text("text/plain", "ok") }}); err != nil {
		t.Fatal(err)
	}
	ln := listen(t, s)
	conn, err := ln.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := "A=" + strings.Repeat("a", int(s.conf().Server.BodyLimit)+1000)
	wrote := make(chan error, 1)
	go func() {
		_, err := io.WriteString(conn, "POST /ok HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "+
			strconv.Itoa(len(body))+"\r\n\r\n")
		for b := body; err == nil && len(b) > 0; b = b[min(len(b), 4096):] {
			_, err = io.WriteString(conn, b[:min(len(b), 4096)])
		}
		wrote <- err
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "too large") {
		t.Errorf("reply %d %q, want the route's refusal of a body too large", resp.StatusCode, b)
	}
	if err := <-wrote; err != nil {
		t.Errorf("the client could not finish sending its body: %v", err)
	}
}
