package area

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

var (
	errBroke  = errors.New("test: not enough tickets")
	errHidden = errors.New("test: nothing there")
)

// refusal is an error type of the test area's, matched by a Row's Match.
type refusal struct{ why string }

func (r *refusal) Error() string { return "refused: " + r.why }

// testTable is a table with status codes, as Plinko's.
var testTable = CauseTable{
	Key:            "status_code",
	OutcomeUnknown: Answer{Status: 11},
	Internal:       Answer{Status: 8},
	Rows: []Row{
		{Err: errBroke, Answer: Answer{Status: 3}},
		{Err: errHidden, Answer: Answer{Status: 7, Outcome: server.OutcomeOK}},
		{Match: func(err error) bool { var r *refusal; return errors.As(err, &r) }, Answer: Answer{Status: 4}},
		{Cause: CauseBadCookie, Answer: Answer{Status: 2}},
		{Cause: CauseBadRequest, Answer: Answer{Status: 6}},
		{Cause: CausePluginDown, Answer: Answer{Status: 5}},
		{Cause: CauseStorageFull, Answer: Answer{Status: 12}},
	},
}

func TestCauseTableAnswers(t *testing.T) {
	for _, tt := range []struct {
		name    string
		err     error
		status  int
		outcome string
	}{
		{"own error", fmt.Errorf("drop: %w", errBroke), 3, server.OutcomeRefused},
		{"own error counted as an answer", errHidden, 7, server.OutcomeOK},
		{"matched error type", fmt.Errorf("x: %w", &refusal{"daily limit"}), 4, server.OutcomeRefused},
		{"shared cause", fmt.Errorf("auth: %w", login.ErrInvalidCookie), 2, server.OutcomeRefused},
		{"shared cause, server side", fmt.Errorf("%w: down", sdk.ErrUnavailable), 5, server.OutcomeError},
		{"storage full", storage.ErrDiskFull, 12, server.OutcomeError},
		{"a cause the table lacks is internal", storage.ErrConflict, 8, server.OutcomeError},
		{"an unknown error is internal", errors.New("what"), 8, server.OutcomeError},
		{"outcome unknown", actors.ErrTimeout, 11, server.OutcomeError},
		// A failure that may hide a write says so, whatever else it is.
		{"outcome unknown wins over an own error", fmt.Errorf("%w: %w", errBroke, storage.ErrCommitUncertain), 11, server.OutcomeError},
		{"outcome unknown wins over a bad request", fmt.Errorf("%w: %w", ErrBadRequest, actors.ErrTimeout), 11, server.OutcomeError},
		// Rows are checked in order: the area's own error before the cause.
		{"first row wins", fmt.Errorf("%w: %w", errBroke, sdk.ErrUnavailable), 3, server.OutcomeRefused},
	} {
		a := testTable.Answer(tt.err)
		if a.Status != tt.status || a.Outcome != tt.outcome {
			t.Errorf("%s: %+v, want status %d, outcome %s", tt.name, a, tt.status, tt.outcome)
		}
	}
}

