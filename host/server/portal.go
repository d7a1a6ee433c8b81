package server

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/valyala/fasthttp"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
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

func (s *Server) registerFail(err error) Response {
	status := fasthttp.StatusBadRequest
	switch {
	case errors.Is(err, actors.ErrLoginTaken):
		status = fasthttp.StatusConflict
	case errors.Is(err, errRegisterOff):
		status = fasthttp.StatusForbidden
	case errors.Is(err, errInternal):
		status = fasthttp.StatusInternalServerError
	}
	return jsonReply(status, registerReply{Error: publicMessage(err)})
}

var (
	errRegisterOff = errors.New("registration is disabled on this server")
	errInternal    = errors.New("internal error")
)

// register creates an account from the portal form (on by default; the
// load tester and a web page use it).
func (s *Server) register(ctx context.Context, r *wire.Request) Response {
	if !s.cfg.Portal.RegisterEnabled {
		return s.registerFail(errRegisterOff)
	}
	var req registerRequest
	if err := r.Decode(&req); err != nil {
		return s.registerFail(err)
	}
	acct, err := s.accounts.Create(ctx, accounts.Create{Login: req.Login, Password: req.Password, Email: req.Email})
	switch {
	case err == nil:
		return jsonReply(fasthttp.StatusOK, registerReply{AccountID: uint32(acct.ID), Login: acct.Login})
	case errors.Is(err, accounts.ErrBadLogin), errors.Is(err, accounts.ErrBadPassword),
		errors.Is(err, accounts.ErrBadEmail), errors.Is(err, actors.ErrLoginTaken):
		return s.registerFail(err)
	default:
		s.log.Error("register", "err", err)
		return s.registerFail(errInternal)
	}
}
