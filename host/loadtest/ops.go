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
	"github.com/honmaster/masterserver/host/guides"
	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/wire"
)

// Paths the load tester calls, from the areas' own constants. It talks
// only to the target and the operator listener it is given.
const (
	pathNoop      = "/loadtest/noop" // not served: answered 404 by the full HTTP stack
	pathRegister  = server.PathRegister
	pathPatch     = server.PathPatcher
	pathBoard     = plinko.PathBoard
	pathDrop      = plinko.PathDrop
	pathViewChest = plinko.PathViewChest
	pathExchange  = plinko.PathExchange
	pathPurchase  = plinko.PathPurchase
	pathStore     = cloud.PathStore
	pathStatus    = cloud.PathStatus
	pathRetrieve  = cloud.PathRetrieve
	cloudBucket   = "hon-game-configs"
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

// account is one test account and what the replies said about it. Only one
// operation at a time uses an account.
type account struct {
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
	drops                   int
	owned                   map[string]bool // product ids the account owns

	// Cloud: the account's two settings archives and their store requests,
	// built on its first store (cloudRequests); how many stores were
	// acknowledged (the next store sends variant stores%2, always the other
	// one than the archive last acknowledged: lastStored).
	cloud  *cloudRequests
	stores int
	// uncertain: a mutation's reply was lost (transport error or timeout);
	// the account is left out of the consistency check.
	uncertain bool

	index   int         // position in the run's accounts (env.logins)
	marks   *guideMarks // guide flags and votes as the replies said (ops_guides.go)
	reports int         // reports filed (ops_reports.go)

	// fellBack names the fallback row (fallbacks) the account's current
	// operation ran as instead of its own; "" when it ran as itself.
	fellBack string
}

// fallback is an operation that did the work of another instead of its own.
type fallback struct {
	of, as string // the operation of the mix, and the one it ran instead
	why    string
}

// Fallback rows: an operation that could not do its own work any more does
// another's instead, and is counted in a row of its own, so that the
// operation's row counts only what it says (purchases made, reports filed).
const (
	purchaseListed = "purchase>exchange"
	reportStatus   = "report>reportinfo"
)

// fallbacks are the fallback rows, by row name.
var fallbacks = map[string]fallback{
	purchaseListed: {of: "purchase", as: "exchange", why: "nothing left to buy: read the exchange list instead"},
	reportStatus:   {of: "report", as: "reportinfo", why: "past the report limits: asked the reporting status instead"},
}

// requestsOf is the HTTP requests per operation of a row of the report.
func requestsOf(row string) int {
	if f, ok := fallbacks[row]; ok {
		return operations[f.as].requests
	}
	return operations[row].requests
}

// env is what operations share.
type env struct {
	c                    *client.Client
	ticketCost, goldCost int64
	exchange             []exchangeItem
	run                  string

	logins []string    // every test account's login, by index
	guides []guideRef  // guides of the demo heroes, found at provisioning
	voted  votedGuides // guides the run voted on
}

type exchangeItem struct {
	productID string
	cost      int64
}

// operation is one kind of work of the mix.
type operation struct {
	requests      int // HTTP requests per operation
	needsOperator bool
	why           string
	spends        bool // needs tickets and gold granted
	guides        bool // needs the guides found at provisioning
	// reads: the operation changes nothing on the server, so a request of
	// it that met a connection closed under it may be sent again
	// (transport).
	reads bool
	do    func(ctx context.Context, e *env, a *account, rng *rand.Rand) error
}

// operations is the table of the mix's operations.
var operations = map[string]operation{
	"noop":     {requests: 1, reads: true, do: opNoop},
	"login":    {requests: 2, do: opLogin},
	"switch":   {requests: 1, do: opSwitch, needsOperator: true, why: "creating sub-accounts"},
	"patch":    {requests: 1, reads: true, do: opPatch},
	"board":    {requests: 1, reads: true, do: opBoard},
	"drop":     {requests: 1, do: opDrop, needsOperator: true, why: "granting tickets and gold", spends: true},
	"chest":    {requests: 1, reads: true, do: opChest},
	"exchange": {requests: 1, reads: true, do: opExchange},
	"purchase": {requests: 1, do: opPurchase, needsOperator: true, why: "granting tickets", spends: true},
	"cloud":    {requests: 3, do: opCloud},
	"store":    {requests: 1, do: opStore},
	"guides":   {requests: 1, reads: true, do: opGuides},
	// ops_guides.go, ops_reports.go
	"guide":      {requests: 1, reads: true, do: opGuide, guides: true},
	"guideflag":  {requests: 1, do: opGuideFlag, guides: true},
	"vote":       {requests: 1, do: opVote, guides: true},
	"report":     {requests: 1, do: opReport},
	"reportinfo": {requests: 1, reads: true, do: opReportInfo},
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

// OperationDoc describes each operation (for --help and docs/loadtest.md).
var OperationDoc = map[string]string{
	"noop":     "POST to a path the server does not serve: the whole HTTP stack and its 404 PHP error reply, nothing else (the ceiling)",
	"login":    "pre_auth + srpAuth with the client's SRP arithmetic; the server's proof M2 is checked",
	"switch":   "switch_auth to the account's sub-account; the record must name it",
	"patch":    "patcher.php for wac/x86_64",
	"board":    "the Plinko board; balances must match the replies so far",
	"drop":     "one Plinko drop (every fourth in gold); user_tickets must equal the balance before - cost + what it paid (ticket_amount, or an exhausted chest's tickets)",
	"chest":    "viewchest of a random chest",
	"exchange": "the ticket exchange list; user_tickets must match",
	"purchase": "buys an exchange item the account does not own; tickets_remaining must equal the balance before - cost " +
		"(with nothing left to buy it reads the list instead, counted as " + purchaseListed + ")",
	"cloud":  "store as the store operation does, status, retrieve: the bytes must be the ones stored",
	"store":  "store alone: the other of the account's two settings archives than it stored last (one durable mutation; the check at the end retrieves it)",
	"guides": "a hero's guide list (get_guide_list_filtered): success with the hosttime echoed (a hero without guides lists empty)",
	"guide":  "get_guide of a guide of the demo heroes: the guide asked for, with the account's default, favorite and vote as its replies left them",
	"guideflag": "sets or removes (whichever changes it) the account's default or favorite mark on a guide (guide_default_set/remove, " +
		"guide_favorite_set/remove); set must say which",
	"vote": "guide_vote on a guide: the opposite of the account's last vote on it (both counts move), else up or down at random; " +
		"the check at the end compares the server's counts (operator API) with the accounts' final votes",
	"report": "files a report (/master/report/report) against another test account, within the server's default limits " +
		"(20 a day, 2 per reportee); past them asks reportinforequest instead, counted as " + reportStatus + ". It must be accepted (report_success 1)",
	"reportinfo": "reportinforequest (the reporting status the client asks at login): success, status 0",
}

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

func opNoop(ctx context.Context, e *env, a *account, _ *rand.Rand) error {
	arr, _, err := post(ctx, e.c, pathNoop, url.Values{"cookie": {a.sess.Cookie}}, 404)
	if err != nil {
		return err
	}
	if _, ok := arr.String("error"); !ok {
		return fail("decode", "404 without an error entry")
	}
	return nil
}

func opLogin(ctx context.Context, e *env, a *account, _ *rand.Rand) error {
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

func opSwitch(ctx context.Context, e *env, a *account, _ *rand.Rand) error {
	s, err := e.c.Switch(ctx, a.sess, a.subLogin, a.subID)
	if err != nil {
		return err
	}
	if s.AccountID != a.subID || s.Cookie == "" {
		return fail("record", "switched to account %q, want %s", s.AccountID, a.subID)
	}
	return nil
}

func opPatch(ctx context.Context, e *env, a *account, _ *rand.Rand) error {
	arr, _, err := post(ctx, e.c, pathPatch, url.Values{"os": {"wac"}, "arch": {"x86_64"}, "version": {"4.10.1"}, "cookie": {a.sess.Cookie}}, 200)
	if err != nil {
		return err
	}
	if _, ok := arr.String("version"); !ok {
		return fail("refused", "patch reply without version")
	}
	return nil
}

// intText reads an integer sent as text or as an integer.
func intText(arr *wire.Array, key string) (int64, bool) {
	if n, ok := arr.Int(key); ok {
		return n, true
	}
	s, ok := arr.String(key)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// status checks a Plinko reply's status_code.
func status(arr *wire.Array, want int64) error {
	code, ok := intText(arr, "status_code")
	if !ok {
		return fail("decode", "no status_code")
	}
	if code != want {
		return fail("refused:"+strconv.FormatInt(code, 10), "status_code %d", code)
	}
	return nil
}

// checkBalance compares a balance a reply states with the one expected.
func (a *account) checkBalance(what string, got, want int64) error {
	if a.known && got != want {
		a.uncertain = true // stop checking an account that already disagrees
		return fail("balance", "%s: reply says %d, expected %d", what, got, want)
	}
	return nil
}

func opBoard(ctx context.Context, e *env, a *account, _ *rand.Rand) error {
	arr, _, err := post(ctx, e.c, pathBoard, url.Values{"cookie": {a.sess.Cookie}}, 200)
	if err != nil {
		return err
	}
	if err := status(arr, 1); err != nil {
		return err
	}
	t, _ := intText(arr, "user_tickets")
	g, _ := intText(arr, "user_gold")
	if err := a.checkBalance("board user_tickets", t, a.tickets); err != nil {
		return err
	}
	return a.checkBalance("board user_gold", g, a.gold)
}

func opDrop(ctx context.Context, e *env, a *account, _ *rand.Rand) error {
	currency, cost := "tickets", e.ticketCost
	if a.drops%4 == 3 && a.gold >= e.goldCost {
		currency, cost = "gold", e.goldCost
	}
	a.drops++
	arr, _, err := post(ctx, e.c, pathDrop, url.Values{"cookie": {a.sess.Cookie}, "currency": {currency}}, 200)
	if err != nil {
		if noReply(err) {
			a.uncertain = true
		}
		return err
	}
	if err := status(arr, 1); err != nil {
		return err // a refused drop charges nothing
	}
	won, ok := arr.Int("ticket_amount")
	if !ok {
		return fail("decode", "drop without ticket_amount")
	}
	// An exhausted chest answers ticket_amount 0 (the specification's
	// shape) and pays its tier's tickets into the balance.
	if exhausted, _ := arr.Bool("products_exhausted"); exhausted {
		tier, _ := intText(arr, "random_tier")
		won = int64(plinkoapi.Tier(tier).Tickets())
	}
	t, _ := intText(arr, "user_tickets")
	g, _ := intText(arr, "user_gold")
	if currency == "gold" {
		a.spentGold += cost
		a.gold -= cost
	} else {
		a.spentTickets += cost
		a.tickets -= cost
	}
	a.wonTickets += won
	a.tickets += won
	if pid, _ := arr.String("product_id"); pid != "" && pid != "-1" {
		a.owned[pid] = true
	}
	if err := a.checkBalance("drop user_tickets", t, a.tickets); err != nil {
		return err
	}
	return a.checkBalance("drop user_gold", g, a.gold)
}

func opChest(ctx context.Context, e *env, a *account, rng *rand.Rand) error {
	arr, _, err := post(ctx, e.c, pathViewChest, url.Values{"cookie": {a.sess.Cookie},
		"tier_id": {strconv.Itoa(1 + rng.IntN(4))}, "target_index": {"1"}}, 200)
	if err != nil {
		return err
	}
	if code, ok := intText(arr, "status_code"); ok {
		return fail("refused:"+strconv.FormatInt(code, 10), "viewchest status_code %d", code)
	}
	if _, ok := arr.Int("items_amount"); !ok {
		return fail("decode", "viewchest without items_amount")
	}
	return nil
}

func opExchange(ctx context.Context, e *env, a *account, _ *rand.Rand) error {
	arr, _, err := post(ctx, e.c, pathExchange, url.Values{"cookie": {a.sess.Cookie}}, 200)
	if err != nil {
		return err
	}
	if err := status(arr, 51); err != nil {
		return err
	}
	t, _ := intText(arr, "user_tickets")
	return a.checkBalance("exchange user_tickets", t, a.tickets)
}

// exchangeList reads the exchange's items (at provisioning).
func exchangeList(ctx context.Context, c *client.Client, cookie string) ([]exchangeItem, error) {
	arr, _, err := post(ctx, c, pathExchange, url.Values{"cookie": {cookie}}, 200)
	if err != nil {
		return nil, err
	}
	if err := status(arr, 51); err != nil {
		return nil, err
	}
	items, _ := arr.Array("items")
	var out []exchangeItem
	if items == nil {
		return nil, nil
	}
	for _, v := range items.All() {
		it, ok := v.(*wire.Array)
		if !ok {
			continue
		}
		pid, _ := it.String("product_id")
		cost, ok := intText(it, "cost")
		if pid != "" && ok {
			out = append(out, exchangeItem{productID: pid, cost: cost})
		}
	}
	return out, nil
}

func opPurchase(ctx context.Context, e *env, a *account, rng *rand.Rand) error {
	var choices []exchangeItem
	for _, it := range e.exchange {
		if !a.owned[it.productID] && it.cost <= a.tickets {
			choices = append(choices, it)
		}
	}
	if len(choices) == 0 {
		a.fellBack = purchaseListed
		return opExchange(ctx, e, a, rng) // everything owned: look at the list instead
	}
	it := choices[rng.IntN(len(choices))]
	arr, _, err := post(ctx, e.c, pathPurchase, url.Values{"cookie": {a.sess.Cookie}, "id": {it.productID}}, 200)
	if err != nil {
		if noReply(err) {
			a.uncertain = true
		}
		return err
	}
	if err := status(arr, 51); err != nil {
		if code, _ := intText(arr, "status_code"); code == 10 {
			a.owned[it.productID] = true // owned through a grab bag or drop we did not see
		}
		return err
	}
	a.spentTickets += it.cost
	a.tickets -= it.cost
	a.owned[it.productID] = true
	if ids, ok := arr.String("grabBagIDs"); ok {
		for _, id := range strings.Split(ids, "|") {
			a.owned[id] = true
		}
	}
	left, ok := arr.Int("tickets_remaining")
	if !ok {
		return fail("decode", "purchase without tickets_remaining")
	}
	return a.checkBalance("purchase tickets_remaining", left, a.tickets)
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
func (a *account) storeRequest(v int) (body []byte, contentType string, err error) {
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
func store(ctx context.Context, e *env, a *account) error {
	v := a.stores % 2
	body, contentType, err := a.storeRequest(v)
	if err != nil {
		return fail("internal", "%v", err)
	}
	r, err := e.c.Post(ctx, pathStore, contentType, body)
	if err != nil {
		a.uncertain = true
		return err
	}
	arr, _, err := decode(r, 200)
	if err != nil {
		return err
	}
	if ok, _ := arr.Bool("success"); !ok {
		msg, _ := arr.String("messages")
		return fail("refused:store", "%s", msg)
	}
	a.stores++
	return nil
}

// lastStored is the archive the server last acknowledged for the account
// (nil before its first store).
func (a *account) lastStored() []byte {
	if a.stores == 0 {
		return nil
	}
	return a.cloud.archive[(a.stores-1)%2]
}

func opStore(ctx context.Context, e *env, a *account, _ *rand.Rand) error { return store(ctx, e, a) }

func opCloud(ctx context.Context, e *env, a *account, _ *rand.Rand) error {
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
func retrieveCheck(ctx context.Context, c *client.Client, a *account) error {
	r, err := c.PostMultipart(ctx, pathRetrieve, url.Values{"cookie": {a.sess.Cookie}, "bucket": {cloudBucket}})
	if err != nil {
		return err
	}
	if r.Status != 200 {
		return fail("http_"+strconv.Itoa(r.Status), "%.200s", r.Body)
	}
	if stored := a.lastStored(); !bytes.Equal(r.Body, stored) {
		return fail("cloud_mismatch", "retrieved %d bytes, not the %d stored", len(r.Body), len(stored))
	}
	return nil
}

// guideHeroes are the heroes whose guide lists the guides operation reads.
var guideHeroes = []string{"Hero_Pyromancer", "Hero_Devourer", "Hero_Hammerstorm", "Hero_Legionnaire"}

func opGuides(ctx context.Context, e *env, a *account, rng *rand.Rand) error {
	_, err := guideCall(ctx, e, a, guides.FuncList, url.Values{"hero": {guideHeroes[rng.IntN(len(guideHeroes))]}})
	return err
}

// noReply reports whether err left no reply to read (the connection
// failed or timed out): the request may or may not have been applied.
func noReply(err error) bool { return lostKind(kindOf(err)) }

// lostKind reports whether failures of kind k had no reply at all.
func lostKind(k string) bool { return k == "transport" || k == "timeout" }

// noUsableReply is noReply, or a reply that could not be read (an HTTP
// error status, an undecodable body): the guide marks and votes it was to
// confirm are then unknown.
func noUsableReply(err error) bool {
	k := kindOf(err)
	return lostKind(k) || k == "decode" || strings.HasPrefix(k, "http_")
}