func TestStandardCauses(t *testing.T) {
	tab := StandardCauses(Row{Err: errBroke, Answer: Answer{Error: "not enough tickets"}})
	for _, tt := range []struct {
		err  error
		want string
	}{
		{errBroke, "not enough tickets"},
		{login.ErrInvalidCookie, CauseBadCookie.Message()},
		{fmt.Errorf("%w: x", ErrBadRequest), CauseBadRequest.Message()},
		{sdk.ErrPluginFailed, CausePluginDown.Message()},
		{storage.ErrDiskFull, CauseStorageFull.Message()},
		{actors.ErrMoved, CauseRetry.Message()},
		{actors.ErrTimeout, CauseOutcomeUnknown.Message()},
		{errors.New("?"), CauseInternal.Message()},
	} {
		if got := tab.Answer(tt.err).Error; got != tt.want {
			t.Errorf("%v: %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestRepliesOutcome(t *testing.T) {
	rs := NewReplies("test", nil, testTable)
	for _, tt := range []struct{ body, want string }{
		{`a:1:{s:11:"status_code";i:3;}`, server.OutcomeRefused},
		{`a:2:{s:1:"x";s:1:"y";s:11:"status_code";s:1:"5";}`, server.OutcomeError},
		{`a:1:{s:11:"status_code";s:2:"11";}`, server.OutcomeError},
		{`a:1:{s:11:"status_code";i:7;}`, server.OutcomeOK},
		{`a:1:{s:11:"status_code";i:1;}`, server.OutcomeOK},      // a success: no answer of the table
		{`a:1:{s:11:"status_code";s:2:"51";}`, server.OutcomeOK}, // idem, sent as text
		{`a:1:{s:11:"status_code";s:0:"";}`, ""},                 // empty: no opinion
		{`a:1:{s:5:"error";s:3:"bad";}`, ""},                     // no status_code
		{`a:1:{s:11:"status_code";s:9:"3`, ""},                   // cut short
		{`a:1:{s:11:"status_code";s:-1:"3";}`, ""},               // malformed
		{`a:1:{s:11:"status_code";b:0;}`, ""},                    // not a number or text
		{`a:1:{s:11:"status_code";s:1:"3"`, ""},                  // no closing ;
		{`a:1:{s:11:"status_code";s:1:"3";}`, "refused"},         // text
	} {
		if got := rs.Outcome([]byte(tt.body)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.body, got, tt.want)
		}
	}
	std := NewReplies("test", nil, StandardCauses())
	body, err := wire.Marshal(ErrorReply{Error: CauseRetry.Message()})
	if err != nil {
		t.Fatal(err)
	}
	if got := std.Outcome(body); got != server.OutcomeRefused {
		t.Errorf("standard table, try again: %q, want refused", got)
	}
	body, _ = wire.Marshal(ErrorReply{Error: CauseInternal.Message()})
	if got := std.Outcome(body); got != server.OutcomeError {
		t.Errorf("standard table, internal: %q, want error", got)
	}
}

func TestNewRepliesRefusesAnAmbiguousTable(t *testing.T) {
	for name, tab := range map[string]CauseTable{
		"one text, two outcomes": {Internal: Answer{Error: "no"}, Rows: []Row{{Err: errBroke, Answer: Answer{Error: "no"}}}},
		"a row matching nothing": {Rows: []Row{{Answer: Answer{Error: "no"}}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			NewReplies("test", nil, tab)
		}()
	}
	// One text for several causes of the same outcome is fine.
	NewReplies("test", nil, CauseTable{Internal: Answer{Error: "no"}, Rows: []Row{{Cause: CausePluginDown, Answer: Answer{Error: "no"}}}})
}

// The test area's drop: a reply whose failure keeps the balances.
type dropRequest struct {
	Cookie string `form:"cookie"`
	Bet    int    `form:"bet"`
	Echo   string `form:"echo"`
}

type dropReply struct {
	StatusCode  string `php:"status_code"`
	UserTickets int64  `php:"user_tickets"`
	Prize       string `php:"prize"`
	Echo        string `php:"echo"`
}

func dropRoute(t *testing.T, serve func(context.Context, dropRequest) (dropReply, error)) server.Route {
	t.Helper()
	return NewRoute(NewReplies("test", nil, testTable), Route[dropRequest, dropReply]{
		Path: "/test/drop", Serve: serve,
		Fail: func(f Failure[dropRequest, dropReply]) any {
			return dropReply{StatusCode: f.StatusText(), UserTickets: f.Rep.UserTickets, Echo: f.Req.Echo}
		},
	})
}

func form(kv ...string) *wire.Request {
	r := &wire.Request{Method: "POST", Path: "/test/drop", Form: wire.Values{}, Query: wire.Values{}}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Form[kv[i]] = append(r.Form[kv[i]], kv[i+1])
	}
	return r
}

func TestRouteAnswers(t *testing.T) {
	var served []dropRequest
	rt := dropRoute(t, func(_ context.Context, req dropRequest) (dropReply, error) {
		served = append(served, req)
		switch req.Cookie {
		case "broke":
			return dropReply{UserTickets: 2, Prize: "kept only if declared"}, fmt.Errorf("bet %d: %w", req.Bet, errBroke)
		case "slow":
			return dropReply{}, actors.ErrTimeout
		case "gone":
			return dropReply{}, login.ErrInvalidCookie
		}
		return dropReply{StatusCode: "1", UserTickets: 40, Prize: "Ticket"}, nil
	})
	if rt.Path != "/test/drop" || rt.Area != "test" || rt.Outcome == nil || rt.Fail == nil {
		t.Fatalf("route %+v", rt)
	}
	for _, tt := range []struct {
		name    string
		req     *wire.Request
		want    string
		outcome string
	}{
		{"success", form("cookie", "ok", "bet", "5"),
			`a:4:{s:11:"status_code";s:1:"1";s:12:"user_tickets";i:40;s:5:"prize";s:6:"Ticket";s:4:"echo";s:0:"";}`, server.OutcomeOK},
		// The failure keeps what its Fail declares: the balances the
		// logic knew, the request's echo; not the prize.
		{"refusal keeps the declared fields", form("cookie", "broke", "bet", "5", "echo", "e"),
			`a:4:{s:11:"status_code";s:1:"3";s:12:"user_tickets";i:2;s:5:"prize";s:0:"";s:4:"echo";s:1:"e";}`, server.OutcomeRefused},
		{"outcome unknown", form("cookie", "slow"),
			`a:4:{s:11:"status_code";s:2:"11";s:12:"user_tickets";i:0;s:5:"prize";s:0:"";s:4:"echo";s:0:"";}`, server.OutcomeError},
		{"shared cause", form("cookie", "gone"),
			`a:4:{s:11:"status_code";s:1:"2";s:12:"user_tickets";i:0;s:5:"prize";s:0:"";s:4:"echo";s:0:"";}`, server.OutcomeRefused},
		{"a form that does not decode is a bad request; Serve does not run", form("cookie", "ok", "bet", "x", "echo", "e"),
			`a:4:{s:11:"status_code";s:1:"6";s:12:"user_tickets";i:0;s:5:"prize";s:0:"";s:4:"echo";s:0:"";}`, server.OutcomeRefused},
	} {
		n := len(served)
		body := rt.Handler(context.Background(), tt.req).Body
		if string(body) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, body, tt.want)
		}
		if got := rt.Outcome(body); got != tt.outcome {
			t.Errorf("%s: outcome %q, want %q", tt.name, got, tt.outcome)
		}
		if strings.HasPrefix(tt.name, "a form that does not decode") && len(served) != n {
			t.Errorf("%s: Serve ran", tt.name)
		}
	}
}

