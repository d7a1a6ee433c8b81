package loadtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/cloud"
	"github.com/honmaster/masterserver/host/cloudcfg"
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
	pathStore    = cloud.PathStore
	pathStatus   = cloud.PathStatus
	pathRetrieve = cloud.PathRetrieve
	cloudBucket  = "hon-game-configs"
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

	// Cloud: the account's two settings archives and their store requests,
	// built on its first store (cloudRequests); how many stores were
	// acknowledged (the next store sends variant stores%2, always the other
	// one than the archive last acknowledged: lastStored). cloudUnknown: a
	// store of that variant has an unknown outcome (its reply was lost, or
	// said so), so the archive on the server may be either.
	cloud        *cloudRequests
	stores       int
	cloudUnknown bool
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
	"cloud":  {requests: 3, do: opCloud, defaultWeight: 1},
	"store":  {requests: 1, do: opStore},
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
	"cloud":  "store as the store operation does, status, retrieve: the bytes must be the ones stored",
	"store":  "store alone: the other of the account's two settings archives than it stored last (one durable mutation; the check at the end retrieves it)",
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
		return err // kindOf names a wrong server proof (client.ErrServerProof)
	}
	if s.Cookie == "" || s.AccountID != a.id {
		return fail("record", "login record: cookie %q account_id %q, want %s", s.Cookie, s.AccountID, a.id)
	}
	s.Record = nil
	a.sess = s
	return nil
}

func opSwitch(ctx context.Context, e *Env, a *Account, _ *rand.Rand) error {
	s, err := e.c.Switch(ctx, a.sess, a.subLogin, a.subID)
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

// cloudRequests are an account's two settings archives and the store
// requests that carry them, built once, on the account's first store (the
// bodies again only when its session cookie changed, after a login
// operation): a store then costs the tester a request, and measures the
// server's store, not the tester's zip and multipart encoding. A store sends
// the other archive than the one last acknowledged, so each one changes what
// the server keeps, and a store it acknowledged but did not keep leaves the
// other archive for the check at the end to find.
type cloudRequests struct {
	archive     [2][]byte
	cookie      string // the session cookie the bodies carry
	body        [2][]byte
	contentType [2]string
}

// archiveFor builds the account's settings archive variant (0 or 1): its
// cfg names the login and the variant, so the two differ from each other and
// from every other account's.
func archiveFor(login string, variant int) ([]byte, error) {
	cfg := fmt.Sprintf("SetSave \"cl_Rap2Enable\" \"false\" \"1\"\nSetSave \"ui_loadtest\" \"%s-%d\" \"1\"\n", login, variant)
	return cloudcfg.BuildArchive([]byte(cfg))
}

// storeRequest returns the body and Content-Type of the account's store of
// archive variant v, building the archives on the first call and the bodies
// whenever the session's cookie is not the one they carry.
func (a *Account) storeRequest(v int) (body []byte, contentType string, err error) {
	if a.cloud == nil {
		var r cloudRequests
		for i := range r.archive {
			if r.archive[i], err = archiveFor(a.login, i); err != nil {
				return nil, "", err
			}
		}
		a.cloud = &r
	}
	r := a.cloud
	if r.cookie != a.sess.Cookie {
		var bodies [2][]byte
		var types [2]string
		fields := url.Values{"cookie": {a.sess.Cookie}, "bucket": {cloudBucket}, "file_modify_time": {"2026-01-02 03:04:05"}}
		for i, zip := range r.archive {
			if bodies[i], types[i], err = client.MultipartBody(fields, client.FilePart{Field: "cloud.zip", Filename: "cloud.zip", Data: zip}); err != nil {
				return nil, "", err
			}
		}
		r.body, r.contentType, r.cookie = bodies, types, a.sess.Cookie
	}
	return r.body[v], r.contentType[v], nil
}

// store stores the other of the account's two archives than the one the
// server last acknowledged (cloudRequests).
func store(ctx context.Context, e *Env, a *Account) error {
	v := a.stores % 2
	body, contentType, err := a.storeRequest(v)
	if err != nil {
		return fail("internal", "%v", err)
	}
	r, err := e.c.Post(ctx, pathStore, contentType, body)
	if err != nil {
		a.cloudUnknown = a.cloudUnknown || noReply(err)
		return err
	}
	arr, _, err := decode(r, 200)
	if err != nil {
		return err
	}
	if ok, _ := arr.Bool("success"); !ok {
		msg, _ := arr.String("messages")
		if strings.Contains(msg, "may or may not") { // the cloud area's outcome unknown
			a.cloudUnknown = true
		}
		return fail("refused:store", "%s", msg)
	}
	a.stores++
	a.cloudUnknown = false // the variant sent is the one stored now
	return nil
}

// lastStored is the archive the server last acknowledged for the account
// (nil before its first store).
func (a *Account) lastStored() []byte {
	if a.stores == 0 {
		return nil
	}
	return a.cloud.archive[(a.stores-1)%2]
}

func opStore(ctx context.Context, e *Env, a *Account, _ *rand.Rand) error { return store(ctx, e, a) }

func opCloud(ctx context.Context, e *Env, a *Account, _ *rand.Rand) error {
	if err := store(ctx, e, a); err != nil {
		return err
	}
	r, err := e.c.PostMultipart(ctx, pathStatus, url.Values{"cookie": {a.sess.Cookie}, "bucket": {cloudBucket}})
	if err != nil {
		return err
	}
	arr, _, err := decode(r, 200)
	if err != nil {
		return err
	}
	if ok, _ := arr.Bool("success"); !ok {
		return fail("refused:status", "%.200s", r.Body)
	}
	if info, ok := arr.Array("cloud_storage_info"); !ok || info == nil {
		return fail("cloud_status", "status shows nothing stored after a store")
	}
	return retrieveCheck(ctx, e.c, a)
}

// retrieveCheck retrieves the account's archive and compares it with the
// one stored last.
func retrieveCheck(ctx context.Context, c *client.Client, a *Account) error {
	r, err := c.PostMultipart(ctx, pathRetrieve, url.Values{"cookie": {a.sess.Cookie}, "bucket": {cloudBucket}})
	if err != nil {
		return err
	}
	if r.Status != 200 {
		return fail("http_"+strconv.Itoa(r.Status), "%.200s", r.Body)
	}
	stored := a.lastStored()
	if bytes.Equal(r.Body, stored) || a.cloudUnknown && bytes.Equal(r.Body, a.cloud.archive[a.stores%2]) {
		return nil
	}
	return fail("cloud_mismatch", "retrieved %d bytes, not the %d stored", len(r.Body), len(stored))
}

// noReply reports whether err left no reply to read (the connection
// failed or timed out): the request may or may not have been applied.
func noReply(err error) bool { return lostKind(kindOf(err)) }

// lostKind reports whether failures of kind k had no reply at all.
func lostKind(k string) bool { return k == "transport" || k == "timeout" }
