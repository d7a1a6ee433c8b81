package loadtest

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/wire"
)

// This file is the load tester's extension API: an area adds its
// operations, and what the run does for them before and after (RegisterArea),
// from its own package, as the built-in areas do (host/plinko, host/guides,
// host/reports: each one's loadtest.go) and as the daily example does.

// Operation is a load-test operation an area adds to the mix: the area's
// requests, made as one logged-in test account, and their replies checked.
type Operation struct {
	Name     string // the mix's name for it, e.g. "daily"
	Doc      string // for --help and docs/loadtest.md
	Requests int    // HTTP requests per operation
	// Reads: the operation changes nothing on the server, so a request
	// that met a connection closed under it may be sent again.
	Reads bool
	// NeedsOperator, when not empty, says what the operation needs the
	// operator listener for ("granting tickets"): a run with it in the mix
	// and no --operator and --token is refused.
	NeedsOperator string
	// Spends: every account is granted the run's tickets and gold at
	// provisioning (through the operator API: set NeedsOperator too), and
	// its balances are compared with the server's at the end.
	Spends bool
	// DefaultWeight is the operation's weight in the mix a run gets when
	// none is given (DefaultMix); 0: not in it.
	DefaultWeight int
	// Fallback is the row the operation is counted in when it did another
	// operation's work instead of its own (Env.Fallback); nil: none.
	Fallback *Fallback
	// Do runs the operation. A check that fails returns a *Failure (Fail)
	// with a kind of the area's ("balance", "refused:..."); any other error
	// counts as a reply lost in transport. A mutation whose reply was lost
	// (NoReply), or said its outcome is unknown, records what it may have
	// changed (Account.Unknown) when its effect matters to the balance
	// check, or leaves the account out of it (Account.MarkUncertain).
	Do func(ctx context.Context, e *Env, a *Account, rng *rand.Rand) error
}

// Fallback is an operation's fallback row: an operation that could not do
// its own work any more (nothing left to buy, past a limit) does As's
// instead, and is counted in a row of its own named Row ("purchase>exchange"),
// so that the operation's row counts only what it says.
type Fallback struct {
	Row string // the report's row, "<operation>><As>"
	As  string // the operation it runs as (registered by the same area, or before it)
	Why string // why, for the report
}

// Area is an area's part of the load tester: its operations, and hooks run
// once per run when at least one of them is in the mix (every hook may be
// nil).
type Area struct {
	Name       string
	Operations []Operation
	// Provision runs after the accounts were registered, granted and
	// logged in, before the mix starts: it reads what the operations need
	// (a price list, the guides to use), keeping it in RunState. Its error
	// fails the run, and the accounts are removed.
	Provision func(ctx context.Context, e *Env) error
	// Check runs at the end, after the balances were checked and before
	// the accounts are removed: it adds the area's
	// findings to c (Consistency.Mismatch, Consistency.Skip).
	Check func(ctx context.Context, e *Env, c *Consistency)
	// Removed runs once every test account was removed (not when some
	// were kept or failed to go): what the accounts did must be gone.
	Removed func(ctx context.Context, e *Env, c *Consistency)
}

// areas are the registered areas, by name.
var areas = map[string]*Area{}

// areaOf names the area of each registered operation (none for the core's).
var areaOf = map[string]string{}

// RegisterArea adds the area's operations to those a mix may name, and its
// hooks to the runs that have them. Call it from an init function. It
// panics when a name is taken or an operation is incomplete: programming
// errors any test catches.
func RegisterArea(ar Area) {
	if _, taken := areas[ar.Name]; taken || ar.Name == "" || len(ar.Operations) == 0 {
		panic(fmt.Sprintf("loadtest: area %q registered twice or without operations", ar.Name))
	}
	mine := map[string]bool{}
	for _, op := range ar.Operations {
		if _, taken := operations[op.Name]; taken || op.Name == "" || op.Do == nil || op.Requests < 1 || mine[op.Name] {
			panic(fmt.Sprintf("loadtest: operation %q registered twice or incomplete", op.Name))
		}
		mine[op.Name] = true
	}
	rows := map[string]bool{}
	for _, op := range ar.Operations {
		if f := op.Fallback; f != nil {
			_, known := operations[f.As]
			if (!mine[f.As] && !known) || f.Row == "" || fallbackRows[f.Row] != "" || rows[f.Row] || operations[f.Row].do != nil || mine[f.Row] {
				panic(fmt.Sprintf("loadtest: operation %q: fallback row %q as %q taken or unknown", op.Name, f.Row, f.As))
			}
			rows[f.Row] = true
		}
	}
	for _, op := range ar.Operations {
		if op.Fallback != nil {
			fallbackRows[op.Fallback.Row] = op.Name
		}
		operations[op.Name] = operation{requests: op.Requests, reads: op.Reads, needsOperator: op.NeedsOperator != "", why: op.NeedsOperator,
			spends: op.Spends, fallback: op.Fallback, defaultWeight: max(op.DefaultWeight, 0), do: op.Do}
		OperationDoc[op.Name] = op.Doc
		areaOf[op.Name] = ar.Name
	}
	areas[ar.Name] = &ar
}

