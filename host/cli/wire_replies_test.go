package cli_test

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/cli/clitest"
)

var updateWire = flag.Bool("update-wire", false, "rewrite testdata/wire_replies.golden")

// wireCases are requests whose replies are fixed (no random salt, no
// clock), among them the reflected-HTML probes of issue 22 item 4.
var wireCases = []struct{ method, target, form string }{
	{"GET", "/client_requester.php?f=get_guide&hosttime=%3Cscript%3Ealert(1)%3C/script%3E", ""},
	{"GET", "/%3Cscript%3Ealert(1)%3C/script%3E", ""},
	{"GET", "/client_requester.php?f=%3Cscript%3Ealert(1)%3C/script%3E", ""},
	{"POST", "/client_requester.php", "f=%3Cimg%20src=x%20onerror=alert(1)%3E"},
	{"POST", "/client_requester.php", "f=get_guide_list_filtered&account=1&cookie=0123&hosttime=1620573527&hero=Hero_Parallax"},
	{"POST", "/client_requester.php", "f=pre_auth&login=demo"},
	{"POST", "/client_requester.php", "f=logout&cookie=0123"},
	{"POST", "/patcher/patcher.php", "update=1&version=0.0.0.0&current_version=4.9.5&os=wac&arch=x86_64&cookie="},
	{"POST", "/master/storage/status", ""},
	{"GET", "/healthz", ""},
	{"GET", "/", ""},
}

// TestWireReplies pins the status, content type, nosniff header and body
// of fixed replies of the game port (testdata/wire_replies.golden; rewrite
// it with -update-wire). Issue 22 item 4: a PHP reply is text/plain, never
// text/html, every reply says nosniff, and a path or function name the
// server does not serve is never echoed. The bodies are those of the code
// before the fix (the golden file was first written by it): only the two
// headers changed.
func TestWireReplies(t *testing.T) {
	ts := clitest.Start(t, nil)
	var got strings.Builder
	for _, c := range wireCases {
		req, err := http.NewRequest(c.method, "http://"+ts.Runtime.Addr.String()+c.target, strings.NewReader(c.form))
		if err != nil {
			t.Fatal(err)
		}
		if c.form != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		ct, nosniff := resp.Header.Get("Content-Type"), resp.Header.Get("X-Content-Type-Options")
		fmt.Fprintf(&got, "=== %s %s %s\nstatus: %d\ncontent-type: %s\nx-content-type-options: %s\nbody: %q\n\n",
			c.method, c.target, c.form, resp.StatusCode, ct, nosniff, body)

		if strings.Contains(c.target+c.form, "%3C") {
			if strings.HasPrefix(ct, "text/html") || nosniff != "nosniff" {
				t.Errorf("%s %s: content type %q, nosniff %q; want no HTML, nosniff", c.method, c.target, ct, nosniff)
			}
			// hosttime is echoed byte for byte (the client drops a reply
			// whose hosttime differs), inside a text/plain body; nothing
			// else the client sent is.
			if !strings.Contains(c.target, "hosttime=") && strings.ContainsAny(string(body), "<>") {
				t.Errorf("%s %s %s: markup echoed: %q", c.method, c.target, c.form, body)
			}
		}
		if nosniff != "nosniff" {
			t.Errorf("%s %s: no X-Content-Type-Options: nosniff", c.method, c.target)
		}
	}
	path := filepath.Join("testdata", "wire_replies.golden")
	if *updateWire {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("replies differ from %s (rewrite with -update-wire if intended):\n%s", path, got.String())
	}
}
