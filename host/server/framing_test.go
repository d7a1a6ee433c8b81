package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A request with both Content-Length and Transfer-Encoding is refused with
// 400 in the route's shape (finding 6: it was accepted, chunked winning).
func TestAmbiguousFramingRefused(t *testing.T) {
	s := newTestServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(t.Context()) })

	send := func(raw string) (*http.Response, string) {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, raw); err != nil {
			t.Fatal(err)
		}
		r, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r.Body)
		return r, string(body)
	}
	body := "login=demo&A=00"
	chunked := "f\r\n" + body + "\r\n0\r\n\r\n"
	for _, tc := range []struct {
		name, headers string
		status        int
		want          string
	}{
		{"both", "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", 400, `s:4:"auth";`},
		{"both, other case and order", "transfer-encoding: chunked\r\ncontent-length: 4\r\n", 400, `s:4:"auth";`},
		{"chunked only", "Transfer-Encoding: chunked\r\n", 200, `s:4:"auth";`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, got := send("POST /client_requester.php?f=pre_auth HTTP/1.1\r\nHost: x\r\n" +
				"Content-Type: application/x-www-form-urlencoded\r\n" + tc.headers + "\r\n" + chunked)
			if r.StatusCode != tc.status || !strings.Contains(got, tc.want) {
				t.Errorf("status %d body %q; want %d containing %q", r.StatusCode, got, tc.status, tc.want)
			}
		})
	}
}
