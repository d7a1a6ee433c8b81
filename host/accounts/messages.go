package accounts

import (
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/host/login"
)

// RuleMessage words the rule a new account broke, for a player (the
// registration page) or an operator (account create): "" when err is not
// one of ErrBadLogin (and the look-alike rules of package login it wraps),
// login.ErrLoginLookalike, ErrNicknameTaken, ErrBadPassword, ErrBadEmail, ErrBadNickname. The errors' own texts
// carry this package's name, for logs.
func RuleMessage(err error) string {
	switch {
	case errors.Is(err, login.ErrInvisible):
		return "a login must not hold invisible or text-direction characters (zero-width spaces, joiners, bidi marks, fillers)"
	case errors.Is(err, login.ErrLoginNotNormal):
		return "a login must be written in ordinary characters (no fullwidth or compatibility forms)"
	case errors.Is(err, login.ErrLoginMixedScripts):
		return "a login must not mix letters of different scripts (such as Latin and Cyrillic) or digits of different numbering systems"
	case errors.Is(err, login.ErrLoginLookalike):
		return "a login that looks the same already exists (logins that differ only in case, accents or look-alike letters count as the same)"
	case errors.Is(err, ErrNicknameTaken):
		return "that name is already another player's nickname; choose another login"
	case errors.Is(err, ErrBadLogin):
		return fmt.Sprintf("a login is 1 to %d letters, digits, '_' or '-'", login.MaxLoginLength)
	case errors.Is(err, ErrBadPassword):
		return fmt.Sprintf("a password is 1 to %d characters", MaxPasswordRunes)
	case errors.Is(err, ErrBadNickname):
		return fmt.Sprintf("a nickname is at most %d characters of UTF-8 text, without line breaks or other control characters "+
			"and without invisible or text-direction characters (zero-width spaces, bidi marks)", MaxNicknameRunes)
	case errors.Is(err, ErrBadEmail):
		max := 254
		var ee emailError
		if errors.As(err, &ee) {
			max = ee.max
		}
		return fmt.Sprintf("an e-mail address must be a plain address such as name@example.com (a domain with a dot; no display name, "+
			"angle brackets, spaces or control characters) of at most %d bytes", max)
	}
	return ""
}

// emailError is ErrBadEmail with the length limit in force.
type emailError struct{ max int }

func (e emailError) Error() string {
	return fmt.Sprintf("accounts: e-mail must be a plain address of at most %d bytes", e.max)
}

func (e emailError) Is(target error) bool { return target == ErrBadEmail }
