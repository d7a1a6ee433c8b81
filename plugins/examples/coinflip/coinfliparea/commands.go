package coinfliparea

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/plugins/examples/coinflip/coinflipapi"
)

// commands are the area's operator commands:
//
//	honmaster coinflip show --login L   the account's flips, wins and streaks
var commands = []area.Command{
	{Name: "coinflip show", Usage: "--login L (the account's flips, wins and streaks)",
		Flags: func(fs *flag.FlagSet) area.CommandRequest {
			r := &showRequest{}
			r.Flag(fs)
			return r
		}},
}

type showRequest struct{ area.LoginFlag }

// Run reads the account's state as the contract defines it, whichever
// plugin (bundled or external) kept it.
func (r *showRequest) Run(_ context.Context, env area.CommandEnv, out io.Writer) error {
	id, err := r.Account(env)
	if err != nil {
		return err
	}
	b, err := env.Sys.DB().PluginState(id, name)
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