// RegisterOperation registers an area of one operation, without hooks.
func RegisterOperation(op Operation) {
	RegisterArea(Area{Name: op.Name, Operations: []Operation{op}})
}

// areasOf returns the areas with an operation in the mix, by name.
func areasOf(mix Mix) []*Area {
	names := map[string]bool{}
	for op := range mix {
		if n := areaOf[op]; n != "" {
			names[n] = true
		}
	}
	var out []*Area
	for _, n := range slices.Sorted(maps.Keys(names)) {
		out = append(out, areas[n])
	}
	return out
}

// Env is one run as its operations and hooks see it: what every operation
// shares. Its methods are safe for concurrent use.
type Env struct {
	c   *client.Client
	run string // the run's tag
	mix Mix
	opc *opClient // nil: no operator listener

	logins []string   // every test account's login, by index
	accts  []*Account // every test account, once provisioned

	converge time.Duration // Options.Converge as it applies to the run's targets

	mu    sync.Mutex
	state map[string]any // RunState
}

// Client is the run's HTTP client to the server under test.
func (e *Env) Client() *client.Client { return e.c }

// Tag is the run's three-character tag (in every test login).
func (e *Env) Tag() string { return e.run }

// InMix reports whether any of the named operations is in the run's mix.
func (e *Env) InMix(names ...string) bool {
	for _, n := range names {
		if e.mix[n] > 0 {
			return true
		}
	}
	return false
}

// Logins lists every test account's login, by Account.Index.
func (e *Env) Logins() []string { return e.logins }

// Accounts lists the test accounts (for Provision, Check and Removed: while
// the mix runs, each is used by one operation at a time).
func (e *Env) Accounts() []*Account { return e.accts }

// HasOperator reports whether the run has the operator listener.
func (e *Env) HasOperator() bool { return e.opc != nil }

// OperatorGet reads path (an area's route, area.Live.API) from the operator API
// into v (JSON).
func (e *Env) OperatorGet(ctx context.Context, path string, query url.Values, v any) error {
	if e.opc == nil {
		return fmt.Errorf("no operator listener")
	}
	return e.opc.callJSON(ctx, "GET", path, query, v)
}

