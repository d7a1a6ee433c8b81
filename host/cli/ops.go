package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/operator"
	"github.com/honmaster/masterserver/storage"
)

// Request is one operator operation with its arguments parsed and typed:
// GrantRequest, BackupRequest ... An operator command parses its command
// line once into its Request (checked by Validate, so a mistake is reported
// before anything is opened). With the server stopped the command runs it
// itself (Run over the App it opens); with the server running it sends it,
// as JSON named by Op, over the admin socket, and the server decodes it
// strictly, validates it again and runs the same Run: one code path, the
// same output either way.
type Request interface {
	// Op is the operation's name on the command line and on the admin
	// socket ("account grant").
	Op() string
	// Validate checks the values (as the command line and the socket may
	// both carry them); its errors wrap errUsage.
	Validate() error
	// Run does the operation against app and writes its output to out.
	Run(ctx context.Context, app *App, out io.Writer) error
}

// op is an operator command: its name and usage, how its command line is
// parsed into its Request, and an empty Request to decode from the admin
// socket.
type op struct {
	name  string // the command words, e.g. "account create"; the Request's Op
	usage string
	// mayInit: the command accepts --init, which creates the data
	// directory when it does not exist (every other command refuses a
	// missing one).
	mayInit bool
	// parse reads the command's flags and arguments into its Request and
	// validates it. Given --help it returns a *helpError carrying the flag
	// set, from which the help text is printed.
	parse func(args []string) (Request, error)
	// empty returns a zero Request of the operation's type, for the admin
	// socket to decode into.
	empty func() Request
}

// ops is the table of operator commands. Areas add theirs in init.
var ops = []op{
	{name: "account create", usage: "[--init] --login L --password P [--email E] [--nickname N] [--parent LOGIN]" + roleUsage(false), mayInit: true,
		parse: parseCreateAccount, empty: func() Request { return new(CreateAccountRequest) }},
	{name: "account grant", usage: "--login L [--gold N] [--silver N] [--tickets N] [--upgrade ID ...]",
		parse: parseGrant, empty: func() Request { return new(GrantRequest) }},
	{name: "account show", usage: "--login L",
		parse: parseShowAccount, empty: func() Request { return new(ShowAccountRequest) }},
	{name: "account role", usage: "--login L [--operator[=false]]" + roleUsage(true),
		parse: parseRole, empty: func() Request { return new(RoleRequest) }},
	{name: "account delete", usage: "--login L --yes",
		parse: parseDeleteAccount, empty: func() Request { return new(DeleteAccountRequest) }},
	{name: "backup", usage: "--to DIR",
		parse: parseBackup, empty: func() Request { return new(BackupRequest) }},
	{name: "plugins",
		parse: parsePlugins, empty: func() Request { return new(PluginsRequest) }},
}

func findOp(words []string) (*op, []string) {
	all := allOps()
	for i := range all {
		n := strings.Fields(all[i].name)
		if len(words) >= len(n) && strings.Join(words[:len(n)], " ") == all[i].name {
			return &all[i], words[len(n):]
		}
	}
	return nil, nil
}

// opNamed returns the operator command whose Request has the Op name.
func opNamed(name string) *op {
	all := allOps()
	for i := range all {
		if all[i].name == name {
			return &all[i]
		}
	}
	return nil
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

// usageError is a command-line mistake worded for the operator: its
// detail is what explain shows. A %w in format wraps its operand.
func usageError(format string, a ...any) error {
	return detail.New(errUsage, format, a...)
}

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
		return usageError("unexpected argument %q", fs.Arg(0))
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
	return usageError("%w", &opError{cause: err, msg: flagMessage(err.Error())})
}

var (
	flagUndefined = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	flagNoValue   = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	flagBadValue  = regexp.MustCompile(`^invalid (boolean )?value (".*") for (?:flag )?-+([^:]*): (.*)$`)
)

