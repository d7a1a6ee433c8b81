package operator

import (
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strings"
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
func Audit(log *slog.Logger, by, action, account string, change []any, failed error, more ...any) {
	attrs := make([]any, 0, 12+len(more))
	attrs = append(attrs, "log", "audit", "by", by, "action", action)
	if account != "" {
		attrs = append(attrs, "account", account)
	}
	if len(change) > 0 {
		attrs = append(attrs, slog.Group("change", change...))
	}
	outcome := "ok"
	if failed != nil {
		outcome = "failed: " + failed.Error()
	}
	attrs = append(attrs, "outcome", outcome)
	log.Info(AuditMessage, append(attrs, more...)...)
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
