package area

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// Answer is what the client reads for one cause of a failed request.
type Answer struct {
	// Status is the area's status code (0: its replies carry none).
	Status int
	// Error is the error text the client reads ("": none).
	Error string
	// Outcome is how the reply counts in the metrics and the access log:
	// server.OutcomeRefused (the player's doing), server.OutcomeError (the
	// server's) or server.OutcomeOK (an answer, such as "nothing found").
	// Left empty, it is OutcomeError for a server-side cause
	// (Cause.ServerSide: a Row matching such a Cause, the table's
	// OutcomeUnknown and Internal), OutcomeRefused for everything else.
	Outcome string
}

// StatusText is Status in decimal, for a reply that sends it as text
// (s:1:"3";).
func (a Answer) StatusText() string { return strconv.Itoa(a.Status) }

// Row is one line of a CauseTable: what it matches, and its answer. Set
// one of Err, Cause and Match.
type Row struct {
	// Err matches every error that errors.Is it: the area's own errors.
	Err error
	// Cause matches the errors CauseOf classifies so (one of the causes
	// every area shares; CauseOther never matches).
	Cause Cause
	// Match matches the errors it reports true for (an error type of the
	// area's, such as a refusal carrying its reason).
	Match func(err error) bool
	Answer
}

func (r *Row) matches(err error, c Cause) bool {
	switch {
	case r.Match != nil:
		return r.Match(err)
	case r.Err != nil:
		return errors.Is(err, r.Err)
	}
	return r.Cause != CauseOther && r.Cause == c
}

// CauseTable is an area's table of causes: what the client reads for
// each refusal and failure. A failure is answered by OutcomeUnknown when
// its outcome is unknown (CauseOf says CauseOutcomeUnknown: the change
// may have been written, whatever else the error says), else by the
// first Row matching it, else by Internal.
type CauseTable struct {
	OutcomeUnknown Answer
	Rows           []Row
	Internal       Answer
	// Key is the PHP key of the failure replies' entry holding the status
	// code or the error text ("status_code", "errors"; "": "error", the
	// default failure reply's). Each reply's metric outcome is read from
	// it: a value naming an answer of the table counts as that answer's
	// Outcome, anything else (a success, a reply without the key) as ok
	// (see Replies.Outcome).
	Key string
}

// StandardCauses is the table of an area without status codes of its
// own: the area's own rows first, then the causes every area shares,
// each answered with its sentence (Cause.Message), a failure of unknown
// outcome with CauseOutcomeUnknown's and anything else with
// CauseInternal's.
func StandardCauses(own ...Row) CauseTable {
	t := CauseTable{OutcomeUnknown: Answer{Error: CauseOutcomeUnknown.Message()}, Internal: Answer{Error: CauseInternal.Message()}}
	t.Rows = append(t.Rows, own...)
	for _, c := range []Cause{CauseBadCookie, CauseBadRequest, CausePluginDown, CauseStorageFull, CauseRetry} {
		t.Rows = append(t.Rows, Row{Cause: c, Answer: Answer{Error: c.Message()}})
	}
	return t
}

// Answer is the table's answer to err, its Outcome filled in.
func (t *CauseTable) Answer(err error) Answer {
	c := CauseOf(err)
	if c == CauseOutcomeUnknown {
		return withOutcome(t.OutcomeUnknown, true)
	}
	for i := range t.Rows {
		if r := &t.Rows[i]; r.matches(err, c) {
			return withOutcome(r.Answer, r.Match == nil && r.Err == nil && r.Cause.ServerSide())
		}
	}
	return withOutcome(t.Internal, true)
}

func withOutcome(a Answer, serverSide bool) Answer {
	if a.Outcome == "" {
		a.Outcome = server.OutcomeRefused
		if serverSide {
			a.Outcome = server.OutcomeError
		}
	}
	return a
}

