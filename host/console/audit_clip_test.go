package console_test

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/console"
)

// TestConsoleAuditLineBounded: the audit line of a console form holding a
// 200,000-character nickname keeps server.log_value_limit bytes of it and
// its length (the line was 200,295 bytes).
func TestConsoleAuditLineBounded(t *testing.T) {
	var logs lockedBuffer
	e := newEnv(t, console.Deps{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	c := client(t)
	if status, _ := e.signIn(t, c, "admin", "admin-pw"); status != http.StatusOK {
		t.Fatal("sign-in failed")
	}
	_, page := get(t, c, e.srv.URL+"/console/account?login=player")
	post(t, c, e.srv.URL+"/console/account/subaccount", url.Values{"csrf": {csrfOf(t, page)}, "login": {"player"},
		"sub_login": {"longnick"}, "password": {"pw"}, "nickname": {strings.Repeat("n", 200_000)}})
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "log=audit") && strings.Contains(l, "action=account/subaccount") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("no audit line of the sub-account form; the log holds %d bytes", len(logs.String()))
	}
	if len(line) > 2048 || !strings.Contains(line, `change.nickname="`+strings.Repeat("n", 64)+`...(200000 bytes)"`) {
		t.Fatalf("the audit line is %d bytes:\n%.3000s", len(line), line)
	}
}
