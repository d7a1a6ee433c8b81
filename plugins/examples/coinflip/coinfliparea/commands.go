package coinfliparea

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinflipapi"
	"github.com/honmaster/masterserver/storage"
)

// commands are the area's operator commands:
//
//	honmaster coinflip show --login L   the account's flips, wins and streaks
var commands = []area.Command{
	{Name: "coinflip show", Usage: "--login L (the account's flips, wins and streaks)",
		Flags: func(fs *flag.FlagSet) area.CommandRequest {
			r := &showRequest{}
			fs.StringVar(&r.Login, "login", "", "login of the account")
			return r
		}},
}

type showRequest struct {
	Login string `json:"login"`
}

func (r *showRequest) Validate() error {
	if r.Login == "" {
		return errors.New("--login is required")
	}
	return nil
}

// Run reads the account's state as the contract defines it, whichever
// plugin (bundled or external) kept it.
func (r *showRequest) Run(_ context.Context, env area.CommandEnv, out io.Writer) error {
	db := env.Sys.DB()
	id, err := db.LoginID(r.Login)
	if errors.Is(err, storage.ErrNotFound) {
		return &area.OperatorError{Msg: fmt.Sprintf("no account %q", r.Login), Cause: err}
	} else if err != nil {
		return err
	}
	b, err := db.PluginState(id, name)
	if err != nil {
		return err
	}
	st, err := coinflipapi.DecodeState(b)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %d flips, %d won; streak %d, best %d\n", r.Login, st.Flips, st.Wins, st.Streak, st.BestStreak)
	return nil
}
