package server

import (
	"testing"

	"github.com/honmaster/masterserver/wire"
)

// TestTheAccessLineReadsTheCookieAsTheHandlersDo: the access line's
// account (cookieOf, and resolveBefore for a logout) fell back to the
// query's cookie when the form had the field empty, where the handlers
// and the cluster's routing (wire.Request.Value) read the empty one: the
// line named an account the handler never served. (From the second
// review; failed before.)
func TestTheAccessLineReadsTheCookieAsTheHandlersDo(t *testing.T) {
	for _, r := range []*wire.Request{
		{Query: wire.Values{"cookie": {"from-query"}}, Form: wire.Values{"cookie": {""}}},
		{Query: wire.Values{"cookie": {"from-query"}}},
		{Form: wire.Values{"cookie": {"a", "b"}}},
	} {
		if got, want := cookieOf(r), r.Value("cookie"); got != want {
			t.Errorf("cookieOf(%v, %v) = %q, the handlers read %q", r.Form, r.Query, got, want)
		}
	}
}
