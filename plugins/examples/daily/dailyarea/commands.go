package dailyarea

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/plugins/examples/daily/dailyapi"
	"github.com/honmaster/masterserver/storage"
)

// commands are the area's operator commands:
//
//	honmaster daily show --login L    the account's streak and last claim
//	honmaster daily reset --login L   forget the streak: the next claim pays and starts a new one
var commands = []area.Command{
	{Name: "daily show", Usage: "--login L (the account's streak and last claim)",
		Flags: func(fs *flag.FlagSet) area.CommandRequest {
			r := &showRequest{}
			r.flags(fs)
			return r
		}},
	{Name: "daily reset", Usage: "--login L (forget the account's streak)",
		Flags: func(fs *flag.FlagSet) area.CommandRequest {
			r := &resetRequest{}
			r.flags(fs)
			return r
		}},
}

// byLogin is a request that names its account with --login.
type byLogin struct {
	Login string `json:"login"`
}

func (r *byLogin) flags(fs *flag.FlagSet) {
	fs.StringVar(&r.Login, "login", "", "login of the account")
}

func (r *byLogin) Validate() error {
	if r.Login == "" {
		return errors.New("--login is required")
	}
	return nil
}

// account returns the id of the account the request names.
func (r *byLogin) account(db *storage.DB) (storage.AccountID, error) {
	id, err := db.LoginID(r.Login)
	if errors.Is(err, storage.ErrNotFound) {
		return 0, fmt.Errorf("no account %q", r.Login)
	}
	return id, err
}

type showRequest struct{ byLogin }

func (r *showRequest) Run(_ context.Context, env area.CommandEnv, out io.Writer) error {
	db := env.Sys.DB()
	id, err := r.account(db)
	if err != nil {
		return err
	}
	b, err := db.PluginState(id, name)
	if err != nil {
		return err
	}
	st, err := dailyapi.DecodeState(b) // the contract's schema: whichever plugin kept it
	if err != nil {
		return err
	}
	if st.LastDay == 0 {
		fmt.Fprintf(out, "%s has not claimed a daily reward\n", r.Login)
		return nil
	}
	fmt.Fprintf(out, "%s: streak of %d days, last claim on %s\n", r.Login, st.Streak,
		time.Unix(st.LastDay*86400, 0).UTC().Format(time.DateOnly))
	return nil
}

type resetRequest struct{ byLogin }

// Run clears the plugin's state for the account, through its actor.
func (r *resetRequest) Run(ctx context.Context, env area.CommandEnv, out io.Writer) error {
	id, err := r.account(env.Sys.DB())
	if err != nil {
		return err
	}
	_, err = actors.Apply(ctx, env.Sys, id, func(tx *actors.Tx) (struct{}, error) {
		tx.SetPluginState(name, nil)
		return struct{}{}, nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s's daily streak is reset; the next claim starts a new one\n", r.Login)
	return nil
}
