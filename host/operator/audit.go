package operator

import (
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/honmaster/masterserver/host/logflood"
)

// The audit trail: one line at INFO per operator action, however it was
// asked for (the web console, the operator API, an operator command), with
// who asked (By), the action, the account it was on, what it changed (the
// values asked for, secrets redacted) and its outcome. Every line carries
// log=audit ("log":"audit" in JSON), which no other line of the server
// carries: filter on it to keep the trail apart from the access log
// (docs/operations.md "Audit trail").

// AuditMessage is the message of every line of the trail.
const AuditMessage = "operator action"

// Who asked, besides a console operator (ByConsole).
const (
	// ByCommand is an operator command run on the machine: through the
	// admin socket (the data directory's owner), or offline.
	ByCommand = "local command"
	// ByAPI is the operator API, with the operator token (there is one:
	// operator.token, or the generated DATA/operator.token).
	ByAPI = "api token"
	// BySignal is a reload asked by SIGHUP (systemctl reload, kill -HUP).
	BySignal = "SIGHUP"
)

// ByConsole names a console operator by login.
func ByConsole(login string) string { return "console:" + login }

// Audit writes one line of the trail: by did action on account ("" when
// the action names none), asking for change (key, value pairs, in the
// group change: change.gold=7, so that a field of the request never reads
// as one of the line's own); failed is nil when it succeeded, else its
// sentence as the operator read it; more are key, value pairs of the line
// itself (the client's address, the result the operator was shown).
//
// The line is bounded whatever the request held (a console form of 200,000
// bytes wrote an audit line of 200,295): the account and each value of
// change keep at most server.log_value_limit bytes (logflood.Clip, then
// "...(N bytes)"), as every value a client supplies in a log line; the
// outcome and the string values of more, sentences that may quote such a
// value, keep 16 times that.
func Audit(log *slog.Logger, by, action, account string, change []any, failed error, more ...any) {
	attrs := make([]any, 0, 12+len(more))
	attrs = append(attrs, "log", "audit", "by", by, "action", action)
	if account != "" {
		attrs = append(attrs, "account", logflood.Clip(account))
	}
	if len(change) > 0 {
		clipped := make([]any, len(change))
		for i, v := range change {
			if i%2 == 1 {
				v = clipValue(v)
			} else if k, ok := v.(string); ok {
				v = logflood.Clip(k) // a field's name is the client's too
			}
			clipped[i] = v
		}
		attrs = append(attrs, slog.Group("change", clipped...))
	}
	outcome := "ok"
	if failed != nil {
		outcome = "failed: " + failed.Error()
	}
	attrs = append(attrs, "outcome", logflood.ClipTo(outcome, sentenceBytes()))
	for i, v := range more {
		if s, ok := v.(string); ok && i%2 == 1 {
			v = logflood.ClipTo(s, sentenceBytes())
		}
		attrs = append(attrs, v)
	}
	log.Info(AuditMessage, attrs...)
}

// sentenceBytes bounds a sentence of the trail (the outcome, the result
// shown): 16 values' worth, as a plugin's relayed line.
func sentenceBytes() int { return 16 * logflood.ClipBytes() }

// clipValue is v as the trail keeps a value of change: a string clipped;
// a number, a boolean or a short value as it is; a longer value of another
// kind (a list of upgrades) by its text, clipped.
func clipValue(v any) any {
	switch x := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		return v
	case string:
		return logflood.Clip(x)
	}
	if s := fmt.Sprint(v); len(s) > logflood.ClipBytes() {
		return logflood.Clip(s)
	}
	return v
}

// FormChange is what a form or query asked for, as Audit's change: each
// field by name in order (several values joined by commas), a secret
// (password, token, the form token) shown only as set, and the field
// named account taken out: it is returned on its own.
func FormChange(form url.Values, account string) (login string, change []any) {
	login = form.Get(account)
	for _, k := range slices.Sorted(maps.Keys(form)) {
		if k == account || k == "csrf" {
			continue
		}
		v := strings.Join(form[k], ",")
		if Secret(k) {
			v = "(redacted)"
		}
		change = append(change, k, v)
	}
	return login, change
}

// Secret reports whether a field named name holds a secret, which the
// trail shows only as set.
func Secret(name string) bool {
	name = strings.ToLower(name)
	for _, s := range []string{"password", "token", "secret"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}
