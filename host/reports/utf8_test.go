package reports_test

import (
	"context"
	"crypto/rand"
	"net/url"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
)

// TestTextThatIsNotUTF8IsKept: what a client sends need not be UTF-8 (an
// OS or GPU name in a Windows code page), and the records that keep it
// are protobuf strings, which refuse anything else. Before, a SysInfo of
// fewer than 512 bytes was stored as sent, so the commit that opens the
// session failed and a right password was answered "Internal error"; and
// a report whose text or match id was not UTF-8 could never be stored,
// answered as the server's fault. Now each is kept with U+FFFD for the
// bytes that are not UTF-8.
func TestTextThatIsNotUTF8IsKept(t *testing.T) {
	s := startE2E(t, func(c *config.Config) { c.Limits.NewAccountAge = config.Duration{} })
	s.account("alice")
	s.account("bob")
	s.account("carol")
	ctx := context.Background()
	cl, err := s.Client.Group.NewClient("alice", "pw", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pre, _ := s.post("/client_requester.php?f=pre_auth", url.Values{"login": {"alice"}, "A": {cl.AHex()}, "SysInfo": {"mac|Windows\xff|cpu"}})
	salt, _ := pre.String("salt")
	salt2, _ := pre.String("salt2")
	b, _ := pre.String("B")
	m1, err := cl.Proof(salt, salt2, b)
	if err != nil {
		t.Fatal(err)
	}
	rec, body := s.post("/client_requester.php?f=srpAuth", url.Values{"login": {"alice"}, "proof": {m1}, "SysInfo": {"hw\xfeid"}})
	cookie, _ := rec.String("cookie")
	id, _ := rec.String("account_id")
	if cookie == "" {
		t.Fatalf("the right password, with a SysInfo that is not UTF-8: %.200s", body)
	}
	r, err := s.Client.PostForm(ctx, "/rap/report2.php", url.Values{"account_id": {id}, "cookie": {cookie},
		"offenderName[]": {"bob", "bob"}, "type[]": {"1", "2"}, "body[]": {"bad \xff text", "fine"}, "match_id[]": {"1", "12\xff3"},
		"time[]": {"3", "4"}})
	if err != nil || r.Status != 200 || !strings.Contains(string(r.Body), "true") {
		t.Fatalf("report2 with text and a match id that are not UTF-8: %v %q", err, r.Body)
	}
	if success, rs := s.masterReport(id, cookie, "carol", "1", "x\xffy"); success != "1" {
		t.Fatalf("master report with text that is not UTF-8: success %q, report_success %d", success, rs)
	}
	out := s.Host(t, "reports", "list", "--status", "any")
	if countLine(out) != "3 report(s)" {
		t.Fatalf("reports stored:\n%s", out)
	}
	show := s.Host(t, "reports", "show", id+"-1")
	if !strings.Contains(show, "mac|Windows\uFFFD|cpu") || !strings.Contains(show, "hw\uFFFDid") {
		t.Errorf("the report keeps its reporter's SysInfo with U+FFFD:\n%s", show)
	}
}
