package dailyarea

import (
	"context"
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
	// The contract's state, whichever plugin kept it, worded here.
	area.StateCommand(dailyapi.Schema, "the account's streak and last claim", func(login string, st dailyapi.State) string {
		if st.LastDay == 0 {
			return login + " has not claimed a daily reward"
		}
		return fmt.Sprintf("%s: streak of %d days, last claim on %s", login, st.Streak, time.Unix(st.LastDay*86400, 0).UTC().Format(time.DateOnly))
	}),
	area.AccountCommand("daily reset", "forget the account's streak", reset),
}

// reset clears the plugin's state for the account, through its actor.
func reset(ctx context.Context, env area.CommandEnv, login string, id storage.AccountID, out io.Writer) error {
	_, err := actors.Apply(ctx, env.Sys, id, func(tx *actors.Tx) (struct{}, error) {
		tx.SetPluginState(name, nil)
		return struct{}{}, nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s's daily streak is reset; the next claim starts a new one\n", login)
	return nil
}
