package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
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

// DemoDataDir is serve --demo's data directory when neither --data nor the
// configuration names one: the demo's accounts, whose passwords are
// published, stay out of the directory a production server uses.
const DemoDataDir = "./data-demo"

// demoMark is the metadata record that marks a database seeded by serve
// --demo (its value: when it was first seeded).
const demoMark = "demo_seeded"

// errDemoStore: a server started without --demo on a database that holds
// the demo's accounts.
var errDemoStore = errors.New("the database holds the demo's accounts")

// refuseDemoStore refuses to serve, without --demo, a database that holds
// demo accounts: those of a database marked as the demo's (seedDemo), and
// in any database the demo's console operator, demo_admin with the
// operator role (databases seeded before the mark). The sentence says
// which accounts and what to do.
func refuseDemoStore(db *storage.DB, dataDir string) error {
	_, err := db.Meta(demoMark)
	marked := err == nil
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	var found []string
	for _, d := range append([]demoAccount{demoOperator}, demoAccounts...) {
		id, err := db.LoginID(d.login)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		if !marked {
			if d != demoOperator {
				continue // a player may well be called "demo" elsewhere
			}
			if op, err := console.IsOperator(db, id); err != nil {
				return err
			} else if !op {
				continue
			}
		}
		if d.parent == "" { // sub-accounts go with their main account
			found = append(found, d.login)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return &opError{cause: errDemoStore, msg: fmt.Sprintf("the database of %s holds the demo's accounts (%s), whose passwords are published: "+
		"a server started without --demo does not serve them. Run the demo with serve --demo (by default in its own directory, %s), "+
		"and serve your players from a new data directory (--data DIR); or, to keep this one, delete those accounts first "+
		"(%s account delete --data %s --login %s --yes, one command per login)",
		dataDir, strings.Join(found, ", "), DemoDataDir, Name, dataDir, found[0])}
}

// errNotDemoStore: serve --demo on a database that is not the demo's.
var errNotDemoStore = errors.New("the database is not the demo's")

// errStopScan ends a scan at its first record.
var errStopScan = errors.New("stop")

// refuseForeignStore refuses serve --demo on a database that is not the
// demo's: one that holds accounts but is neither marked as the demo's
// (seedDemo) nor seeded before the mark (its demo_admin an operator, as
// refuseDemoStore reads it). The demo would add to it its accounts, whose
// passwords are published, among them an operator of the console. A new
// database, without accounts, becomes the demo's. The refusal is a
// configuration mistake (exit status 2) that says where to run the demo.
func refuseForeignStore(db *storage.DB, cfg *config.Config) error {
	if _, err := db.Meta(demoMark); err == nil {
		return nil
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if id, err := db.LoginID(demoOperator.login); err == nil {
		if op, err := console.IsOperator(db, id); err != nil {
			return err
		} else if op {
			return nil // seeded before the mark
		}
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	holds := false
	err := db.EachLogin(func(string, storage.AccountID) error {
		holds = true
		return errStopScan
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return err
	}
	if !holds {
		return nil
	}
	where, instead := "the database in data directory "+cfg.Storage.DataDir, "in a data directory of its own: leave out --data (it then uses "+
		DemoDataDir+") or name a new directory"
	if cfg.Storage.Backend == config.BackendPostgres {
		where, instead = "the PostgreSQL database at "+storage.RedactURL(cfg.Storage.Postgres.URL),
			"on a PostgreSQL database of its own (storage.postgres.url), or on Pebble in a data directory of its own"
	}
	return &opError{cause: errors.Join(errConfig, errNotDemoStore), msg: fmt.Sprintf("%s is not the demo's: it holds accounts "+
		"that serve --demo did not create, and --demo would add to them the demo's accounts, whose passwords are published "+
		"(%s, an operator of the console, among them). Serve it without --demo, and run the demo %s",
		where, demoOperator.login, instead)}
}

// seedDemo creates the demo accounts unless the data directory has them
// already (other accounts may exist), then each area's demo data
// (hostarea.Module.Demo: the prize catalog, the guides ...), and prints
// the demo logins.
func seedDemo(ctx context.Context, app *App, out io.Writer) error {
	// The mark is stored through the actors' registry (its first value is
	// kept: the time the directory first served the demo).
	if _, err := app.Sys.EnsureMeta(ctx, demoMark, []byte(time.Now().UTC().Format(time.RFC3339))); err != nil {
		return err
	}
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

// printDemoConsole prints where the demo's data and console are and who
// signs in.
func printDemoConsole(out io.Writer, cfg *config.Config, opAddr net.Addr) {
	if cfg.Storage.Backend == config.BackendPostgres {
		fmt.Fprintf(out, "demo database: the PostgreSQL database at %s (drop it and create it again to start the demo afresh; "+
			"a server without --demo refuses it)\n", storage.RedactURL(cfg.Storage.Postgres.URL))
	} else {
		dataDir := cfg.Storage.DataDir
		if abs, err := filepath.Abs(dataDir); err == nil {
			dataDir = abs
		}
		fmt.Fprintf(out, "demo data directory: %s (delete it to start the demo afresh; a server without --demo refuses it)\n", dataDir)
	}
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
