package console_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/console"
)

// TestNarrowScreensAndWording: the console's CSS shrinks the Plinko chart
// to the screen (it overflowed a 390 px phone) and keeps a number cell and
// a card's figure on one line (130/0 broke in two); the dashboard's rate
// window is said as it is (it said "at most five minutes" of 5m11s).
func TestNarrowScreensAndWording(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c := client(t)
	if status, _ := e.signIn(t, c, "admin", "admin-pw"); status != http.StatusOK {
		t.Fatal("sign-in failed")
	}
	_, css := get(t, c, e.srv.URL+"/console/static/style.css")
	for _, want := range []string{"#chart{max-width:100%;height:auto}", "td.num,.card b{white-space:nowrap}"} {
		if !strings.Contains(css, want) {
			t.Errorf("style.css lacks %q", want)
		}
	}
	_, page := get(t, c, e.srv.URL+"/console/plinko")
	if !strings.Contains(page, `<svg id="chart" width="560"`) || !strings.Contains(page, `viewBox="0 0 560 `) {
		t.Errorf("the Plinko chart has no viewBox to scale by:\n%s", page)
	}
	_, page = get(t, c, e.srv.URL+"/console/")
	if strings.Contains(page, "at most five minutes") || !strings.Contains(page, "since the latest earlier view of this page at least five minutes old") {
		t.Errorf("dashboard's rate window:\n%s", page)
	}
	if !strings.Contains(page, "failed commits: 0.") {
		t.Errorf("dashboard's counts:\n%s", page)
	}
}
