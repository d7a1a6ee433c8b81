package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/cloud"
	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/storage"
)

// op is an operator command. Its run function parses its own arguments and
// writes its output; it runs in the CLI process (server stopped) or inside
// the server (over the admin socket) with the same arguments, so the output
// is the same either way.
type op struct {
	name  string // words after "host", e.g. "account create"
	usage string
	// pathArgs: positional arguments are file paths, made absolute before
	// the command may travel to a server with another working directory.
	pathArgs bool
	// mayInit: the command accepts --init, which creates the data
	// directory when it does not exist (every other command refuses a
	// missing one).
	mayInit bool
	// run parses args (with newFlags and parse, before it touches app: it is
	// called with a nil app and --help to print the command's flags), then
	// does the work.
	run func(ctx context.Context, app *App, args []string, out io.Writer) error
}

// ops is the table of operator commands.
var ops = []op{
	{name: "account create", usage: "[--init] --login L --password P [--email E] [--nickname N] [--parent LOGIN]", run: opAccountCreate, mayInit: true},
	{name: "account grant", usage: "--login L [--gold N] [--silver N] [--tickets N] [--upgrade ID ...]", run: opAccountGrant},
	{name: "account show", usage: "--login L", run: opAccountShow},
	{name: "account role", usage: "--login L --operator[=false]", run: opAccountRole},
	{name: "backup", usage: "--to DIR", run: opBackup},
	{name: "plugins", run: opPlugins},
	{name: "products import", usage: "FILE (JSON catalog, see README)", run: opProductsImport, pathArgs: true},
	{name: "cloud show", usage: "--login L [--bucket B]", run: opCloudShow},
}

func opProductsImport(ctx context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("products import", out)
	if err := parseWithArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: products import FILE", errUsage)
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return &opError{cause: err, msg: fmt.Sprintf("cannot read the catalog: %v", unwrapPath(err))}
	}
	defer f.Close()
	if err := plinko.ImportCatalog(ctx, app.Sys, f, out); err != nil {
		if errors.Is(err, plinko.ErrCatalog) {
			return &opError{cause: err, msg: fmt.Sprintf("catalog %s is not valid: %s", fs.Arg(0), detail(err, plinko.ErrCatalog))}
		}
		return err
	}
	return nil
}

func opCloudShow(ctx context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("cloud show", out)
	var loginName, bucket string
	fs.StringVar(&loginName, "login", "", "login of the account")
	fs.StringVar(&bucket, "bucket", "hon-game-configs", "settings bucket")
	if err := parse(fs, args); err != nil {
		return err
	}
	if loginName == "" {
		return fmt.Errorf("%w: --login is required", errUsage)
	}
	err := cloud.Show(ctx, app.DB, loginName, bucket, out)
	switch {
	case errors.Is(err, cloud.ErrUnknownLogin):
		return unknownLogin(loginName, err)
	case errors.Is(err, cloud.ErrNothingStored):
		return &opError{cause: err, msg: fmt.Sprintf("account %q has no settings stored in bucket %q", loginName, bucket)}
	}
	return err
}

