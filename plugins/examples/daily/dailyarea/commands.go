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
	"github.com/honmaster/masterserver/plugins/examples/daily/dailyplugin"
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
			fs.StringVar(&r.Login, "login", "", "login of the account")
			return r
		}},
	{Name: "daily reset", Usage: "--login L (forget the account's streak)",
		Flags: func(fs *flag.FlagSet) area.CommandRequest {
			r := &resetRequest{}
			fs.StringVar(&r.Login, "login", "", "login of the account")
			return r
		}},
}

var errNoLogin = errors.New("--login is required")

type showRequest struct {
	Login string `json:"login"`
}

func (r *showRequest) Validate() error {
	if r.Login == "" {
		return errNoLogin
	}
	return nil
}

func (r *showRequest) Run(_ context.Context, env area.CommandEnv, out io.Writer) error {
	db := env.Sys.DB()
	id, err := db.LoginID(r.Login)
	if err != nil {
		return unknownLogin(r.Login, err)
	}
	b, err := db.PluginState(id, name)
	if err != nil {
		return err
	}
	st, err := dailyplugin.DecodeState(b)
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

type resetRequest struct {
	Login string `json:"login"`
}

func (r *resetRequest) Validate() error {
	if r.Login == "" {
		return errNoLogin
	}
	return nil
}

// Run clears the plugin's state for the account, through its actor.
func (r *resetRequest) Run(ctx context.Context, env area.CommandEnv, out io.Writer) error {
	id, err := env.Sys.DB().LoginID(r.Login)
	if err != nil {
		return unknownLogin(r.Login, err)
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

func unknownLogin(login string, err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("no account %q", login)
	}
	return err
}
