package guides

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/guides/guidesapi"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// areaName is the area's name in routes and logs.
var areaName = string(guidesapi.Area)

// Authenticator resolves a session cookie to its account. A cookie that is
// missing, unknown or expired must give an error matching ErrInvalidCookie
// (Fail(ReasonInvalidCookie, cause)); any other error is internal.
type Authenticator interface {
	Authenticate(cookie string) (storage.AccountID, error)
}

// Backend is what the handlers need from the rest of the host: reads of the
// account's view and mutations through the account's actor. Errors carry a
// Reason (ErrNotFound, ErrVoteRefused, ErrUnavailable...); others are
// internal. A failed mutation has changed nothing.
type Backend interface {
	// List returns the hero's list for acct in the ranking's order, at
	// most MaxListEntries entries, flags and counts filled in.
	List(ctx context.Context, acct storage.AccountID, hero string) ([]ListEntry, error)
	// Guide returns a visible guide with acct's flags and the full counts;
	// ErrNotFound for an unknown or hidden gid.
	Guide(ctx context.Context, acct storage.AccountID, gid GuideID) (GuideView, error)
	// SetFlag sets or removes one of acct's flags on a visible guide in one
	// commit. Setting a default replaces the account's default for the
	// guide's hero; removing a flag that is not set changes nothing and
	// succeeds. ErrNotFound for an unknown or hidden gid. spend, when not
	// nil, is called once the change is known to write, in the account's
	// actor: its error refuses the change with nothing written. A change
	// that finds the flag as asked never calls it.
	SetFlag(ctx context.Context, acct storage.AccountID, gid GuideID, flag Flag, on bool, spend func() error) error
	// Vote records acct's vote on a visible guide if the vote rule counts
	// it (ErrVoteRefused otherwise); repeating a vote changes nothing,
	// changing it moves both counts. ErrNotFound for an unknown or hidden
	// gid. spend, when not nil, is called once the vote is known to change
	// the account's stored ballot, in the account's actor and before the
	// vote rule or any write: its error refuses the vote with nothing
	// written. A repeated vote never calls it.
	Vote(ctx context.Context, acct storage.AccountID, gid GuideID, v Vote, spend func() error) error
}

// Area serves the seven guide functions of /client_requester.php.
type Area struct {
	auth    Authenticator
	backend Backend
	replies *area.Replies // the area's table of causes, with its logger
	votes   *voteLimits   // per-address vote budgets (votebudget.go); nil: none
	marks   *limit.Writes // default and favourite changes per account and address; nil: none
}

// New returns the area over auth and backend; log may be nil.
func New(auth Authenticator, backend Backend, log *slog.Logger) *Area {
	return &Area{auth: auth, backend: backend, replies: replies.WithLog(log)}
}

// Function is one guide function: its wire name, its handler and its
// entry in the endpoint reference (docs/endpoints.md).
type Function struct {
	Name    Func
	Handler server.Handler
	Doc     server.Doc
}

// Request fields and failures every guide function shares, for the
// endpoint reference.
var (
	callerFields = []server.Field{
		{Name: "account", Required: true, Desc: "the requester's account id; must be the cookie's account (else `wrong_account`)"},
		{Name: "cookie", Required: true, Desc: "session cookie (else `invalid_cookie`)"},
		{Name: "hosttime", Desc: "any text, echoed byte for byte in every reply, failures included (the client drops a reply whose hosttime differs)"},
	}
	gidField  = server.Field{Name: "gid", Required: true, Desc: "guide id; 99999 (the client's first request of a session) never names a guide"}
	heroField = server.Field{Name: "hero", Required: true, Desc: fmt.Sprintf("hero CLI name, `Hero_` and letters, digits or underscores, at most %d characters", MaxHeroLen)}
)

// failDoc is every function's failure, with the errors texts of the
// reasons (reasonText).
var failDoc = func() string {
	var texts []string
	for _, r := range []Reason{ReasonNotFound, ReasonInvalidCookie, ReasonWrongAccount, ReasonBadRequest, ReasonVoteRefused, ReasonTooManyChanges, ReasonUnavailable, ReasonStorageFull} {
		texts = append(texts, "`"+r.Message()+"`")
	}
	return " Failure (5 entries): `errors` (" + strings.Join(texts, ", ") + " or `" + ReasonInternal.Message() +
		"`), `success` 0, `hosttime`, the two extras; nothing changed. Except `" + ReasonOutcomeUnknown.Message() +
		"`: a vote or default whose commit outlasted the wait, which may have been written."
}()

func fields(extra ...server.Field) []server.Field {
	return append(append([]server.Field{}, callerFields...), extra...)
}

