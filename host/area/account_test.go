package area

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/actors/actorstest"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// signedIn is an actor system with one account holding 100 tickets and a
// live session of it.
type signedIn struct {
	env    Env
	id     storage.AccountID
	cookie string
}

func newSignedIn(t *testing.T) *signedIn {
	t.Helper()
	sys := actorstest.New(t)
	a, err := sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "ann", Account: storage.Account{Nickname: "ann", Tickets: 100}})
	if err != nil {
		t.Fatal(err)
	}
	cookie := strings.Repeat("ab", 16)
	now := time.Now()
	if _, err := actors.Apply(context.Background(), sys, a.ID, func(tx *actors.Tx) (struct{}, error) {
		return struct{}{}, tx.PutSession(&storage.Session{Cookie: cookie, Hash: storage.SessionHash(cookie), AccountID: a.ID,
			Created: now, Expires: now.Add(time.Hour)})
	}); err != nil {
		t.Fatal(err)
	}
	lg := login.New(srp.DefaultGroup(), sys, login.Settings{}, nil, nil)
	return &signedIn{env: Env{Sys: sys, Login: lg}, id: a.ID, cookie: cookie}
}

func (s *signedIn) tickets(t *testing.T) int64 {
	t.Helper()
	a, err := s.env.Sys.DB().Account(s.id)
	if err != nil {
		t.Fatal(err)
	}
	return a.Tickets
}

type spendRequest struct {
	N int64 `form:"n,required" doc:"tickets spent"`
}

type spendReply struct {
	Success bool  `php:"success"`
	Left    int64 `php:"left"`
}

// TestChangeRouteSignsInAndCommits: a Change route reads the cookie,
// answers a missing or dead one from the table, runs the change in the
// account's actor (an error writes nothing) and calls Done only after a
// commit; its reference lists the cookie first.
func TestChangeRouteSignsInAndCommits(t *testing.T) {
	s := newSignedIn(t)
	var done []spendReply
	rt := NewRoute(NewReplies("test", nil, StandardCauses(Row{Err: errBroke, Answer: Answer{Error: "broke"}})).For(s.env),
		Route[spendRequest, spendReply]{Path: "/test/spend",
			Change: func(_ context.Context, tx *actors.Tx, req spendRequest) (spendReply, error) {
				a := tx.Account()
				a.Tickets -= req.N
				if a.Tickets < 0 {
					return spendReply{}, errBroke // the debit above is not written
				}
				return spendReply{Success: true, Left: a.Tickets}, nil
			},
			Done: func(_ spendRequest, rep spendReply) { done = append(done, rep) }})
	for _, tc := range []struct {
		name string
		kv   []string
		want string
	}{
		{"no cookie", []string{"n", "1"}, `a:2:{s:7:"success";b:0;s:5:"error";s:29:"the request could not be read";}`},
		{"dead cookie", []string{"cookie", strings.Repeat("0", 32), "n", "1"}, `a:2:{s:7:"success";b:0;s:5:"error";s:36:"your session has ended; log in again";}`},
		{"bad form", []string{"cookie", s.cookie, "n", "x"}, `a:2:{s:7:"success";b:0;s:5:"error";s:29:"the request could not be read";}`},
		{"refused", []string{"cookie", s.cookie, "n", "101"}, `a:2:{s:7:"success";b:0;s:5:"error";s:5:"broke";}`},
		{"done", []string{"cookie", s.cookie, "n", "30"}, `a:2:{s:7:"success";b:1;s:4:"left";i:70;}`},
	} {
		if got := string(rt.Handler(context.Background(), form(tc.kv...)).Body); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := s.tickets(t); got != 70 {
		t.Errorf("%d tickets after the one spend of 30, want 70", got)
	}
	if len(done) != 1 || done[0].Left != 70 {
		t.Errorf("Done ran for %+v, want the one committed spend", done)
	}
	fields := rt.Doc.AllFields()
	if len(fields) != 2 || fields[0] != (server.Field{Name: "cookie", Required: true, Desc: "session cookie from the login"}) || fields[1].Name != "n" {
		t.Errorf("reference fields %+v, want the cookie then n", fields)
	}
}

// TestAccountRouteGetsTheSession: an Account route gets the cookie's
// session; a route of a signed-in player without For, or with two
// logics, is refused when built.
func TestAccountRouteGetsTheSession(t *testing.T) {
	s := newSignedIn(t)
	rs := NewReplies("test", nil, StandardCauses())
	var got storage.AccountID
	rt := NewRoute(rs.For(s.env), Route[spendRequest, spendReply]{Path: "/test/who",
		Account: func(_ context.Context, sess *storage.Session, _ spendRequest) (spendReply, error) {
			got = sess.AccountID
			return spendReply{Success: true}, nil
		}})
	rt.Handler(context.Background(), form("cookie", s.cookie, "n", "1"))
	if got != s.id {
		t.Errorf("the session's account is %d, want %d", got, s.id)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("NewRoute took a signed-in route whose request declares the cookie")
			}
		}()
		NewRoute(rs.For(s.env), Route[dropRequest, dropReply]{Path: "/x",
			Account: func(context.Context, *storage.Session, dropRequest) (dropReply, error) { return dropReply{}, nil }})
	}()
	for name, r := range map[string]Route[spendRequest, spendReply]{
		"no For":     {Path: "/x", Account: func(context.Context, *storage.Session, spendRequest) (spendReply, error) { return spendReply{}, nil }},
		"two logics": {Path: "/x", Serve: func(context.Context, spendRequest) (spendReply, error) { return spendReply{}, nil }, Change: func(context.Context, *actors.Tx, spendRequest) (spendReply, error) { return spendReply{}, nil }},
		"no logic":   {Path: "/x"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: NewRoute did not refuse the route", name)
				}
			}()
			NewRoute(rs, r)
		}()
	}
}

