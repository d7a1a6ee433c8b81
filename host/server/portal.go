package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

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
// text the client reads (never an internal error's own text). Checked in
// order: an uncertain outcome before any refusal it may also match.
var registerErrors = []struct {
	err    error
	status int
	msg    string
}{
	{errRegisterOff, fasthttp.StatusForbidden, "registration is disabled on this server"},
	{errRegisterRate, fasthttp.StatusTooManyRequests, "too many registrations from your address; try again later"},
	{actors.ErrLoginTaken, fasthttp.StatusConflict, "that login is taken"},
	{login.ErrLoginLookalike, fasthttp.StatusConflict, "a login that looks the same already exists"},
	{login.ErrLoginNotNormal, fasthttp.StatusBadRequest, "login must be written in ordinary characters (no fullwidth or compatibility forms)"},
	{login.ErrLoginMixedScripts, fasthttp.StatusBadRequest, "login must not mix Latin, Cyrillic and Greek letters"},
	{accounts.ErrBadLogin, fasthttp.StatusBadRequest, "login must be 1-12 letters, digits, '_' or '-'"},
	{accounts.ErrBadPassword, fasthttp.StatusBadRequest, "password must be 1-128 characters"},
	{accounts.ErrBadEmail, fasthttp.StatusBadRequest, "e-mail must contain '@' and be at most 254 bytes"},
	{errRegisterUnknown, fasthttp.StatusServiceUnavailable, "the server was too slow to confirm; the account may have been created: try logging in before registering again"},
	{storage.ErrDiskFull, fasthttp.StatusServiceUnavailable, "the server cannot save right now; nothing was created, please try again later"},
	{storage.ErrEngineFailed, fasthttp.StatusServiceUnavailable, "the server cannot save right now; nothing was created, please try again later"},
	{errBadRequest, fasthttp.StatusBadRequest, "malformed request"},
}

func (s *Server) registerFail(err error) Response {
	if failure.Uncertain(err) {
		err = fmt.Errorf("%w: %w", errRegisterUnknown, err)
	}
	for _, e := range registerErrors {
		if errors.Is(err, e.err) {
			return jsonReply(e.status, registerReply{Error: e.msg})
		}
	}
	var fe *wire.FieldError
	if errors.As(err, &fe) {
		return jsonReply(fasthttp.StatusBadRequest, registerReply{Error: "malformed request: field " + strconv.Quote(fe.Field)})
	}
	return jsonReply(fasthttp.StatusInternalServerError, registerReply{Error: "internal error"})
}

var (
	errRegisterOff     = errors.New("registration is disabled on this server")
	errRegisterRate    = errors.New("too many registrations from this address")
	errRegisterUnknown = errors.New("registration outcome unknown")
)

// registrations limits account creation per client address
// (limits.registrations_per_address), built on first use.
type registrations struct {
	once sync.Once
	k    *limit.Keyed
}

func (s *Server) registerLimit() *limit.Keyed {
	s.regs.once.Do(func() {
		l := s.cfg.Limits
		s.regs.k = limit.New(limit.Rate{Burst: l.RegistrationsPerAddress.Burst, Every: l.RegistrationsPerAddress.Every.Duration},
			l.TrackedKeys, nil)
	})
	return s.regs.k
}

// register creates an account from the portal form (on by default; the
// load tester and a web page use it).
func (s *Server) register(ctx context.Context, r *wire.Request) Response {
	if !s.cfg.Portal.RegisterEnabled {
		return s.registerFail(errRegisterOff)
	}
	var req registerRequest
	if err := r.Decode(&req); err != nil {
		return s.registerFail(fmt.Errorf("%w: %w", errBadRequest, err))
	}
	if ok, wait := s.registerLimit().Allow(r.RemoteIP); !ok {
		resp := s.registerFail(errRegisterRate)
		resp.Header = append(resp.Header, [2]string{"Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds())))})
		return resp
	}
	acct, err := s.accounts.Create(ctx, accounts.Create{Login: req.Login, Password: req.Password, Email: req.Email})
	if err != nil {
		if !errors.Is(err, accounts.ErrBadLogin) && !errors.Is(err, accounts.ErrBadPassword) && !errors.Is(err, accounts.ErrBadEmail) &&
			!errors.Is(err, actors.ErrLoginTaken) && !errors.Is(err, login.ErrLoginLookalike) {
			s.log.Error("register", "err", err)
		}
		return s.registerFail(err)
	}
	return jsonReply(fasthttp.StatusOK, registerReply{AccountID: uint32(acct.ID), Login: acct.Login})
}
