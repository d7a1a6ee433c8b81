package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

type registerRequest struct {
	Login    string `form:"login,required"`
	Password string `form:"password,required"`
	Email    string `form:"email"`
}

type registerReply struct {
	AccountID uint32 `json:"account_id,omitempty"`
	Login     string `json:"login,omitempty"`
	Error     string `json:"error,omitempty"`
}

func jsonReply(status int, v any) Response {
	body, _ := json.Marshal(v)
	return Response{Status: status, ContentType: contentJSON, Body: append(body, '\n')}
}

// registerErrors is the one table of the portal's failures: status and the
// text the client reads (never an internal error's own text; empty: the
// sentence publicMessage words for the error). Checked in
// order: an uncertain outcome before any refusal it may also match.
var registerErrors = []struct {
	err    error
	status int
	msg    string
}{
	{errRegisterOff, fasthttp.StatusForbidden, "registration is disabled on this server"},
	{errRegisterMethod, fasthttp.StatusMethodNotAllowed, "an account is created with POST, its fields in the body"},
	{errRegisterRate, fasthttp.StatusTooManyRequests, "too many registrations from your address; try again later"},
	{actors.ErrLoginTaken, fasthttp.StatusConflict, ""},
	{login.ErrLoginLookalike, fasthttp.StatusConflict, ""},
	{accounts.ErrNicknameTaken, fasthttp.StatusConflict, ""},
	{accounts.ErrBadLogin, fasthttp.StatusBadRequest, ""},
	{accounts.ErrBadPassword, fasthttp.StatusBadRequest, ""},
	{accounts.ErrBadEmail, fasthttp.StatusBadRequest, ""},
	{errRegisterUnknown, fasthttp.StatusServiceUnavailable, "the server was too slow to confirm; the account may have been created: try logging in before registering again"},
	{storage.ErrDiskFull, fasthttp.StatusServiceUnavailable, "the server cannot save right now; nothing was created, please try again later"},
	{storage.ErrEngineFailed, fasthttp.StatusServiceUnavailable, "the server cannot save right now; nothing was created, please try again later"},
	{storage.ErrUnavailable, fasthttp.StatusServiceUnavailable, "the server cannot save right now; nothing was created, please try again later"},
	{errBadRequest, fasthttp.StatusBadRequest, ""},
}

func (s *Server) registerFail(err error) Response {
	status, msg := registerOutcome(err)
	return jsonReply(status, registerReply{Error: msg})
}

// registerOutcome is the status and the sentence a player reads for a
// failed registration (the JSON reply's error, the page's message).
func registerOutcome(err error) (status int, msg string) {
	if failure.Uncertain(err) {
		err = fmt.Errorf("%w: %w", errRegisterUnknown, err)
	}
	for _, e := range registerErrors {
		if errors.Is(err, e.err) {
			msg := e.msg
			if msg == "" {
				msg = publicMessage(err)
			}
			return e.status, msg
		}
	}
	var fe *wire.FieldError
	if errors.As(err, &fe) {
		return fasthttp.StatusBadRequest, publicMessage(err)
	}
	return fasthttp.StatusInternalServerError, "internal error"
}

var (
	errRegisterOff     = errors.New("registration is disabled on this server")
	errRegisterMethod  = errors.New("registration needs POST")
	errRegisterRate    = errors.New("too many registrations from this address")
	errRegisterUnknown = errors.New("registration outcome unknown")
)

// registrations limits account creation per client address (its IPv6 /64,
// limit.AddrKey; limits.registrations_per_address), built on first use.
type registrations struct {
	once sync.Once
	k    *limit.Keyed
}

func (s *Server) registerLimit() *limit.Keyed {
	s.regs.once.Do(func() {
		l := s.conf().Limits
		s.regs.k = limit.NewAdjustable(limit.Rate{Burst: l.RegistrationsPerAddress.Burst, Every: l.RegistrationsPerAddress.Every.Duration},
			l.TrackedKeys, nil)
	})
	return s.regs.k
}

