package area

import (
	"errors"
	"flag"
	"fmt"

	"github.com/honmaster/masterserver/storage"
)

// LoginFlag is the --login flag of a command that names one account, the
// part every such command shares. A command taking no other flag is an
// AccountCommand (or a StateCommand) and writes none of this; one with
// flags of its own embeds LoginFlag in the command's request, declares
// it in Command.Flags with Flag, and finds the account in Run with
// Account. Its Validate (the request's, when the request has no other
// rule) refuses a missing --login, so the operator gets exit status 2.
//
//	type showRequest struct{ area.LoginFlag }
//
//	Flags: func(fs *flag.FlagSet) area.CommandRequest { r := &showRequest{}; r.Flag(fs); return r },
type LoginFlag struct {
	Login string `json:"login"`
}

// Flag declares --login on fs.
func (l *LoginFlag) Flag(fs *flag.FlagSet) {
	fs.StringVar(&l.Login, "login", "", "login of the account")
}

// Validate refuses a request without --login.
func (l *LoginFlag) Validate() error {
	if l.Login == "" {
		return errors.New("--login is required")
	}
	return nil
}

// Account returns the id of the account --login names; when there is
// none, an OperatorError saying so (exit status 1).
func (l *LoginFlag) Account(env CommandEnv) (storage.AccountID, error) {
	id, err := env.Sys.DB().LoginID(l.Login)
	if errors.Is(err, storage.ErrNotFound) {
		return 0, &OperatorError{Msg: fmt.Sprintf("no account %q", l.Login), Cause: err}
	}
	return id, err
}