// Replies are an area's replies, which the host writes from what the
// area declares:
//
//   - its table of causes (CauseTable): for each reason a request fails,
//     what the client reads (a status code, an error text) and how the
//     reply counts in the metrics;
//   - for each route (Route), how its request is read (a typed form, or a
//     Decode of the area's own), its logic (Serve: a request in, a reply
//     or an error out) and, when the client expects more than the
//     default failure reply (ErrorReply), its failure shape (Fail: which
//     fields stay present, such as the balances).
//
// NewRoute turns that into a server.Route: it decodes the request (and,
// for a signed-in player's route, Account or Change, reads and
// authenticates its cookie and runs a Change in the account's actor),
// calls the logic, encodes the reply (package wire), answers an error from the
// table in the route's failure shape, logs it, reads each reply's metric
// outcome back from its body, and answers a request that could not be
// read, or was read but not served (server.NotServedError, cluster mode),
// in the same shape. An area whose routes all answer the default failure
// reply writes no failure code at all (see also the package's example):
//
//	var replies = area.NewReplies("wager", nil, area.StandardCauses(
//		area.Row{Err: ErrNoTickets, Answer: area.Answer{Error: "you have not enough tickets"}}))
//
//	route := area.NewRoute(replies, area.Route[flipRequest, flipReply]{
//		Path: "/master/wager/flip", Doc: server.Doc{Summary: "Flips a coin."},
//		Serve: func(ctx context.Context, req flipRequest) (flipReply, error) { ... },
//	})
//
// NewReplies builds an area's Replies, once per area.
type Replies struct {
	area  string
	env   *Env // For: the routes' sessions and actors
	log   *slog.Logger
	table CauseTable
	key   []byte            // s:N:"<Key>";
	index map[string]string // an answer's status or error text: its outcome
}

// NewReplies checks the area's table and returns its Replies; log may be
// nil (discard). It panics on a programming error any test of the area
// catches: a Row matching nothing, or two answers with the same status
// or error text counting as different outcomes (the metrics could not
// tell them apart).
func NewReplies(area string, log *slog.Logger, t CauseTable) *Replies {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	key := t.Key
	if key == "" {
		key = "error"
	}
	rs := &Replies{area: area, log: log.With("area", area), table: t, index: map[string]string{},
		key: fmt.Appendf(nil, "s:%d:%q;", len(key), key)}
	add := func(a Answer, serverSide bool) {
		a = withOutcome(a, serverSide)
		for _, text := range []string{a.Error, statusText(a.Status)} {
			if text == "" {
				continue
			}
			if o, ok := rs.index[text]; ok && o != a.Outcome {
				panic(fmt.Sprintf("area: %s: answer %q counts as both %s and %s", area, text, o, a.Outcome))
			}
			rs.index[text] = a.Outcome
		}
	}
	add(t.OutcomeUnknown, true)
	add(t.Internal, true)
	for _, r := range t.Rows {
		if r.Match == nil && r.Err == nil && r.Cause == CauseOther {
			panic(fmt.Sprintf("area: %s: a row of the cause table (%+v) matches nothing", area, r.Answer))
		}
		add(r.Answer, r.Match == nil && r.Err == nil && r.Cause.ServerSide())
	}
	return rs
}

func statusText(s int) string {
	if s == 0 {
		return ""
	}
	return strconv.Itoa(s)
}

// WithLog returns the same replies logging to log (nil: discard): an
// area may declare its Replies once, beside its table, and log with the
// logger it is built with.
func (rs *Replies) WithLog(log *slog.Logger) *Replies {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := *rs
	c.log = log.With("area", rs.area)
	return &c
}

// Answer is the area's answer to err (CauseTable.Answer).
func (rs *Replies) Answer(err error) Answer { return rs.table.Answer(err) }

// Outcome is how a reply of the area counts in the metrics and the access
// log (server.Route.Outcome): by the answer its Key entry names;
// server.OutcomeOK when the entry names none (a success's status code);
// "" (no opinion: ok) when the reply has no such entry, or an empty one.
func (rs *Replies) Outcome(body []byte) string {
	i := bytes.Index(body, rs.key)
	if i < 0 {
		return ""
	}
	v, ok := phpScalar(body[i+len(rs.key):])
	if !ok || len(v) == 0 {
		return ""
	}
	if o, ok := rs.index[string(v)]; ok {
		return o
	}
	return server.OutcomeOK
}

