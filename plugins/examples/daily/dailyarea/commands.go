package dailyarea

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/plugins/examples/daily/dailyapi"
)

// commands are the area's operator commands:
//
//	honmaster daily show --login L    the account's streak and last claim
//	honmaster daily reset --login L   forget the streak: the next claim pays and starts a new one
var commands = []area.Command{
	{Name: "daily show", Usage: "--login L (the account's streak and last claim)",
		Flags: func(fs *flag.FlagSet) area.CommandRequest {
			r := &showRequest{}
			r.Flag(fs)
			return r
		}},
	{Name: "daily reset", Usage: "--login L (forget the account's streak)",
		Flags: func(fs *flag.FlagSet) area.CommandRequest {
			r := &resetRequest{}
			r.Flag(fs)
			return r
		}},
}

type showRequest struct{ area.LoginFlag }

func (r *showRequest) Run(_ context.Context, env area.CommandEnv, out io.Writer) error {
	id, err := r.Account(env)
	if err != nil {
		return err
	}
	b, err := env.Sys.DB().PluginState(id, name)
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

type resetRequest struct{ area.LoginFlag }

// Run clears the plugin's state for the account, through its actor.
func (r *resetRequest) Run(ctx context.Context, env area.CommandEnv, out io.Writer) error {
	id, err := r.Account(env)
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