// testState is a state mirrored by wrapperspb.Int64Value: one count,
// never negative.
type testState struct{ Value int64 }

var testSchema = sdk.NewState(stateArea, sdk.StructCodec[testState](func() *wrapperspb.Int64Value { return new(wrapperspb.Int64Value) }),
	func(s testState) error {
		if s.Value < 0 {
			return errors.New("negative")
		}
		return nil
	})

var (
	stateArea    = sdk.RegisterArea("statetest")
	testDecision = sdk.NewDecision(sdk.DecisionDef[testState, testState]{Area: stateArea, Name: "add", Version: 1,
		Facts:  sdk.StructCodec[testState](func() *wrapperspb.Int64Value { return new(wrapperspb.Int64Value) }),
		Result: sdk.StructCodec[testState](func() *wrapperspb.Int64Value { return new(wrapperspb.Int64Value) }),
		Check:  func(testState, testState) error { return nil }})
)

// TestDecideStoresOnlyAStateOfTheSchema: Decide gives the plugin the
// stored state, stores the next one with the change, and refuses a next
// state the schema refuses (nothing written), and a decision that came
// after its asker left.
func TestDecideStoresOnlyAStateOfTheSchema(t *testing.T) {
	s := newSignedIn(t)
	p := &sdk.Plugin{Name: "t"}
	sdk.HandleState(p, testDecision, testSchema, func(_ context.Context, f testState, st testState) (testState, testState, error) {
		st.Value += f.Value
		return st, st, nil
	})
	add := func(ctx context.Context, n int64) (testState, error) {
		return actors.Apply(ctx, s.env.Sys, s.id, func(tx *actors.Tx) (testState, error) {
			d, next, err := Decide(ctx, tx, p, testDecision, testSchema, testState{Value: n})
			if err == nil && d != next {
				t.Errorf("decision %+v, next state %+v", d, next)
			}
			return next, err
		})
	}
	if got, err := add(context.Background(), 5); err != nil || got.Value != 5 {
		t.Fatalf("add 5 = %+v, %v", got, err)
	}
	if got, err := add(context.Background(), 2); err != nil || got.Value != 7 {
		t.Fatalf("add 2 = %+v, %v (the stored state was not given)", got, err)
	}
	if _, err := add(context.Background(), -10); !errors.Is(err, sdk.ErrInvalidDecision) {
		t.Errorf("a negative state = %v, want refused", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := add(ctx, 1); err == nil {
		t.Error("a decision for a gone asker was applied")
	}
	b, err := s.env.Sys.DB().PluginState(s.id, string(stateArea))
	if st, derr := testSchema.Decode(b); err != nil || derr != nil || st.Value != 7 {
		t.Errorf("stored state %+v (%v, %v), want 7", st, err, derr)
	}
}

// TestStateCommandPrintsTheSchema: "<area> show --login L" prints the
// stored state by its message's field names, or as format words it; a
// missing --login is the operator's mistake, an unknown one says so.
func TestStateCommandPrintsTheSchema(t *testing.T) {
	s := newSignedIn(t)
	env := CommandEnv{Sys: s.env.Sys}
	run := func(c Command, args ...string) (string, error) {
		fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		r := c.Flags(fs)
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		if err := r.Validate(); err != nil {
			return "", err
		}
		var out bytes.Buffer
		err := r.Run(context.Background(), env, &out)
		return out.String(), err
	}
	c := StateCommand(testSchema, "", nil)
	if c.Name != "statetest show" || c.Usage != "--login L (the account's statetest state)" {
		t.Errorf("command %q %q", c.Name, c.Usage)
	}
	if out, err := run(c, "--login", "ann"); err != nil || out != "ann: value 0\n" {
		t.Errorf("show with no state = %q, %v", out, err)
	}
	b, _ := testSchema.Encode(testState{Value: 42})
	if _, err := actors.Apply(context.Background(), s.env.Sys, s.id, func(tx *actors.Tx) (struct{}, error) {
		tx.SetPluginState(string(stateArea), b)
		return struct{}{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if out, err := run(c, "--login", "ann"); err != nil || out != "ann: value 42\n" {
		t.Errorf("show = %q, %v", out, err)
	}
	worded := StateCommand(testSchema, "the count", func(login string, s testState) string { return login + " counted " + string(rune('0'+s.Value%10)) })
	if out, err := run(worded, "--login", "ann"); err != nil || out != "ann counted 2\n" || worded.Usage != "--login L (the count)" {
		t.Errorf("worded show = %q, %v (%q)", out, err, worded.Usage)
	}
	if _, err := run(c); err == nil || !strings.Contains(err.Error(), "--login is required") {
		t.Errorf("show without --login = %v", err)
	}
	var oe *OperatorError
	if _, err := run(c, "--login", "nobody"); !errors.As(err, &oe) || oe.Msg != `no account "nobody"` {
		t.Errorf("show --login nobody = %v", err)
	}
}

func TestFormatMessage(t *testing.T) {
	v, err := structpb.NewStruct(map[string]any{"b": "x", "a": []any{1.5, true}})
	if err != nil {
		t.Fatal(err)
	}
	got := FormatMessage(v)
	want := `fields {"a": {list_value {values [{number_value 1.5}, {bool_value true}]}}, "b": {string_value "x"}}`
	if got != want {
		t.Errorf("FormatMessage =\n%s\nwant\n%s", got, want)
	}
}