// phpScalar reads the PHP-serialized integer or string at the start of b
// (i:3; or s:1:"3";) as its text.
func phpScalar(b []byte) ([]byte, bool) {
	switch {
	case bytes.HasPrefix(b, []byte("i:")):
		end := bytes.IndexByte(b, ';')
		if end < 0 {
			return nil, false
		}
		return b[2:end], true
	case bytes.HasPrefix(b, []byte("s:")):
		colon := bytes.IndexByte(b[2:], ':')
		if colon < 0 {
			return nil, false
		}
		n, err := strconv.Atoi(string(b[2 : 2+colon]))
		start := 2 + colon + 2 // past `:"`
		if err != nil || n < 0 || start > len(b) || len(b)-start < n+2 || b[start-1] != '"' || b[start+n] != '"' {
			return nil, false
		}
		return b[start : start+n], true
	}
	return nil, false
}

// PHP encodes v as the area's PHP-serialized reply (server.PHP); a
// server.Response is answered as it is.
func (rs *Replies) PHP(v any) server.Response {
	if r, ok := v.(server.Response); ok {
		return r
	}
	return server.PHP(rs.log, v)
}

// Log logs a failure of route answered a: at error level when the server
// is at fault (a.Outcome is OutcomeError), at debug level otherwise. It is
// the log line of every failure NewRoute answers, for an area's handler
// that answers a failure of its own (a part of a batch refused).
func (rs *Replies) Log(route string, a Answer, err error) {
	attrs := []any{"route", route, "err", err}
	if a.Status != 0 {
		attrs = append(attrs, "status", a.Status)
	}
	if a.Error != "" {
		attrs = append(attrs, "error", a.Error)
	}
	if a.Outcome == server.OutcomeError {
		rs.log.Error("request failed", attrs...)
		return
	}
	rs.log.Debug("request refused", attrs...)
}

// ErrorReply is the failure reply of a route without a Fail of its own:
// a:2:{s:7:"success";b:0;s:5:"error";s:N:"<Answer.Error>";}.
type ErrorReply struct {
	Success bool   `php:"success"`
	Error   string `php:"error"`
}

// Route is one route of an area, served by NewRoute: Req is its request
// (a struct with form tags, as wire.Request.Decode fills it), Rep its
// reply (a struct with php tags, as wire.Marshal encodes it; or a
// server.Response, sent as it is: a file).
type Route[Req, Rep any] struct {
	// Path is the path served; or Func, a /client_requester.php function
	// (as server.Route).
	Path string
	Func string
	// Doc is the route's entry in the endpoint reference. Left empty, its
	// Form is the zero Req (when the route has no Decode of its own and
	// Doc no Fields) and its ReplyValue the zero Rep (when Rep is a
	// struct with php tags, not a wire.Marshaler): the reference lists
	// their fields from their tags.
	Doc server.Doc
	// Decode reads the request (nil: wire.Request.Decode, its error
	// wrapping ErrBadRequest). Its error is answered from the table with
	// the Req it returned (the fields it read: a failure reply may echo
	// them).
	Decode func(r *wire.Request) (Req, error)
	// Serve is the area's logic. Its error is answered from the table;
	// the Rep it returns with it holds the fields its failure reply keeps
	// (the account's balances), given to Fail. Set one of Serve, Account
	// and Change (account.go).
	Serve func(ctx context.Context, req Req) (Rep, error)
	// Account is the logic of a route a signed-in player calls: the host
	// reads the form's cookie (required, listed first in the reference),
	// authenticates it (a dead one is answered as CauseBadCookie) and
	// passes its session. Its Replies need For(env).
	Account func(ctx context.Context, s *storage.Session, req Req) (Rep, error)
	// Change is the logic of a route that changes the signed-in player's
	// account: as Account, then run in the account's actor
	// (actors.Apply), committed in one batch before the reply when it
	// returns no error, nothing written when it does (and Fail gets the
	// zero Rep: a route whose failure reply keeps fields uses Account and
	// calls actors.Apply itself).
	Change func(ctx context.Context, tx *actors.Tx, req Req) (Rep, error)
	// Done runs after the logic succeeded (a Change committed), before
	// the reply is written: an area counts its own metrics there (nil:
	// nothing).
	Done func(req Req, rep Rep)
	// Fail is the route's failure reply, built from the failure (nil:
	// ErrorReply{Error: f.Error}). It may return a server.Response (a
	// bare word the client expects).
	Fail func(f Failure[Req, Rep]) any
	// Outcome reads a reply's metric outcome (nil: Replies.Outcome);
	// Counted is server.Route.Counted.
	Outcome func(body []byte) string
	Counted func(outcome string)
}

