package login

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/storage"
)

// CheckServerPassword checks the password a game server or a server
// manager sends for the account login (the name before the ':' of its
// "host:" or "host:instance"), from client address ip. Such callers send
// md5hex, the hex MD5 of the password, instead of an SRP handshake. The
// check derives the SRP password secret from it as the client derives it
// from its password under login.password_hash = "md5-first" (whose first
// step is exactly that MD5), computes the verifier and compares it with
// the stored one in constant time: nothing new is stored, least of all the
// MD5, and the password is the account's one password.
//
// A wrong password is charged to the same failure limits as a wrong SRP
// proof (per address group, and per login and address group), and a caller
// past them is refused with ReasonTooManyFailures before any check, even
// with the right password: a server manager cannot be used to guess player
// passwords faster than the login page. An unknown login costs and answers
// as a wrong password (ReasonWrongPassword), so that the answer tells
// nobody which accounts exist. md5hex must be 32 hex characters (either
// case: the digest is the same) or the call fails with ReasonMalformed,
// uncharged. Under login.password_hash = "spec-literal" no MD5 can be
// checked: the call fails with ReasonInternal wrapping srp.ErrNoMD5Form.
//
// It returns the account's id; whether that account may run servers is
// the caller's decision.
func (s *Service) CheckServerPassword(ctx context.Context, login, md5hex, ip string) (storage.AccountID, error) {
	if err := checkLogin(login); err != nil {
		return 0, err
	}
	if !isMD5Hex(md5hex) {
		return 0, fail(ReasonMalformed, errors.New("password is not 32 hex characters"))
	}
	md5hex = strings.ToLower(md5hex)
	group := limit.AddrKey(ip)
	// A check costs an exponentiation, as a pre_auth does: it spends from
	// the same budget (limits.logins_per_address), right password or
	// wrong, or a player's own login looped through a game server's
	// calls kept cores busy past it.
	if ok, wait := s.logins.Allow(group); !ok {
		return 0, fail(ReasonTooManyLogins, fmt.Errorf("address %s: next in %v", group, wait.Round(time.Millisecond)))
	}
	pair := login + "\x00" + group
	refund, err := s.reserveFailure(login, ip, group, pair)
	if err != nil {
		return 0, err
	}
	v, err := s.verifier(login) // a fake one for an unknown login
	if err != nil {
		refund()
		return 0, err
	}
	if s.beforeCheck != nil {
		s.beforeCheck(login)
	}
	secret, err := s.group.PasswordSecretFromMD5(md5hex, v.srp.Salt2)
	if err != nil {
		refund()
		return 0, fail(ReasonInternal, err)
	}
	if !s.group.VerifierMatches(v.login, v.srp.Salt, secret, v.srp.Verifier) || v.fake {
		return 0, fail(ReasonWrongPassword, nil) // charged: the reservation stands
	}
	refund()
	return v.id, nil
}

func isMD5Hex(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