// register creates an account from the portal form (on by default; the
// load tester and scripts use it) and answers JSON. A bare GET or HEAD (a
// person who typed the address) is sent to the registration page. Only a
// POST creates, from its body's fields alone: a GET with the fields in
// its query (a link, a prefetcher, an image) creates nothing, and no
// password travels in a URL, to be kept in a proxy's log or a history.
func (s *Server) register(ctx context.Context, r *wire.Request) Response {
	bare := len(r.Form) == 0 && len(r.Query) == 0
	switch {
	case (r.Method == fasthttp.MethodGet || r.Method == fasthttp.MethodHead) && bare:
		return Response{Status: fasthttp.StatusSeeOther, Header: [][2]string{{"Location", PathRegisterPage}}}
	case r.Method != fasthttp.MethodPost:
		resp := s.registerFail(errRegisterMethod)
		resp.Header = append(resp.Header, [2]string{"Allow", fasthttp.MethodPost})
		return resp
	}
	form := *r
	form.Query = nil // the fields come from the body only
	var req registerRequest
	if err := form.Decode(&req); err != nil {
		if !s.conf().Portal.RegisterEnabled {
			return s.registerFail(errRegisterOff)
		}
		return s.registerFail(fmt.Errorf("%w: %w", errBadRequest, err))
	}
	acct, wait, err := s.createAccount(ctx, req, r.RemoteIP)
	if err != nil {
		resp := s.registerFail(err)
		if wait > 0 {
			resp = retryAfter(resp, wait)
		}
		return resp
	}
	return jsonReply(fasthttp.StatusOK, registerReply{AccountID: uint32(acct.ID), Login: acct.Login})
}

// createAccount is registration itself, for the JSON path and the page:
// the switch, the per-address limit (wait is how long until the next one
// is allowed, when refused by it), then accounts.Create.
func (s *Server) createAccount(ctx context.Context, req registerRequest, ip string) (acct *storage.Account, wait time.Duration, err error) {
	if !s.conf().Portal.RegisterEnabled {
		return nil, 0, errRegisterOff
	}
	if ok, wait := s.registerLimit().Allow(limit.AddrKey(ip)); !ok {
		return nil, max(wait, time.Second), errRegisterRate
	}
	acct, err = s.accounts.Create(ctx, accounts.Create{Login: req.Login, Password: req.Password, Email: req.Email, Address: ip})
	if err != nil {
		if status, _ := registerOutcome(err); status >= fasthttp.StatusInternalServerError {
			s.log.Error("register", "err", err) // a refusal the player can fix is not an error of the server
		}
		return nil, 0, err
	}
	return acct, 0, nil
}

// The registration page (GET and POST PathRegisterPage): a form for
// people, on the game listener, with the same switch, limits and wording
// as /portal/register. It needs no JavaScript and no cookie: there is no
// session to protect, so no CSRF token (a forged POST could only create an
// account whose password the forger chose, which the per-address limit
// bounds like any other).

type registerPage struct {
	Enabled      bool
	Login, Email string
	Error        string
	Created      string
	// MaxLogin and MaxPassword are the lengths accounts.Create accepts.
	MaxLogin, MaxPassword int
}

