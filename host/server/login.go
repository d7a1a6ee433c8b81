package server

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/wire"
)

type preAuthRequest struct {
	Login   string `form:"login,required" doc:"account login, case-sensitive"`
	A       string `form:"A,required" doc:"the client's SRP public value A, hexadecimal"`
	SysInfo string `form:"SysInfo" doc:"the client's system description"`
}

type srpAuthRequest struct {
	Login        string `form:"login,required" doc:"the login of the pre_auth"`
	Proof        string `form:"proof,required" doc:"the client's SRP proof M1, hexadecimal"`
	OSType       string `form:"OSType" doc:"the client's build"`
	MajorVersion string `form:"MajorVersion" doc:"the client's build"`
	MinorVersion string `form:"MinorVersion" doc:"the client's build"`
	MicroVersion string `form:"MicroVersion" doc:"the client's build"`
	SysInfo      string `form:"SysInfo" doc:"the client's system description"`
}

type switchAuthRequest struct {
	Login     string `form:"login,required" doc:"login of the account to switch to"`
	AccountID string `form:"account_id,required" doc:"its account id"`
	Cookie    string `form:"cookie,required" doc:"the current session's cookie"`
}

// loginFail answers a login failure in the auth-error shape (protocol-notes
// §1). Malformed requests get the malformed-request message; one that was
// not served (NotServedError: cluster mode) says its outcome is unknown,
// or to try again.
func (s *Server) loginFail(err error) Response {
	var le *login.Error
	var ns *NotServedError
	switch {
	case errors.As(err, &le):
	case errors.As(err, &ns):
		reason := login.ReasonInternal // "Internal error, please try again."
		if failure.Uncertain(err) {
			reason = login.ReasonOutcomeUnknown
		}
		err = &login.Error{Reason: reason, Cause: err}
	default:
		reason := login.ReasonMalformed
		if errors.Is(err, wire.ErrBodyTooLarge) {
			reason = login.ReasonTooLarge
		}
		err = &login.Error{Reason: reason, Cause: err}
	}
	s.log.Debug("login failed", "err", err)
	return phpReply(s.log, login.Failure(err))
}

// loginTooLong refuses, before any work (a look-up, a forward to the
// account's node in cluster mode), a login function whose login is longer
// than any account's can be (login.MaxLoginLength characters): no client
// sends one, and one 1 MiB login used to cost a look-up and 1 MiB of log
// per request.
func (s *Server) loginTooLong(path, fn string, r *wire.Request) (Response, bool) {
	if path != PathClientRequester {
		return Response{}, false
	}
	switch fn {
	case FuncPreAuth, FuncSRPAuth, FuncSwitchAuth:
	default:
		return Response{}, false
	}
	l := r.Value("login") // as Decode reads it
	if len(l) <= login.MaxLoginLength || utf8.RuneCountInString(l) <= login.MaxLoginLength {
		return Response{}, false
	}
	return s.loginFail(&login.Error{Reason: login.ReasonLoginTooLong}), true
}

func (s *Server) loginReply(v any, err error) Response {
	if err != nil {
		return s.loginFail(err)
	}
	return phpReply(s.log, v)
}

func (s *Server) preAuth(ctx context.Context, r *wire.Request) Response {
	var req preAuthRequest
	if err := r.Decode(&req); err != nil {
		return s.loginFail(err)
	}
	return s.loginReply(s.login.PreAuth(ctx, req.Login, req.A, r.RemoteIP, req.SysInfo))
}

func (s *Server) srpAuth(ctx context.Context, r *wire.Request) Response {
	var req srpAuthRequest
	if err := r.Decode(&req); err != nil {
		return s.loginFail(err)
	}
	return s.loginReply(s.login.SRPAuth(ctx, req.Login, req.Proof, r.RemoteIP, req.SysInfo))
}

func (s *Server) switchAuth(ctx context.Context, r *wire.Request) Response {
	var req switchAuthRequest
	if err := r.Decode(&req); err != nil {
		return s.loginFail(err)
	}
	return s.loginReply(s.login.SwitchAuth(ctx, req.Login, req.AccountID, req.Cookie, r.RemoteIP))
}

type logoutRequest struct {
	Cookie string `form:"cookie,required"`
}

// logoutReply is what the original service answered to f=logout (as
// independent clients record it): a:2:{i:0;b:1;s:12:"client_disco";s:2:"OK";}
type logoutReply struct {
	OK          bool   `php:"0"`
	ClientDisco string `php:"client_disco"`
}

// logout ends the session of cookie. Failures (an unknown or expired cookie
// ...) answer the login failure shape.
func (s *Server) logout(ctx context.Context, r *wire.Request) Response {
	var req logoutRequest
	if err := r.Decode(&req); err != nil {
		return s.loginFail(err)
	}
	if err := s.login.Logout(ctx, req.Cookie); err != nil {
		return s.loginFail(err)
	}
	return phpReply(s.log, logoutReply{OK: true, ClientDisco: "OK"})
}
