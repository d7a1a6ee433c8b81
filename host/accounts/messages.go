package accounts

import "errors"

// RuleMessage words the rule a new account broke, for a player (the
// registration page) or an operator (account create): "" when err is not
// one of ErrBadLogin, ErrBadPassword, ErrBadEmail. The errors' own texts
// carry this package's name, for logs.
func RuleMessage(err error) string {
	switch {
	case errors.Is(err, ErrBadLogin):
		return "a login is 1 to 12 letters, digits, '_' or '-'"
	case errors.Is(err, ErrBadPassword):
		return "a password is 1 to 128 characters"
	case errors.Is(err, ErrBadEmail):
		return "an e-mail address must contain '@'"
	}
	return ""
}