func TestRouteFail(t *testing.T) {
	rt := dropRoute(t, func(context.Context, dropRequest) (dropReply, error) {
		t.Fatal("Serve ran for a request that stopped before its handler")
		return dropReply{}, nil
	})
	status := func(resp server.Response) string {
		t.Helper()
		v, err := wire.Unmarshal(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		a := v.(*wire.Array)
		s, _ := a.String("status_code")
		e, _ := a.String("echo")
		return s + "/" + e
	}
	r := form("cookie", "c", "echo", "e")
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"unreadable", wire.ErrBodyTooLarge, "6/"},
		// Read but not served (cluster mode): never "bad request"; the
		// request's fields are decoded for the reply to echo.
		{"not served, its node did not answer", &server.NotServedError{Request: r, Err: fmt.Errorf("%w: node", actors.ErrTimeout)}, "11/e"},
		{"not served, not serving", &server.NotServedError{Request: r, Err: fmt.Errorf("%w: node", actors.ErrExpired)}, "8/e"},
		{"not served, no request", &server.NotServedError{Err: actors.ErrTimeout}, "11/"},
		// The server's own failure, not the request's.
		{"the handler panicked", fmt.Errorf("%w: boom", server.ErrHandlerPanic), "8/"},
	} {
		if got := status(rt.Fail(tt.err)); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

type claimRequest struct {
	Cookie string `form:"cookie"`
}

type claimReply struct {
	Success bool `php:"success"`
}

// TestRouteDefaults: a route without Fail answers ErrorReply; a Decode of
// the area's own is used, and a server.Response reply is sent as it is.
func TestRouteDefaults(t *testing.T) {
	rs := NewReplies("test", nil, StandardCauses(Row{Err: errBroke, Answer: Answer{Error: "not enough tickets"}}))
	rt := NewRoute(rs, Route[claimRequest, claimReply]{Path: "/test/claim",
		Serve: func(_ context.Context, req claimRequest) (claimReply, error) {
			if req.Cookie == "broke" {
				return claimReply{}, errBroke
			}
			return claimReply{Success: true}, nil
		}})
	if got := string(rt.Handler(context.Background(), form("cookie", "broke")).Body); got != `a:2:{s:7:"success";b:0;s:5:"error";s:18:"not enough tickets";}` {
		t.Errorf("failure %s", got)
	}
	if got := string(rt.Handler(context.Background(), form("cookie", "ok")).Body); got != `a:1:{s:7:"success";b:1;}` {
		t.Errorf("success %s", got)
	}
	if got := rt.Outcome(rt.Fail(errors.New("malformed")).Body); got != server.OutcomeRefused {
		t.Errorf("unreadable: outcome %q", got)
	}

	file := NewRoute(rs, Route[claimRequest, server.Response]{Func: "get_file",
		Decode: func(r *wire.Request) (claimRequest, error) {
			if r.Form.Get("cookie") == "" {
				return claimRequest{}, fmt.Errorf("%w: no cookie", ErrBadRequest)
			}
			return claimRequest{Cookie: "from " + r.Form.Get("cookie")}, nil
		},
		Serve: func(_ context.Context, req claimRequest) (server.Response, error) {
			return server.Binary([]byte(req.Cookie)), nil
		},
		Fail: func(f Failure[claimRequest, server.Response]) any { return server.Text("text/html", "invalid_request") },
	})
	if file.Func != "get_file" || file.Path != "" {
		t.Errorf("route %+v", file)
	}
	if got := string(file.Handler(context.Background(), form("cookie", "c")).Body); got != "from c" {
		t.Errorf("file %q", got)
	}
	if got := string(file.Handler(context.Background(), form()).Body); got != "invalid_request" {
		t.Errorf("file failure %q", got)
	}
}

// TestRepliesLog: a failure the server is at fault for is logged at error
// level, a refusal at debug level, with the area's logger (WithLog).
func TestRepliesLog(t *testing.T) {
	var buf bytes.Buffer
	rs := NewReplies("test", nil, testTable).WithLog(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	rt := NewRoute(rs, Route[claimRequest, claimReply]{Path: "/test/claim",
		Serve: func(_ context.Context, req claimRequest) (claimReply, error) {
			if req.Cookie == "broke" {
				return claimReply{}, errBroke
			}
			return claimReply{}, sdk.ErrUnavailable
		}})
	rt.Handler(context.Background(), form("cookie", "broke"))
	rt.Handler(context.Background(), form("cookie", "down"))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 ||
		!strings.Contains(lines[0], "level=DEBUG") || !strings.Contains(lines[0], "area=test") || !strings.Contains(lines[0], "status=3") ||
		!strings.Contains(lines[1], "level=ERROR") || !strings.Contains(lines[1], "route=/test/claim") || !strings.Contains(lines[1], "status=5") {
		t.Errorf("log:\n%s", buf.String())
	}
}

// TestRawRequest: a route whose logic reads the request itself gets it as
// read, and so does its failure of a request read but not served.
func TestRawRequest(t *testing.T) {
	rs := NewReplies("test", nil, StandardCauses())
	rt := NewRoute(rs, Route[*wire.Request, claimReply]{Path: "/test/raw", Decode: RawRequest,
		Serve: func(_ context.Context, r *wire.Request) (claimReply, error) {
			return claimReply{Success: r.Form.Get("cookie") == "c" && r.RemoteIP == "192.0.2.1"}, nil
		},
		Fail: func(f Failure[*wire.Request, claimReply]) any { return ErrorReply{Error: f.Req.RemoteIP} },
	})
	r := form("cookie", "c")
	r.RemoteIP = "192.0.2.1"
	if got := string(rt.Handler(context.Background(), r).Body); got != `a:1:{s:7:"success";b:1;}` {
		t.Errorf("served %s", got)
	}
	if got := string(rt.Fail(&server.NotServedError{Request: r, Err: actors.ErrExpired}).Body); got != `a:2:{s:7:"success";b:0;s:5:"error";s:9:"192.0.2.1";}` {
		t.Errorf("not served %s", got)
	}
}

// TestRouteDoc: an empty Doc lists the route's form and reply types; what
// the area states is kept.
func TestRouteDoc(t *testing.T) {
	rs := NewReplies("test", nil, StandardCauses())
	serve := func(context.Context, claimRequest) (claimReply, error) { return claimReply{}, nil }
	rt := NewRoute(rs, Route[claimRequest, claimReply]{Path: "/a", Serve: serve, Doc: server.Doc{Summary: "s"}})
	if rt.Doc.Summary != "s" || rt.Doc.Form != (claimRequest{}) || rt.Doc.ReplyValue != (claimReply{}) {
		t.Errorf("defaults: %+v", rt.Doc)
	}
	fields := []server.Field{{Name: "cookie"}}
	rt = NewRoute(rs, Route[claimRequest, claimReply]{Path: "/b", Serve: serve, Doc: server.Doc{Fields: fields, ReplyValue: dropReply{}}})
	if rt.Doc.Form != nil || rt.Doc.ReplyValue != (dropReply{}) {
		t.Errorf("stated: %+v", rt.Doc)
	}
	raw := NewRoute(rs, Route[*wire.Request, server.Response]{Path: "/c", Decode: RawRequest,
		Serve: func(context.Context, *wire.Request) (server.Response, error) { return server.Response{}, nil }})
	if raw.Doc.Form != nil || raw.Doc.ReplyValue != nil {
		t.Errorf("raw request, a file: %+v", raw.Doc)
	}
	own := NewRoute(rs, Route[claimRequest, positional]{Path: "/d", Doc: server.Doc{Form: struct{}{}},
		Serve: func(context.Context, claimRequest) (positional, error) { return positional{}, nil }})
	if own.Doc.ReplyValue != nil {
		t.Errorf("a reply encoding itself: %+v", own.Doc)
	}
}

// positional is a reply that encodes itself (no php tags to list).
type positional struct{ n int }

func (p positional) AppendPHP(dst []byte) ([]byte, error) { return wire.AppendMarshal(dst, []int{p.n}) }