// flagMessage rewords the flag package's parse errors with the flags
// spelt as the usage text spells them ("--tickets").
func flagMessage(text string) string {
	if m := flagUndefined.FindStringSubmatch(text); m != nil {
		return fmt.Sprintf("unknown flag --%s", m[1])
	}
	if m := flagNoValue.FindStringSubmatch(text); m != nil {
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	if m := flagBadValue.FindStringSubmatch(text); m != nil {
		// A flag.Value's own error already says what the flag wants
		// (config's --plugin and --log-level); the flag package's number
		// and boolean errors do not.
		reason := m[4]
		switch {
		case m[1] != "":
			reason = "want true or false"
		case m[4] == "value out of range":
			reason = "out of range"
		case m[4] == "parse error":
			reason = "not a number"
		case strings.TrimSpace(m[4]) == "":
			reason = "not a valid value"
		}
		return fmt.Sprintf("--%s %s: %s", m[3], m[2], reason)
	}
	return text
}

// checked validates r and returns it, or the validation error.
func checked(r Request) (Request, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// needLogin is the check of a required --login.
func needLogin(login string) error {
	if login == "" {
		return usageError("--login is required")
	}
	return nil
}

// absPath makes a path given on the command line absolute: the request may
// run in a server with another working directory.
func absPath(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", &opError{cause: err, msg: fmt.Sprintf("cannot resolve the path %s: %v", p, err)}
	}
	return abs, nil
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// CreateAccountRequest creates an account (or a sub-account of Parent).
type CreateAccountRequest struct {
	Login    string `json:"login"`
	Password string `json:"password"`
	Email    string `json:"email,omitempty"`
	Nickname string `json:"nickname,omitempty"`
	Parent   string `json:"parent,omitempty"`
	// Roles are the flags of the areas' roles to give (accounts.Roles:
	// --game-host ...).
	// (A pointer: the audit trail leaves a nil one out.)
	Roles *[]string `json:"roles,omitempty"`
}

func (*CreateAccountRequest) Op() string { return "account create" }

func (r *CreateAccountRequest) Validate() error {
	if err := needLogin(r.Login); err != nil {
		return err
	}
	if r.Password == "" {
		return usageError("--password is required")
	}
	return nil
}

// LogValue keeps the password out of logs.
func (r *CreateAccountRequest) LogValue() slog.Value {
	return slog.GroupValue(slog.String("login", r.Login), slog.String("parent", r.Parent))
}

func (r *CreateAccountRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	c := accounts.Create{Login: r.Login, Password: r.Password, Email: r.Email, Nickname: r.Nickname, Parent: r.Parent}
	acct, err := app.Accounts.Create(ctx, c)
	if err != nil {
		return explainCreate(err, c)
	}
	given := ""
	var give []string
	if r.Roles != nil {
		give = *r.Roles
	}
	for _, flag := range give {
		role, ok := accounts.RoleByFlag(flag)
		if !ok {
			continue
		}
		if err := role.Set(ctx, app.Sys, acct.ID, true); err != nil {
			return &opError{cause: err, msg: fmt.Sprintf("account %d %q created, but not made a %s: %v (retry with 'account role --login %s --%s')",
				acct.ID, acct.Login, role.Noun, err, acct.Login, role.Flag)}
		}
		given += ", a " + role.Noun
	}
	if acct.SuperID != acct.ID {
		fmt.Fprintf(out, "account %d %q created, a sub-account of %q%s\n", acct.ID, acct.Login, r.Parent, given)
		return nil
	}
	fmt.Fprintf(out, "account %d %q created%s\n", acct.ID, acct.Login, given)
	return nil
}

func parseCreateAccount(args []string) (Request, error) {
	fs := newFlags("account create", nil)
	var r CreateAccountRequest
	fs.StringVar(&r.Login, "login", "", "login (at most 12 characters, case-sensitive)")
	fs.StringVar(&r.Password, "password", "", "password")
	fs.StringVar(&r.Email, "email", "", "e-mail")
	fs.StringVar(&r.Nickname, "nickname", "", "display name (default: the login)")
	fs.StringVar(&r.Parent, "parent", "", "login of the main account, to create a sub-account")
	roles := map[string]*bool{}
	for _, role := range accounts.Roles() {
		roles[role.Flag] = fs.Bool(role.Flag, false, "make it a "+role.Noun+" ("+role.Doc+")")
	}
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	var give []string
	for _, role := range accounts.Roles() {
		if *roles[role.Flag] {
			give = append(give, role.Flag)
		}
	}
	if give != nil {
		r.Roles = &give
	}
	return checked(&r)
}

// GrantRequest adds (or, negative, removes) currency and grants upgrades.
type GrantRequest struct {
	Login    string   `json:"login"`
	Gold     int64    `json:"gold,omitempty"`
	Silver   int64    `json:"silver,omitempty"`
	Tickets  int64    `json:"tickets,omitempty"`
	Upgrades []string `json:"upgrades,omitempty"`
}

func (*GrantRequest) Op() string { return "account grant" }

func (r *GrantRequest) Validate() error { return needLogin(r.Login) }

func (r *GrantRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	g := accounts.Grant{Gold: r.Gold, Silver: r.Silver, Tickets: r.Tickets, Upgrades: r.Upgrades}
	acct, err := app.Accounts.GrantTo(ctx, r.Login, &g)
	switch {
	case isUnknownAccount(err):
		return unknownLogin(r.Login, err)
	case errors.Is(err, accounts.ErrBadGrant):
		return &opError{cause: err, msg: "grant refused, nothing changed: " + specifics(err, accounts.ErrBadGrant)}
	case err != nil:
		return err
	}
	printBalances(out, acct)
	return nil
}

func parseGrant(args []string) (Request, error) {
	fs := newFlags("account grant", nil)
	var r GrantRequest
	var ups listFlag
	fs.StringVar(&r.Login, "login", "", "login of the account")
	fs.Int64Var(&r.Gold, "gold", 0, "gold coins to add (negative to remove)")
	fs.Int64Var(&r.Silver, "silver", 0, "silver coins to add")
	fs.Int64Var(&r.Tickets, "tickets", 0, "tickets to add")
	fs.Var(&ups, "upgrade", "upgrade `ID` to grant, e.g. aa.Hero_Pyromancer.Alt2 (repeatable)")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	r.Upgrades = ups
	return checked(&r)
}

// ShowAccountRequest shows an account, its balances and sub-accounts.
type ShowAccountRequest struct {
	Login string `json:"login"`
}

func (*ShowAccountRequest) Op() string { return "account show" }

func (r *ShowAccountRequest) Validate() error { return needLogin(r.Login) }

func (r *ShowAccountRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	id, err := app.DB.LoginID(r.Login)
	if isUnknownAccount(err) {
		return unknownLogin(r.Login, err)
	} else if err != nil {
		return err
	}
	acct, err := app.Sys.Account(ctx, id)
	if isUnknownAccount(err) {
		return unknownLogin(r.Login, err)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(out, "account %d %q nickname %q email %q super %d\n", acct.ID, acct.Login, acct.Nickname, acct.Email, acct.SuperID)
	operator, err := console.IsOperator(app.DB, acct.ID)
	if err != nil {
		return err
	}
	if operator {
		fmt.Fprintln(out, "role operator (may sign in to the web console)")
	} else {
		fmt.Fprintln(out, "role player")
	}
	if err := printRoles(out, app.DB, acct.ID, ""); err != nil {
		return err
	}
	printBalances(out, acct)
	if err := printRegistration(out, app.DB, acct); err != nil {
		return err
	}
	subs, err := app.DB.SubAccounts(acct.SuperID)
	if err != nil {
		return err
	}
	// The main account (for a sub-account) and the sub-accounts, each by
	// id and login; this account is marked.
	if acct.SuperID != acct.ID {
		main, err := app.DB.Account(acct.SuperID)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "main account %d %q\n", main.ID, main.Login)
	}
	for _, id := range subs {
		if id == acct.SuperID {
			continue
		}
		a, err := app.DB.Account(id)
		if err != nil {
			return err
		}
		this := ""
		if id == acct.ID {
			this = " (this one)"
		}
		fmt.Fprintf(out, "sub-account %d %q%s\n", id, a.Login, this)
	}
	return nil
}

func parseShowAccount(args []string) (Request, error) {
	fs := newFlags("account show", nil)
	var r ShowAccountRequest
	fs.StringVar(&r.Login, "login", "", "login of the account")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	return checked(&r)
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

// RoleRequest gives or takes away the operator role (web console sign-in),
// or, with Operator nil (no --operator), shows it: a command line that
// names no change changes nothing.
type RoleRequest struct {
	Login    string `json:"login"`
	Operator *bool  `json:"operator,omitempty"`
	// Roles are the areas' roles to give (true) or take away (false), by
	// flag (accounts.Roles); the others are shown.
	// (A pointer: the audit trail leaves a nil one out.)
	Roles *map[string]bool `json:"roles,omitempty"`
}

func (*RoleRequest) Op() string { return "account role" }

func (r *RoleRequest) Validate() error { return needLogin(r.Login) }

func (r *RoleRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	operator := false
	if r.Operator == nil {
		id, err := app.DB.LoginID(r.Login)
		if err == nil {
			operator, err = console.IsOperator(app.DB, id)
		}
		if isUnknownAccount(err) {
			return unknownLogin(r.Login, err)
		} else if err != nil {
			return err
		}
	} else {
		operator = *r.Operator
		if err := console.SetOperator(ctx, app.Sys, r.Login, operator); err != nil {
			if isUnknownAccount(err) {
				return unknownLogin(r.Login, err)
			}
			return err
		}
	}
	if operator {
		fmt.Fprintf(out, "%s is an operator (may sign in to the web console)\n", r.Login)
	} else {
		fmt.Fprintf(out, "%s is not an operator\n", r.Login)
	}
	if len(accounts.Roles()) == 0 {
		return nil
	}
	id, err := app.DB.LoginID(r.Login)
	if isUnknownAccount(err) {
		return unknownLogin(r.Login, err)
	} else if err != nil {
		return err
	}
	var change map[string]bool
	if r.Roles != nil {
		change = *r.Roles
	}
	for flag, on := range change {
		role, ok := accounts.RoleByFlag(flag)
		if !ok {
			return usageError("unknown role --%s", flag)
		}
		if err := role.Set(ctx, app.Sys, id, on); err != nil {
			return err
		}
	}
	return printRoles(out, app.DB, id, r.Login+" ")
}

// roleUsage is the usage text of the areas' roles: " [--game-host]", or
// with no (account role) " [--game-host | --no-game-host]".
func roleUsage(no bool) string {
	u := ""
	for _, role := range accounts.Roles() {
		if no {
			u += " [--" + role.Flag + " | --no-" + role.Flag + "]"
		} else {
			u += " [--" + role.Flag + "]"
		}
	}
	return u
}

// printRoles says which of the areas' roles account id has; who starts
// each line ("L ", or "" for "account show").
func printRoles(out io.Writer, db *storage.DB, id storage.AccountID, who string) error {
	for _, role := range accounts.Roles() {
		has, err := role.Has(db, id)
		if err != nil {
			return err
		}
		switch {
		case has && who == "":
			fmt.Fprintf(out, "%s (%s)\n", role.Noun, role.Doc)
		case has:
			fmt.Fprintf(out, "%sis a %s (%s)\n", who, role.Noun, role.Doc)
		case who == "":
			fmt.Fprintf(out, "not a %s\n", role.Noun)
		default:
			fmt.Fprintf(out, "%sis not a %s\n", who, role.Noun)
		}
	}
	return nil
}

func parseRole(args []string) (Request, error) {
	fs := newFlags("account role", nil)
	var r RoleRequest
	fs.StringVar(&r.Login, "login", "", "login of the account")
	operator := fs.Bool("operator", false, "give the operator role (web console sign-in); --operator=false takes it away; without it the role is shown")
	for _, role := range accounts.Roles() {
		fs.Bool(role.Flag, false, "make it a "+role.Noun+" ("+role.Doc+")")
		fs.Bool("no-"+role.Flag, false, "take the "+role.Noun+" role away")
	}
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	var contradiction error
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "operator" {
			r.Operator = operator
			return
		}
		flag, on := f.Name, f.Value.String() == "true"
		if rest, ok := strings.CutPrefix(f.Name, "no-"); ok {
			flag, on = rest, !on
		}
		if _, isRole := accounts.RoleByFlag(flag); !isRole {
			return // --login
		}
		if r.Roles == nil {
			r.Roles = &map[string]bool{}
		}
		if prev, twice := (*r.Roles)[flag]; twice && prev != on {
			contradiction = usageError("--%s and --no-%s contradict each other", flag, flag)
		}
		(*r.Roles)[flag] = on
	})
	if contradiction != nil {
		return nil, contradiction
	}
	return checked(&r)
}

// DeleteAccountRequest deletes an account, its sub-accounts and every
// record they wrote (accounts.Service.Delete: what the operator API's
// DELETE does, through the same actors). It cannot be undone, so Yes must be
// set: a command line without --yes is refused before anything is read.
type DeleteAccountRequest struct {
	Login string `json:"login"`
	Yes   bool   `json:"yes"`
}

func (*DeleteAccountRequest) Op() string { return "account delete" }

func (r *DeleteAccountRequest) Validate() error {
	if err := needLogin(r.Login); err != nil {
		return err
	}
	if !r.Yes {
		return usageError("deleting %q and its sub-accounts cannot be undone: add --yes to confirm (honmaster backup --to DIR keeps a copy first)", r.Login)
	}
	return nil
}

func (r *DeleteAccountRequest) Run(ctx context.Context, app *App, out io.Writer) error {
	res, err := deleteAccount(ctx, app, r.Login)
	for _, d := range res.Accounts {
		fmt.Fprintf(out, "deleted account %d %q (%d records)\n", d.ID, d.Login, d.Records)
	}
	return err
}

// deleteAccount deletes login's account and its sub-accounts
// (accounts.Service.Delete): what "account delete" and the operator API's
// DELETE both run. The result lists what was deleted, also when the
// deletion stopped part way; the error is worded for the operator and says
// which accounts are gone.
//
// Delete deletes the accounts one at a time (the sub-accounts, then the
// main account), each in its own commit, and stops at the first failure:
// the accounts in the result are deleted, the ones after the failing one
// are not, and the failing one is not, unless its failure is uncertain
// (failure.Uncertain: the asker stopped waiting for its synced commit, or
// the commit failed on disk), when it may or may not be deleted. So the
// error says "nothing was deleted" only when that is known; an uncertain
// failure says the outcome is unknown.
//
// A deletion that stopped part way, whatever stopped it, wraps
// errDeletedPartWay (see apiError): it is never answered as an unknown
// login, also when what stopped it is an account that was no longer there
// (deleted meanwhile by another request).
func deleteAccount(ctx context.Context, app *App, login string) (operator.Deleted, error) {
	res, err := app.Accounts.Delete(ctx, login)
	out := operator.Deleted{Accounts: []operator.DeletedAccount{}}
	var gone []string
	if res != nil {
		out.Records = res.Records
		for _, d := range res.Accounts {
			out.Accounts = append(out.Accounts, operator.DeletedAccount{ID: uint32(d.ID), Login: d.Login, Records: d.Records, Counts: d.Counts})
			gone = append(gone, strconv.Quote(d.Login))
		}
	}
	again := fmt.Sprintf("run it again to finish (it deletes what is left, or reports the login %q unknown if nothing is)", login)
	switch {
	case err == nil:
		return out, nil
	case len(gone) == 0 && failure.Uncertain(err):
		return out, &opError{cause: err, msg: fmt.Sprintf("the outcome of deleting %q is unknown: the server did not confirm that the deletion "+
			"was stored, and it may or may not have been; %s", login, again)}
	case len(gone) == 0 && isUnknownAccount(err):
		return out, unknownLogin(login, err)
	case len(gone) == 0:
		return out, &opError{cause: err, msg: fmt.Sprintf("deleting %q failed; nothing was deleted", login)}
	}
	part := fmt.Sprintf("deleting %q stopped part way (deleted: %s)", login, strings.Join(gone, ", "))
	cause := errors.Join(errDeletedPartWay, err)
	switch {
	case failure.Uncertain(err):
		return out, &opError{cause: cause, msg: fmt.Sprintf("%s, and the outcome of deleting the account it stopped at is unknown: the server "+
			"did not confirm that its deletion was stored, and it may or may not have been; %s", part, again)}
	case isUnknownAccount(err):
		return out, &opError{cause: cause, msg: fmt.Sprintf("%s: the account it stopped at was already gone (deleted meanwhile by "+
			"another request); %s", part, again)}
	}
	return out, &opError{cause: cause, msg: fmt.Sprintf("%s; %s", part, again)}
}

// errDeletedPartWay marks a deletion that stopped after deleting some of
// its accounts (deleteAccount).
var errDeletedPartWay = errors.New("deletion stopped part way")

func parseDeleteAccount(args []string) (Request, error) {
	fs := newFlags("account delete", nil)
	var r DeleteAccountRequest
	fs.StringVar(&r.Login, "login", "", "login of the account to delete (its sub-accounts go with it)")
	fs.BoolVar(&r.Yes, "yes", false, "confirm: the account and everything it stored are deleted for good")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	return checked(&r)
}

// BackupRequest writes a backup into To, a directory that must not exist
// yet (an absolute path), laid out as a data directory: To/db a consistent
// copy of the database (with the generated auth_hash secret) and
// To/operator.token the generated operator token, when there is one
// (restore.go). The configuration file is the operator's, not the
// backup's.
type BackupRequest struct {
	To string `json:"to"`
}

func (*BackupRequest) Op() string { return "backup" }

func (r *BackupRequest) Validate() error {
	switch {
	case r.To == "":
		return usageError("--to is required")
	case !filepath.IsAbs(r.To):
		return usageError("--to %s must be an absolute path", r.To)
	}
	return nil
}

func (r *BackupRequest) Run(_ context.Context, app *App, out io.Writer) error {
	if app.Cfg.Storage.Backend == config.BackendPebble {
		if err := os.Mkdir(r.To, 0o700); err != nil {
			if errors.Is(err, os.ErrExist) {
				return &opError{cause: err, msg: fmt.Sprintf("backup not written: %s already exists (give a new directory)", r.To)}
			}
			return &opError{cause: err, msg: fmt.Sprintf("backup to %s failed: %v", r.To, unwrapPath(err))}
		}
	}
	if err := app.DB.Checkpoint(filepath.Join(r.To, dbDirName)); err != nil {
		if errors.Is(err, storage.ErrNoCheckpoint) {
			return &opError{cause: errors.Join(errConfig, err), msg: "the database is in PostgreSQL (storage.backend = \"postgres\"), " +
				"which backup cannot copy into a directory: back it up with PostgreSQL's own tools, e.g. " +
				"pg_dump --format=custom --table=" + storage.PostgresTable + " --file=honmaster.dump DATABASE_URL (docs/postgres.md)"}
		}
		if errors.Is(err, os.ErrExist) {
			return &opError{cause: err, msg: fmt.Sprintf("backup not written: %s already exists (give a new directory)", r.To)}
		}
		return &opError{cause: err, msg: fmt.Sprintf("backup to %s failed: %v", r.To, unwrapPath(err))}
	}
	token := ""
	if b, err := os.ReadFile(filepath.Join(app.Cfg.Storage.DataDir, operator.TokenFile)); err == nil {
		if err := writeSynced(filepath.Join(r.To, operator.TokenFile), b, 0o600); err != nil { // writeSums syncs its name
			return &opError{cause: err, msg: fmt.Sprintf("backup to %s: the database is written but the operator token is not: %v", r.To, unwrapPath(err))}
		}
		token = " (database and operator token; the configuration file is yours to keep)"
	}
	// Last: a backup with its checksums is whole (restore checks them).
	if err := writeSums(r.To); err != nil {
		return &opError{cause: err, msg: fmt.Sprintf("backup to %s: the database is written but its checksums (%s) are not: %v", r.To, SumsFile, unwrapPath(err))}
	}
	fmt.Fprintf(out, "backup written to %s%s; every file's SHA-256 is in %s\n", r.To, token, SumsFile)
	return nil
}

func parseBackup(args []string) (Request, error) {
	fs := newFlags("backup", nil)
	var r BackupRequest
	fs.StringVar(&r.To, "to", "", "directory to create with a consistent copy of the database")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	var err error
	if r.To, err = absPath(r.To); err != nil {
		return nil, err
	}
	return checked(&r)
}

// parseInterleaved parses fs from args whose positional arguments may come
// before, between or after the flags, and returns those arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := parseWithArgs(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest, args = append(rest, fs.Arg(0)), fs.Args()[1:]
	}
}

// needFile checks the FILE argument of an import.
func needFile(cmd, file string) error {
	switch {
	case file == "":
		return usageError("%s FILE: the file is missing", cmd)
	case !filepath.IsAbs(file):
		return usageError("%s: %s must be an absolute path", cmd, file)
	}
	return nil
}

// isUnknownAccount reports whether err says the account does not exist.
func isUnknownAccount(err error) bool {
	return errors.Is(err, storage.ErrNotFound) || errors.Is(err, actors.ErrNoAccount)
}
