package accounts

import (
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/host/login"
)

// RuleMessage words the rule a new account broke, for a player (the
// registration page) or an operator (account create): "" when err is not
// one of ErrBadLogin, ErrBadPassword, ErrBadEmail. The errors' own texts
// carry this package's name, for logs.
func RuleMessage(err error) string {
	switch {
	case errors.Is(err, ErrBadLogin):
		return fmt.Sprintf("a login is 1 to %d letters, digits, '_' or '-'", login.MaxLoginLength)
	case errors.Is(err, ErrBadPassword):
		return fmt.Sprintf("a password is 1 to %d characters", MaxPasswordRunes)
	case errors.Is(err, ErrBadEmail):
		max := 254
		var ee emailError
		if errors.As(err, &ee) {
			max = ee.max
		}
		return fmt.Sprintf("an e-mail address must contain '@' and be at most %d bytes", max)
	}
	return ""
}

// emailError is ErrBadEmail with the length limit in force.
type emailError struct{ max int }

func (e emailError) Error() string {
	return fmt.Sprintf("accounts: e-mail must contain '@' and be at most %d bytes", e.max)
}

func (e emailError) Is(target error) bool { return target == ErrBadEmail }