func findOp(words []string) (*op, []string) {
	for i := range ops {
		n := strings.Fields(ops[i].name)
		if len(words) >= len(n) && strings.Join(words[:len(n)], " ") == ops[i].name {
			return &ops[i], words[len(n):]
		}
	}
	return nil, nil
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

// newFlags returns a command's flag set. It prints nothing itself: a
// parse error is returned (and printed once, by Main), and --help is
// answered by the caller from the flags defined on it (see helpError).
func newFlags(name string, _ io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// helpError is the --help answer of a flag set: Main exits 0 with the
// usage, which the caller prints from fs.
type helpError struct{ fs *flag.FlagSet }

func (e *helpError) Error() string { return flag.ErrHelp.Error() }
func (e *helpError) Unwrap() error { return flag.ErrHelp }

// parse parses a command's flags; it takes no positional arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := parseWithArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}

// parseWithArgs parses a command's flags, leaving positional arguments in
// fs.Args().
func parseWithArgs(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return &helpError{fs: fs}
	}
	return fmt.Errorf("%w: %w", errUsage, err)
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func opAccountCreate(ctx context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("account create", out)
	var c accounts.Create
	fs.StringVar(&c.Login, "login", "", "login (at most 12 characters, case-sensitive)")
	fs.StringVar(&c.Password, "password", "", "password")
	fs.StringVar(&c.Email, "email", "", "e-mail")
	fs.StringVar(&c.Nickname, "nickname", "", "display name (default: the login)")
	fs.StringVar(&c.Parent, "parent", "", "login of the main account, to create a sub-account")
	if err := parse(fs, args); err != nil {
		return err
	}
	acct, err := app.Accounts.Create(ctx, c)
	if err != nil {
		return explainCreate(err, c)
	}
	fmt.Fprintln(out, acct.ID)
	return nil
}

func opAccountGrant(ctx context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("account grant", out)
	var g accounts.Grant
	var loginName string
	var ups listFlag
	fs.StringVar(&loginName, "login", "", "login of the account")
	fs.Int64Var(&g.Gold, "gold", 0, "gold coins to add (negative to remove)")
	fs.Int64Var(&g.Silver, "silver", 0, "silver coins to add")
	fs.Int64Var(&g.Tickets, "tickets", 0, "plinko tickets to add")
	fs.Var(&ups, "upgrade", "upgrade `ID` to grant, e.g. aa.Hero_Pyromancer.Alt2 (repeatable)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if loginName == "" {
		return fmt.Errorf("%w: --login is required", errUsage)
	}
	g.Upgrades = ups
	acct, err := app.Accounts.GrantTo(ctx, loginName, &g)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return unknownLogin(loginName, err)
	case errors.Is(err, accounts.ErrBadGrant):
		return &opError{cause: err, msg: "grant refused, nothing changed: " + detail(err, accounts.ErrBadGrant)}
	case err != nil:
		return err
	}
	printBalances(out, acct)
	return nil
}

func opAccountShow(ctx context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("account show", out)
	var loginName string
	fs.StringVar(&loginName, "login", "", "login of the account")
	if err := parse(fs, args); err != nil {
		return err
	}
	if loginName == "" {
		return fmt.Errorf("%w: --login is required", errUsage)
	}
	id, err := app.DB.LoginID(loginName)
	if errors.Is(err, storage.ErrNotFound) {
		return unknownLogin(loginName, err)
	} else if err != nil {
		return err
	}
	acct, err := app.Sys.Account(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "account %d %q nickname %q email %q super %d\n", acct.ID, acct.Login, acct.Nickname, acct.Email, acct.SuperID)
	printBalances(out, acct)
	subs, err := app.DB.SubAccounts(acct.SuperID)
	if err != nil {
		return err
	}
	for _, s := range subs {
		fmt.Fprintf(out, "sub-account of %d: %d\n", acct.SuperID, s)
	}
	return nil
}

func printBalances(out io.Writer, a *storage.Account) {
	fmt.Fprintf(out, "gold %d silver %d tickets %d\n", a.Gold, a.Silver, a.Tickets)
	ids := make([]string, 0, len(a.Upgrades))
	for _, u := range a.Upgrades {
		ids = append(ids, u.ID)
	}
	sort.Strings(ids)
	fmt.Fprintf(out, "upgrades %d: %s\n", len(ids), strings.Join(ids, " "))
}

func opBackup(_ context.Context, app *App, args []string, out io.Writer) error {
	fs := newFlags("backup", out)
	var to string
	fs.StringVar(&to, "to", "", "directory to create with a consistent copy of the database")
	if err := parse(fs, args); err != nil {
		return err
	}
	if to == "" {
		return fmt.Errorf("%w: --to is required", errUsage)
	}
	if !filepath.IsAbs(to) {
		return fmt.Errorf("%w: --to must be absolute here", errUsage)
	}
	if err := app.DB.Checkpoint(to); err != nil {
		if errors.Is(err, os.ErrExist) {
			return &opError{cause: err, msg: fmt.Sprintf("backup not written: %s already exists (give a new directory)", to)}
		}
		return &opError{cause: err, msg: fmt.Sprintf("backup to %s failed: %v", to, unwrapPath(err))}
	}
	fmt.Fprintf(out, "backup written to %s\n", to)
	return nil
}