var registerPageTemplate = template.Must(template.New("register").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Create an account · Heroes of Newerth</title>
<style>body{font-family:system-ui,sans-serif;background:#14161a;color:#e6e2d6;max-width:32em;margin:2em auto;padding:0 1em}
h1{color:#f0c060}label{display:block;margin:.8em 0 .2em}input{font:inherit;width:100%;box-sizing:border-box;padding:.3em}
button{font:inherit;background:#b8862b;border:0;padding:.4em 1.2em;margin-top:1em;cursor:pointer}
.error{background:#4a1d1d;border-left:4px solid #c44;padding:.5em}.ok{background:#1d3a1d;border-left:4px solid #4c4;padding:.5em}
small{color:#aaa}</style></head><body>
<h1>Create an account</h1>
{{if .Created}}<p class="ok" id="created">Account <b>{{.Created}}</b> created. Log in from the game client with this login and password.</p>
{{else if not .Enabled}}<p class="error" id="error">Registration is disabled on this server.</p>
{{else}}{{if .Error}}<p class="error" id="error">{{.Error}}</p>{{end}}
<form method="post" action="/register">
<label for="login">Login</label><input id="login" name="login" value="{{.Login}}" required maxlength="{{.MaxLogin}}" autocomplete="username" autofocus>
<small>1 to {{.MaxLogin}} letters, digits, '_' or '-'. It is also your name in the game.</small>
<label for="password">Password</label><input id="password" name="password" type="password" required maxlength="{{.MaxPassword}}" autocomplete="new-password">
<label for="password2">Password again</label><input id="password2" name="password2" type="password" required maxlength="{{.MaxPassword}}" autocomplete="new-password">
<label for="email">E-mail (optional)</label><input id="email" name="email" type="email" value="{{.Email}}" autocomplete="email">
<button id="register">Create account</button>
</form>{{end}}
</body></html>
`))

func (s *Server) renderRegisterPage(status int, p registerPage) Response {
	p.Enabled = s.conf().Portal.RegisterEnabled
	p.MaxLogin, p.MaxPassword = login.MaxLoginLength, accounts.MaxPasswordRunes
	var b bytes.Buffer
	if err := registerPageTemplate.Execute(&b, p); err != nil {
		s.log.Error("registration page", "err", err)
		return Text("text/plain; charset=utf-8", "internal error\n")
	}
	return Response{Status: status, ContentType: "text/html; charset=utf-8", Body: b.Bytes(),
		Header: [][2]string{{"Cache-Control", "no-store"}, {"X-Frame-Options", "DENY"}, {"X-Content-Type-Options", "nosniff"}}}
}

// registerPageHandler serves the page: the form on GET, the outcome on
// POST (the form again with the reason when refused, with the status of
// the JSON path).
func (s *Server) registerPageHandler(ctx context.Context, r *wire.Request) Response {
	if r.Method != fasthttp.MethodPost {
		status := fasthttp.StatusOK
		if !s.conf().Portal.RegisterEnabled {
			status = fasthttp.StatusForbidden
		}
		return s.renderRegisterPage(status, registerPage{})
	}
	req := registerRequest{Login: strings.TrimSpace(r.Form.Get("login")), Password: r.Form.Get("password"),
		Email: strings.TrimSpace(r.Form.Get("email"))}
	again := registerPage{Login: req.Login, Email: req.Email}
	switch {
	case !s.conf().Portal.RegisterEnabled:
		return s.renderRegisterPage(fasthttp.StatusForbidden, again)
	case req.Login == "":
		again.Error = "choose a login"
		return s.renderRegisterPage(fasthttp.StatusBadRequest, again)
	case req.Password == "":
		again.Error = "choose a password"
		return s.renderRegisterPage(fasthttp.StatusBadRequest, again)
	case r.Form.Get("password2") != req.Password:
		again.Error = "the two passwords differ"
		return s.renderRegisterPage(fasthttp.StatusBadRequest, again)
	}
	acct, wait, err := s.createAccount(ctx, req, r.RemoteIP)
	if err != nil {
		status, msg := registerOutcome(err)
		again.Error = msg
		resp := s.renderRegisterPage(status, again)
		if wait > 0 {
			resp = retryAfter(resp, wait)
		}
		return resp
	}
	return s.renderRegisterPage(fasthttp.StatusOK, registerPage{Created: acct.Login})
}

// registerPageFail answers a request the page could not read (too large,
// malformed) with the page and a sentence.
func (s *Server) registerPageFail(err error) Response {
	status, msg := registerOutcome(err)
	return s.renderRegisterPage(status, registerPage{Error: msg})
}

// registerPageForm documents the page's POST fields (the endpoint
// reference); the handler reads them itself, to word a missing field for
// a person.
type registerPageForm struct {
	Login     string `form:"login,required"`
	Password  string `form:"password,required"`
	Password2 string `form:"password2,required"`
	Email     string `form:"email"`
}

// retryAfter tells a client refused by a rate limit when to try again.
func retryAfter(resp Response, wait time.Duration) Response {
	resp.Header = append(resp.Header, [2]string{"Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds())))})
	return resp
}
