package plinko

import (
	"bytes"
	"strconv"

	"github.com/honmaster/masterserver/host/server"
)

// replyOutcome is how a reply of the area counts in the metrics and the
// access log (server.Route.Outcome): by its status_code, since every
// failure is HTTP 200.
func replyOutcome(body []byte) string {
	code, ok := statusCode(body)
	if !ok {
		return ""
	}
	switch Status(code) {
	case StatusOK, StatusExchangeOK:
		return server.OutcomeOK
	case StatusDeciderUnavailable, StatusInternal:
		return server.OutcomeError
	}
	return server.OutcomeRefused
}

var statusKey = []byte(`s:11:"status_code";`)

// statusCode reads the status_code entry of a PHP-serialized array, sent
// as an integer (i:1;) or as text (s:1:"1";).
func statusCode(body []byte) (int, bool) {
	i := bytes.Index(body, statusKey)
	if i < 0 {
		return 0, false
	}
	rest := body[i+len(statusKey):]
	switch {
	case bytes.HasPrefix(rest, []byte("i:")):
		rest = rest[2:]
	case bytes.HasPrefix(rest, []byte("s:")):
		q := bytes.IndexByte(rest, '"')
		if q < 0 {
			return 0, false
		}
		rest = rest[q+1:]
	default:
		return 0, false
	}
	end := bytes.IndexAny(rest, `;"`)
	if end < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(string(rest[:end]))
	return n, err == nil
}