// Converged runs check, which adds its findings to a Consistency, until
// they have no mismatch or the run's convergence bound (Options.Converge)
// has passed, a second apart, and adds the last findings to c: for figures
// the server converges to rather than holds at once (a cluster's guide
// vote counts, which a node learns from the others by rescans). With no
// bound (one server) check runs once.
func (e *Env) Converged(ctx context.Context, c *Consistency, check func(c *Consistency)) {
	start := time.Now()
	for {
		var try Consistency
		check(&try)
		if try.OK() || time.Since(start) >= e.converge || ctx.Err() != nil {
			if waited := time.Since(start); try.OK() && waited >= time.Second {
				c.Converged = max(c.Converged, waited)
			}
			c.add(&try)
			return
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
	}
}

// Post sends a form to path and decodes the PHP reply, which must come with
// HTTP status wantStatus: failures of kind http_<status> or decode
// otherwise.
func (e *Env) Post(ctx context.Context, path string, form url.Values, wantStatus int) (*wire.Array, error) {
	arr, _, err := post(ctx, e.c, path, form, wantStatus)
	return arr, err
}

// Fallback runs the current operation's fallback (Operation.Fallback) on a
// instead of the operation's own work, and counts it in the fallback's row.
func (e *Env) Fallback(ctx context.Context, a *Account, rng *rand.Rand) error {
	f := operations[a.op].fallback
	if f == nil {
		panic("loadtest: operation " + a.op + " has no fallback")
	}
	a.fellBack = f.Row
	return operations[f.As].do(ctx, e, a, rng)
}

// RunState returns the run's value of key (an area's name), made with init
// on first use: what an area's operations share over the run (the guides
// found at provisioning). It may be called by concurrent operations; the
// value's own fields need their own lock if operations change them.
func RunState[T any](e *Env, key string, init func() *T) *T {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state == nil {
		e.state = map[string]any{}
	}
	v, ok := e.state[key]
	if !ok {
		v = init()
		e.state[key] = v
	}
	return v.(*T)
}

// AccountState returns the account's value of key (an area's name), made
// with init on first use: what the area's replies said about the account
// (its guide marks). Only one operation at a time uses an account, so the
// value needs no lock.
func AccountState[T any](a *Account, key string, init func() *T) *T {
	if a.state == nil {
		a.state = map[string]any{}
	}
	v, ok := a.state[key]
	if !ok {
		v = init()
		a.state[key] = v
	}
	return v.(*T)
}

// ID is the test account's id.
func (a *Account) ID() string { return a.id }

// Cookie is the account's session cookie.
func (a *Account) Cookie() string { return a.sess.Cookie }

// Index is the account's position in Env.Logins.
func (a *Account) Index() int { return a.index }

// Tickets and Gold are the account's balances as the replies so far said
// (a mix with a Spends operation grants them at provisioning).
func (a *Account) Tickets() int64 { return a.tickets }

// Gold: see Tickets.
func (a *Account) Gold() int64 { return a.gold }

// BalanceKnown is false until the run granted the account its tickets and
// gold, while operations of unknown outcome are not settled (Unknown), and
// once the account is left out (MarkUncertain).
func (a *Account) BalanceKnown() bool { return a.known && !a.uncertain && len(a.pending) == 0 }

// Spend takes what a reply said the account paid off its balances.
func (a *Account) Spend(tickets, gold int64) {
	a.spentTickets += tickets
	a.tickets -= tickets
	a.spentGold += gold
	a.gold -= gold
}

// Win adds tickets a reply said the account was paid.
func (a *Account) Win(tickets int64) {
	a.wonTickets += tickets
	a.tickets += tickets
}

// MarkUncertain leaves the account out of the end-of-run balance check
// (counted): a mutation's reply was lost and its effect cannot be stated
// as an Unknown.
func (a *Account) MarkUncertain() { a.uncertain, a.pending = true, nil }

// Fail returns a *Failure of the kind.
func Fail(kind, format string, args ...any) error { return fail(kind, format, args...) }

// Kind names the failure kind of an operation's error, as the report counts
// it ("transport", "timeout", "http_500", a *Failure's Kind...).
func Kind(err error) string { return kindOf(err) }

// NoReply reports whether err left no reply to read (the connection failed
// or timed out): the request may or may not have been applied.
func NoReply(err error) bool { return noReply(err) }

// Login is the test account's login.
func (a *Account) Login() string { return a.login }

// Decode reads a reply as a PHP array, which must come with HTTP status
// wantStatus: failures of kind http_<status> or decode otherwise.
func Decode(r *client.Reply, wantStatus int) (*wire.Array, error) {
	arr, _, err := decode(r, wantStatus)
	return arr, err
}

// Read runs read, a read of an end-of-run check (Area.Check) against the
// server: one that met no server (a node of the targets that is down) is
// sent again, each time to a target not tried yet while there is one, at
// most checkTries times in all, within the run's request timeout.
func (e *Env) Read(ctx context.Context, read func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	ctx = withTriedTargets(ctx)
	err := read(ctx)
	for try := 1; try < checkTries && err != nil && noReply(err) && ctx.Err() == nil; try++ {
		err = read(ctx)
	}
	return err
}

// OperatorPostJSON posts in, as JSON, to path (an area's operator API
// route, e.g. "/api/matches/game-host") and decodes the JSON answer into
// out.
func (e *Env) OperatorPostJSON(ctx context.Context, path string, in, out any) error {
	if e.opc == nil {
		return fmt.Errorf("no operator listener")
	}
	return e.opc.postJSON(ctx, path, in, out)
}

// Password is the account's password (every test account of a run has
// the same, "load-" and the run's tag): an area whose operation logs in
// elsewhere with it (a game server's host account).
func (a *Account) Password() string { return a.password }

// AreaCheck is an area's own end-of-run check in the consistency report
// (Consistency.Area): Checked things compared, OK of them agreed, Left out
// because their outcome stayed unknown. The run fails unless OK == Checked.
type AreaCheck struct {
	What    string `json:"what"` // what was compared ("accounts' match totals")
	Checked int    `json:"checked"`
	OK      int    `json:"ok"`
	Left    int    `json:"left_out,omitempty"`
}

// Area returns the area's check of name in c, made on first use, for the
// area's Check (or Removed) to count what it compared. name is the area's
// name, followed by what the check is about when the area makes several
// ("<area> <check>", e.g. "matches totals"): the key of the JSON report's
// consistency.areas. what says it in the text report's consistency line
// ("<what> <ok>/<checked>"). A check made before anything is compared
// says 0/0 when nothing was: the report then shows the check ran.
func (c *Consistency) Area(name, what string) *AreaCheck {
	if c.Areas == nil {
		c.Areas = map[string]*AreaCheck{}
	}
	ac := c.Areas[name]
	if ac == nil {
		ac = &AreaCheck{What: what}
		c.Areas[name] = ac
	}
	return ac
}

// areasOK reports whether every area's check agreed.
func (c *Consistency) areasOK() bool {
	for _, ac := range c.Areas {
		if ac.OK != ac.Checked {
			return false
		}
	}
	return true
}

// addAreas adds o's area checks to c's.
func (c *Consistency) addAreas(o *Consistency) {
	for name, ac := range o.Areas {
		mine := c.Area(name, ac.What)
		mine.Checked += ac.Checked
		mine.OK += ac.OK
		mine.Left += ac.Left
	}
}

// areasSummary is the areas' checks for Summary.
func (c *Consistency) areasSummary() string {
	s := ""
	for _, name := range slices.Sorted(maps.Keys(c.Areas)) {
		ac := c.Areas[name]
		s += fmt.Sprintf(", %s %d/%d", ac.What, ac.OK, ac.Checked)
		if ac.Left > 0 {
			s += fmt.Sprintf(" (%d left out: outcome unknown)", ac.Left)
		}
	}
	return s
}
