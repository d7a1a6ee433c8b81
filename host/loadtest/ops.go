package loadtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

// Paths the load tester's own operations call, from the host's constants
// (an area's operations use the area's). It talks only to the target and
// the operator listener it is given.
const (
	pathNoop     = "/loadtest/noop" // not served: answered 404 by the full HTTP stack
	pathRegister = server.PathRegister
	pathPatch    = server.PathPatcher
)

// Failure is a failed operation, counted by Kind.
type Failure struct {
	Kind   string // e.g. "transport", "http_500", "refused:3", "decode", "balance"
	Detail string
}

func (f *Failure) Error() string { return f.Kind + ": " + f.Detail }

func fail(kind, format string, args ...any) error {
	return &Failure{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// kindOf names the failure kind of err.
func kindOf(err error) string {
	var f *Failure
	if errors.As(err, &f) {
		return f.Kind
	}
	if errors.Is(err, client.ErrLogin) {
		return "refused:login"
	}
	if errors.Is(err, client.ErrServerProof) {
		return "server_proof" // a reply came: the server's M2 was wrong
	}
	// A login's reply that came but is not the game's: counted as the
	// other operations count theirs (decode), never as a reply lost.
	if b, ok := errors.AsType[*client.BadReplyError](err); ok {
		if b.Status != http.StatusOK {
			return "http_" + strconv.Itoa(b.Status)
		}
		return "decode"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "transport"
}

// Account is one test account and what the replies said about it, as an
// operation sees it (its methods, extend.go). Only one operation at a time
// uses an account.
type Account struct {
	login, password string
	id              string
	sess            *client.Session
	subLogin, subID string // sub-account for switch

	// Balances as the replies said; known once the grant answered.
	known                   bool
	startTickets, startGold int64
	tickets, gold           int64
	spentTickets, spentGold int64
	wonTickets              int64

	// pending are the operations of unknown outcome since the balances
	// were last known (Account.Unknown): the next reply that states them,
	// or the end-of-run check, must be explained by some of them having
	// happened (balance.go).
	pending []Unknown
	// mismatch is the first balance a reply stated that no operation of
	// unknown outcome explained ("" while none): the run fails.
	mismatch string
	// reanchored counts the times the balances were taken from a reply
	// over operations of unknown outcome that explained them.
	reanchored int

	// uncertain: the account is left out of the end-of-run balance check
	// (MarkUncertain, or more operations of unknown outcome in a row than
	// the checker follows: maxPending).
	uncertain bool

	index int            // position in the run's accounts (Env.logins)
	state map[string]any // AccountState, by area

	// op names the operation the account runs; fellBack the fallback row
	// (Env.Fallback) it ran as instead of its own, "" when it ran as
	// itself.
	op, fellBack string
}

// fallbackRows names the operation of each fallback row (Operation.Fallback).
var fallbackRows = map[string]string{}

// requestsOf is the HTTP requests per operation of a row of the report.
func requestsOf(row string) int {
	if op, ok := fallbackRows[row]; ok {
		return operations[operations[op].fallback.As].requests
	}
	return operations[row].requests
}

// operation is one kind of work of the mix (see Operation).
type operation struct {
	requests      int // HTTP requests per operation
	needsOperator bool
	why           string
	spends        bool // needs tickets and gold granted
	// reads: the operation changes nothing on the server, so a request of
	// it that met a connection closed under it may be sent again
	// (transport).
	reads    bool
	fallback *Fallback
	// defaultWeight is the operation's weight in DefaultMix (0: none).
	defaultWeight int
	do            func(ctx context.Context, e *Env, a *Account, rng *rand.Rand) error
}

// operations is the table of the mix's operations: the load tester's own,
// and those the areas register (RegisterArea).
var operations = map[string]operation{
	"noop":   {requests: 1, reads: true, do: opNoop},
	"login":  {requests: 2, do: opLogin, defaultWeight: 1},
	"switch": {requests: 1, do: opSwitch, needsOperator: true, why: "creating sub-accounts"},
	"patch":  {requests: 1, reads: true, do: opPatch},
}

// OperationNames lists the operations a mix may name.
func OperationNames() []string {
	var out []string
	for n := range operations {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// DefaultMix is the mix of a run that names none: the login, and what
// each area puts in it (Operation.DefaultWeight), in its flag form.
func DefaultMix() string {
	m := Mix{}
	for n, op := range operations {
		if op.defaultWeight > 0 {
			m[n] = op.defaultWeight
		}
	}
	return m.String()
}

// OperationDoc describes each operation (for --help and docs/loadtest.md).
var OperationDoc = map[string]string{
	"noop":   "POST to a path the server does not serve: the whole HTTP stack and its 404 PHP error reply, nothing else (the ceiling)",
	"login":  "pre_auth + srpAuth with the client's SRP arithmetic; the server's proof M2 is checked",
	"switch": "switch_auth to the account's sub-account; the record must name it",
	"patch":  "patcher.php for wac/x86_64",
}

// post sends}

// post sends a form and decodes the PHP reply; wantStatus is the HTTP
// status expected.
func post(ctx context.Context, c *client.Client, path string, form url.Values, wantStatus int) (*wire.Array, *client.Reply, error) {
	r, err := c.PostForm(ctx, path, form)
	if err != nil {
		return nil, nil, err
	}
	return decode(r, wantStatus)
}

func decode(r *client.Reply, wantStatus int) (*wire.Array, *client.Reply, error) {
	if r.Status != wantStatus {
		return nil, r, fail("http_"+strconv.Itoa(r.Status), "%.200s", r.Body)
	}
	a, err := r.PHP()
	if err != nil {
		return nil, r, fail("decode", "%v", err)
	}
	return a, r, nil
}

func opNoop(ctx context.Context, e *Env, a *Account, _ *rand.Rand) error {
	arr, _, err := post(ctx, e.c, pathNoop, url.Values{"cookie": {a.sess.Cookie}}, 404)
	if err != nil {
		return err
	}
	if _, ok := arr.String("error"); !ok {
		return fail("decode", "404 without an error entry")
	}
	return nil
}

func opLogin(ctx context.Context, e *Env, a *Account, _ *rand.Rand) error {
	s, err := e.c.Login(ctx, a.login, a.password)
	if err != nil {
		return loginLimitHint(err) // kindOf names a wrong server proof (client.ErrServerProof)
	}
	if s.Cookie == "" || s.AccountID != a.id {
		return fail("record", "login record: cookie %q account_id %q, want %s", s.Cookie, s.AccountID, a.id)
	}
	s.Record = nil
	a.sess = s
	return nil
}

// loginLimitHint names the setting to lift when the server refused a
// login as one too many from the tester's address (the server's text,
// host/login; TestLoadTestNamesTheLoginLimit).
func loginLimitHint(err error) error {
	if errors.Is(err, client.ErrLogin) && strings.Contains(err.Error(), "Too many logins from your address") {
		return fail("refused:login", "%v: past the server's logins per address; for a load test turn it off "+
			"(limits.logins_per_address, as bench/loadtest.toml)", err)
	}
	return err
}

func opSwitch(ctx context.Context, e *Env, a *Account, _ *rand.Rand) error {
	s, err := e.c.Switch(ctx, a.sess, a.subLogin, a.subID)
	// The server's text (host/login; TestLoadTestNamesTheToggleLimits).
	if errors.Is(err, client.ErrLogin) && strings.Contains(err.Error(), "Too many account switches") {
		return fail("refused:login", "%v: past the server's switches per account or per address; for a load test turn them off "+
			"(limits.toggles_per_account and toggles_per_address, as bench/loadtest.toml)", err)
	}
	if err != nil {
		return err
	}
	if s.AccountID != a.subID || s.Cookie == "" {
		return fail("record", "switched to account %q, want %s", s.AccountID, a.subID)
	}
	return nil
}

func opPatch(ctx context.Context, e *Env, a *Account, _ *rand.Rand) error {
	arr, _, err := post(ctx, e.c, pathPatch, url.Values{"os": {"wac"}, "arch": {"x86_64"}, "version": {"4.10.1"}, "cookie": {a.sess.Cookie}}, 200)
	if err != nil {
		return err
	}
	if _, ok := arr.String("version"); !ok {
		return fail("refused", "patch reply without version")
	}
	return nil
}

// noReply reports whether err left no reply to read (the connection
// failed or timed out): the request may or may not have been applied.
func noReply(err error) bool { return lostKind(kindOf(err)) }

// lostKind reports whether failures of kind k had no reply at all.
func lostKind(k string) bool { return k == "transport" || k == "timeout" }