func flagDoc(fn Func) server.Doc {
	what := flagFuncs[fn]
	verb := map[bool]string{true: "Sets", false: "Removes"}[what.on]
	d := server.Doc{Fields: fields(gidField), ReplyValue: setReply{},
		Reply: fmt.Sprintf("Success: `set` %d.", boolInt(what.on)) + failDoc}
	switch what.flag {
	case FlagDefault:
		d.Summary = verb + " the account's default guide for the guide's hero (one per hero: setting another replaces it; the default leads that hero's list)."
	case FlagFavorite:
		d.Summary = verb + " a favorite guide of the account (favorites are listed after premium guides)."
	}
	if !what.on {
		d.Summary += " Removing a mark that is not set succeeds."
	}
	return d
}

// Functions is the area's table of functions, all on
// POST /client_requester.php with f as a form field; Routes serves them.
func (a *Area) Functions() []Function {
	rs := a.Routes()
	out := make([]Function, len(rs))
	for i, rt := range rs {
		out[i] = Function{Name: Func(rt.Func), Handler: rt.Handler, Doc: rt.Doc}
	}
	return out
}

// Routes serves the functions: each decodes its request, runs its
// function and answers it, or its failure with the reason's text and the
// request's hosttime (guideFail), from the area's table of causes
// (errors.go).
func (a *Area) Routes() []server.Route {
	flag := func(fn Func) server.Route {
		return area.NewRoute(a.replies, area.Route[flagCall, setReply]{Func: string(fn), Doc: flagDoc(fn), Fail: guideFail[flagCall, setReply],
			Decode: func(r *wire.Request) (flagCall, error) {
				req, err := ParseFlag(fn, r)
				return flagCall{FlagRequest: req, addr: r.RemoteIP}, err
			},
			Serve: a.setFlag})
	}
	return []server.Route{
		area.NewRoute(a.replies, area.Route[ListRequest, listReply]{Func: string(FuncList), Decode: ParseList, Serve: a.list, Fail: guideFail[ListRequest, listReply],
			Doc: server.Doc{
				Summary: "A hero's guide list for the account, ranked by the guides plugin: default, premium, favorites, the rest by upvote fraction (bundled ranking).",
				Fields:  fields(heroField), ReplyValue: listReply{},
				Reply: fmt.Sprintf("Success: `guide_list`, up to %d entries separated by backticks, each `gid|date|author|name|is_def/not_def|is_fav/not_fav|rating|is_yours/not_yours|premium 0/1` (name cut to %d characters, `'` as `\\'`; rating with 2 decimals). A hero without guides: an empty list.", MaxListEntries, ListNameRunes) + failDoc,
			}}),
		area.NewRoute(a.replies, area.Route[GuideRequest, guideReply]{Func: string(FuncGuide), Decode: ParseGuide, Serve: a.guide, Fail: guideFail[GuideRequest, guideReply],
			Doc: server.Doc{
				Summary:    "One guide with the account's flags and its vote counts' rating.",
				Fields:     fields(server.Field{Name: "hero", Desc: "hero CLI name (not checked: the gid alone names the guide)"}, gidField),
				ReplyValue: guideReply{},
				Reply:      "Success: 22 entries; `thumb` is the account's vote (`noVote`, `up`, `down`), and after a vote `vote` (1 up, 0 down) follows it (23 entries). An unknown or hidden gid, and gid 99999: `no_guides_found`." + failDoc,
			}}),
		flag(FuncDefaultSet),
		flag(FuncDefaultRemove),
		flag(FuncFavoriteSet),
		flag(FuncFavoriteRemove),
		area.NewRoute(a.replies, area.Route[voteCall, voteReply]{Func: string(FuncVote), Serve: a.vote, Fail: guideFail[voteCall, voteReply],
			Decode: func(r *wire.Request) (voteCall, error) {
				req, err := ParseVote(r)
				return voteCall{VoteRequest: req, addr: r.RemoteIP}, err
			},
			Doc: server.Doc{
				Summary: "The account's vote on a guide, if the guides plugin counts it: repeating a vote changes nothing, changing it moves both counts.",
				Fields: fields(server.Field{Name: "v", Required: true, Desc: "1 up, 0 down"},
					server.Field{Name: "gid", Desc: "guide id (gid or compendium_guide is required; both must agree)"},
					server.Field{Name: "compendium_guide", Desc: "guide id, as the client also sends it"}),
				ReplyValue: voteReply{},
				Reply:      "Success: `vote` echoes `v`. A vote the plugin does not count, or over the client address's vote budgets (`limits.guide_votes_per_address`, `guide_votes_per_guide_address`): `vote_refused`." + failDoc,
			}}),
	}
}

// Fail answers a request that could not be read (no hosttime to echo), or
// one that was read but not served (server.NotServedError: cluster mode):
// that one echoes its hosttime and says outcome_unknown when its account's
// node did not answer (internal_error, nothing done, otherwise). Every
// function's route fails so.
func (a *Area) Fail(err error) server.Response { return a.Routes()[0].Fail(err) }

// hostTimer is every guide request: it knows the hosttime to echo.
type hostTimer interface{ hostTime() string }

func (c Caller) hostTime() string { return c.HostTime }

// guideFail is every guide function's failure: the 5-entry reply with the
// reason's text, echoing the request's hosttime.
func guideFail[Req hostTimer, Rep any](f area.Failure[Req, Rep]) any {
	return failReply{status: status{Errors: f.Error}, HostTime: f.Req.hostTime()}
}

