package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/storage"
)

// demoAccount is one seeded demo login.
type demoAccount struct {
	login, password, nickname, parent string
}

// demoAccounts are the demo logins: a main account with two sub-accounts,
// and a second player who is its buddy.
var demoAccounts = []demoAccount{
	{"demo", "demo-pass", "DemoHero", ""},
	{"demo_alt", "demo-pass", "DemoAlt", "demo"},
	{"demo_smurf", "demo-pass", "DemoSmurf", "demo"},
	{"friend", "friend-pass", "FriendlyFoe", ""},
}

// demoOperator is the demo's console operator: a main account with the
// operator role. The console is on the operator listener, loopback unless
// operator.allow_remote, so its known password is reachable from this
// machine only.
var demoOperator = demoAccount{"demo_admin", "demo-admin-pass", "DemoAdmin", ""}

// seedDemo creates the demo accounts unless the data directory has them
// already (other accounts may exist), then each area's demo data
// (hostarea.Module.Demo: the prize catalog, the guides ...), and prints
// the demo logins.
func seedDemo(ctx context.Context, app *App, out io.Writer) error {
	if _, err := app.DB.LoginID(demoAccounts[0].login); errors.Is(err, storage.ErrNotFound) {
		if err := createDemo(ctx, app); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	for _, m := range hostarea.Modules() {
		if m.Demo == nil {
			continue
		}
		if err := m.Demo(ctx, hostarea.CommandEnv{Sys: app.Sys, Config: app.Cfg, Log: app.Log}); err != nil {
			return fmt.Errorf("area %s: %w", m.Area, err)
		}
	}
	if _, err := app.DB.LoginID(demoOperator.login); errors.Is(err, storage.ErrNotFound) {
		if _, err := app.Accounts.Create(ctx, accounts.Create{Login: demoOperator.login, Password: demoOperator.password,
			Nickname: demoOperator.nickname}); err != nil {
			return err
		}
		if err := console.SetOperator(ctx, app.Sys, demoOperator.login, true); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	fmt.Fprintln(out, "demo accounts (login / password):")
	for _, d := range demoAccounts {
		kind := "main account"
		if d.parent != "" {
			kind = "sub-account of " + d.parent
		}
		fmt.Fprintf(out, "  %-12s %-12s %s\n", d.login, d.password, kind)
	}
	fmt.Fprintf(out, "  %-12s %-12s operator of the web console\n", demoOperator.login, demoOperator.password)
	return nil
}

// printDemoConsole prints where the demo's console is and who signs in.
func printDemoConsole(out io.Writer, opAddr net.Addr) {
	if opAddr == nil {
		fmt.Fprintln(out, "web console: off (operator.enabled = false)")
		return
	}
	fmt.Fprintf(out, "web console: http://%s%s (sign in as %s / %s)\n", opAddr, console.Prefix, demoOperator.login, demoOperator.password)
}

func createDemo(ctx context.Context, app *App) error {
	ids := map[string]storage.AccountID{}
	for _, d := range demoAccounts {
		a, err := app.Accounts.Create(ctx, accounts.Create{Login: d.login, Password: d.password, Nickname: d.nickname, Parent: d.parent})
		if err != nil {
			return err
		}
		ids[d.login] = a.ID
	}
	_, err := app.Sys.Apply(ctx, ids["demo"], demoProfile{friend: ids["friend"], now: time.Now().UTC()})
	if err != nil {
		return err
	}
	_, err = (&accounts.Grant{Gold: 500, Tickets: 200}).To(ctx, app.Sys, ids["friend"])
	return err
}

// demoProfile fills the main demo account: balances, upgrades, a buddy, a
// notification and some statistics.
type demoProfile struct {
	friend storage.AccountID
	now    time.Time
}

func (d demoProfile) Apply(tx *actors.Tx) (any, error) {
	a := tx.Account()
	a.Gold, a.Silver, a.Tickets, a.GameTokens = 5000, 12000, 1500, 3
	a.Points, a.MMPoints = 250, 40
	a.Upgrades = append(a.Upgrades,
		storage.Upgrade{ID: "aa.Hero_Pyromancer.Alt2"}, storage.Upgrade{ID: "av.Flamboyant"},
		storage.Upgrade{ID: "cc.Blue"}, storage.Upgrade{ID: "t.Standard"},
		storage.Upgrade{ID: "m.DemoMode", StartTime: d.now.Unix(), EndTime: d.now.Add(30 * 24 * time.Hour).Unix()})
	a.SelectedUpgrades = []string{"cc.Blue", "t.Standard"}
	a.Buddies = []storage.Buddy{{ID: d.friend, Nickname: "FriendlyFoe", Status: 2, Standing: 3, New: true}}
	a.Notifications = []storage.Notification{{ID: 1, Sender: "FriendlyFoe", Code: 2, Type: "notify_buddy_added",
		Template: "notify_buddy_added_template", Date: d.now}}
	a.Stats = storage.Stats{Level: 12, LevelExp: 4200, GamesPlayed: 57, AccPubSkill: 1612.5, AccWins: 31, AccLosses: 26,
		AccGames: 57, RnkRating: 1550, RnkWins: 8, RnkLosses: 5, RnkGames: 13, CSRating: 1500}
	a.IsNew = false
	return nil, nil
}