// RawRequest is the Decode of a route whose logic reads the request
// itself (repeated fields, the client's address): its Req is the request
// as read.
func RawRequest(r *wire.Request) (*wire.Request, error) { return r, nil }

// Failure is a failed request as a route's Fail builds its reply.
type Failure[Req, Rep any] struct {
	// Answer is what the table answers to Err.
	Answer
	// Req is the request as far as it was read: the zero Req when it
	// could not be, what Decode returned when Decode failed.
	Req Req
	// Rep is what Serve returned with its error (the fields the failure
	// keeps); the zero Rep when Serve did not run.
	Rep Rep
	// Served is true when Serve ran (Rep is its).
	Served bool
	// Request is the request as read; nil when it could not be read.
	Request *wire.Request
	Err     error
}

// NewRoute serves rt with the area's replies: it decodes the request,
// calls Serve, and encodes its reply, or answers its error from the
// area's table in rt's failure shape (logged, see Replies.Log). The
// route's Fail (a request that stopped before its handler, see
// server.Route) answers a request that could not be read as a bad
// request (CauseBadRequest), a handler's panic (server.ErrHandlerPanic)
// by the table's Internal answer, and one that was read but not served
// (server.NotServedError) by its cause: outcome unknown when its node did
// not answer, CauseRetry when its node was not serving; its Req then is
// what Decode reads of the request, for the fields a failure echoes.
func NewRoute[Req, Rep any](rs *Replies, rt Route[Req, Rep]) server.Route {
	serve, signedIn := logicOf(rs, rt)
	name := rt.Path
	if name == "" {
		name = "f=" + rt.Func
	}
	decode := rt.Decode
	if decode == nil {
		decode = func(r *wire.Request) (Req, error) {
			var req Req
			if err := r.Decode(&req); err != nil {
				return req, fmt.Errorf("%w: %w", ErrBadRequest, err)
			}
			return req, nil
		}
	}
	fail := func(f Failure[Req, Rep]) server.Response {
		f.Answer = rs.Answer(f.Err)
		rs.Log(name, f.Answer, f.Err)
		if rt.Fail == nil {
			return rs.PHP(ErrorReply{Error: f.Error})
		}
		return rs.PHP(rt.Fail(f))
	}
	outcome := rt.Outcome
	if outcome == nil {
		outcome = rs.Outcome
	}
	doc := rt.Doc
	if doc.Form == nil && doc.Fields == nil && rt.Decode == nil && reflect.TypeFor[Req]().Kind() == reflect.Struct {
		doc.Form = *new(Req)
	}
	if signedIn {
		doc = withCookie(rs.area, name, doc)
	}
	if rep := reflect.TypeFor[Rep](); doc.ReplyValue == nil && rep.Kind() == reflect.Struct && rep != reflect.TypeFor[server.Response]() &&
		!rep.Implements(reflect.TypeFor[wire.Marshaler]()) {
		doc.ReplyValue = *new(Rep)
	}
	return server.Route{Path: rt.Path, Func: rt.Func, Area: rs.area, Doc: doc, Outcome: outcome, Counted: rt.Counted,
		Handler: func(ctx context.Context, r *wire.Request) server.Response {
			req, err := decode(r)
			var sess *storage.Session
			if err == nil && signedIn {
				sess, err = rs.signIn(r)
			}
			if err != nil {
				return fail(Failure[Req, Rep]{Req: req, Request: r, Err: err})
			}
			rep, err := serve(ctx, sess, req)
			if err != nil {
				return fail(Failure[Req, Rep]{Req: req, Rep: rep, Served: true, Request: r, Err: err})
			}
			if rt.Done != nil {
				rt.Done(req, rep)
			}
			return rs.PHP(rep)
		},
		Fail: func(err error) server.Response {
			var ns *server.NotServedError
			if errors.As(err, &ns) {
				f := Failure[Req, Rep]{Request: ns.Request, Err: err}
				if ns.Request != nil {
					f.Req, _ = decode(ns.Request) // decoded once already, on the node it was sent to
				}
				return fail(f)
			}
			if errors.Is(err, server.ErrHandlerPanic) {
				return fail(Failure[Req, Rep]{Err: err}) // the table's Internal answer
			}
			return fail(Failure[Req, Rep]{Err: fmt.Errorf("%w: %w", ErrBadRequest, err)})
		},
	}
}