// authenticate checks the cookie and that the form's account is its
// account: a session may only read and change its own account's guides.
func (a *Area) authenticate(c Caller) error {
	id, err := a.auth.Authenticate(c.Cookie)
	if err != nil {
		return err
	}
	if id != c.Account {
		return Fail(ReasonWrongAccount, nil)
	}
	return nil
}

func (a *Area) list(ctx context.Context, req ListRequest) (listReply, error) {
	if err := a.authenticate(req.Caller); err != nil {
		return listReply{}, err
	}
	entries, err := a.backend.List(ctx, req.Account, req.Hero)
	if err != nil {
		return listReply{}, err
	}
	return listReply{status: ok, GuideList: FormatList(entries), HostTime: req.HostTime}, nil
}

func (a *Area) guide(ctx context.Context, req GuideRequest) (guideReply, error) {
	if err := a.authenticate(req.Caller); err != nil {
		return guideReply{}, err
	}
	if req.Gid == ProbeGid {
		return guideReply{}, Fail(ReasonNotFound, nil)
	}
	v, err := a.backend.Guide(ctx, req.Account, req.Gid)
	if err != nil {
		return guideReply{}, err
	}
	return newGuideReply(v, req.HostTime), nil
}

// flagCall is a default or favourite change and the client's address (its
// budget).
type flagCall struct {
	FlagRequest
	addr string
}

// setFlag sets or removes a mark. Only a change that writes spends from
// the account's and the address's budgets (limits.toggles_per_account,
// toggles_per_address), in the account's actor where the stored marks
// are known: clicking a favourite that is already one costs nothing.
func (a *Area) setFlag(ctx context.Context, req flagCall) (setReply, error) {
	if err := a.authenticate(req.Caller); err != nil {
		return setReply{}, err
	}
	if req.Gid == ProbeGid {
		return setReply{}, Fail(ReasonNotFound, nil)
	}
	var spend func() error
	var spent atomic.Bool // set in the actor, read here after it answered
	acct, addr := uint64(req.Account), req.addr
	if a.marks != nil {
		spend = func() error {
			if err := a.marks.Spend(acct, addr); err != nil {
				return Fail(ReasonTooManyChanges, err)
			}
			spent.Store(true)
			return nil
		}
	}
	if err := a.backend.SetFlag(ctx, req.Account, req.Gid, req.Flag, req.On, spend); err != nil {
		if spent.Load() && !failure.Uncertain(err) {
			a.marks.Refund(acct, addr) // refused with nothing written (a full disk)
		}
		return setReply{}, err
	}
	return setReply{status: ok, Set: boolInt(req.On), HostTime: req.HostTime}, nil
}

// voteCall is a vote and the client's address (its vote budgets).
type voteCall struct {
	VoteRequest
	addr string
}

// vote casts req's vote. The address's vote budgets are spent only by a
// vote that changes the account's stored ballot: three clicks of one vote
// used to spend the per-guide budget for hours (issue 36, item 5). Whether
// it does is decided in the account's actor (the spend func given to
// Backend.Vote), where the stored ballot is the one the vote replaces: a
// check made before the actor read a ballot that a vote queued ahead could
// still change, so a flip could pass as a repeat and spend nothing.
func (a *Area) vote(ctx context.Context, req voteCall) (voteReply, error) {
	if err := a.authenticate(req.Caller); err != nil {
		return voteReply{}, err
	}
	if req.Gid == ProbeGid {
		return voteReply{}, Fail(ReasonNotFound, nil)
	}
	var spend func() error
	var spent atomic.Bool // set in the actor, read here after it answered
	addr, gid := limit.AddrKey(req.addr), req.Gid
	if a.votes != nil {
		spend = func() error {
			if err := a.votes.spend(addr, gid); err != nil {
				return err
			}
			spent.Store(true)
			return nil
		}
	}
	if err := a.backend.Vote(ctx, req.Account, req.Gid, req.Vote, spend); err != nil {
		// A vote refused with nothing written (a full disk, no plugin
		// running to ask) gives its spend back, except one the plugin's
		// rule refused or that a running plugin did not answer (it was
		// asked: the budget bounds those calls too, a slow plugin's
		// above all).
		r := ReasonOf(err)
		asked := r == ReasonVoteRefused || (r == ReasonUnavailable && !errors.Is(err, sdk.ErrNotRunning))
		if spent.Load() && !failure.Uncertain(err) && !asked {
			a.votes.refund(addr, gid)
		}
		return voteReply{}, err
	}
	return voteReply{status: ok, Vote: voteValue(req.Vote), HostTime: req.HostTime}, nil
}

// AuthFunc adapts a function to Authenticator.
type AuthFunc func(cookie string) (storage.AccountID, error)

// Authenticate calls f.
func (f AuthFunc) Authenticate(cookie string) (storage.AccountID, error) { return f(cookie) }
