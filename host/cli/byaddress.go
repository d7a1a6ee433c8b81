package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/storage"
)

// The operator's view of accounts registered from one client address
// (storage's registration index): sock puppets, one owner's many accounts,
// each with the budgets of an account.
func init() {
	ops = append(ops, op{name: "account by-address", usage: "[--address A] [--min N]",
		parse: parseByAddress, empty: func() Request { return new(ByAddressRequest) }})
}

// ByAddressRequest lists the addresses that registered at least Min
// accounts, most first, each with its accounts; or, with Address, the
// accounts registered from that address.
type ByAddressRequest struct {
	Address string `json:"address"`
	Min     int    `json:"min"`
}

func (*ByAddressRequest) Op() string { return "account by-address" }

func (r *ByAddressRequest) Validate() error {
	if r.Min < 1 {
		return usageError("--min must be at least 1")
	}
	return nil
}

// registrationGroup is one address and the accounts registered from it.
type registrationGroup struct {
	addr string
	ids  []storage.AccountID
}

func (r *ByAddressRequest) Run(_ context.Context, app *App, out io.Writer) error {
	// Addresses are grouped as the per-address limits key them
	// (limit.AddrKey: an IPv6 client by its /64), so that puppets
	// registered from the addresses of one /64 show as one cluster.
	want := ""
	if r.Address != "" {
		want = limit.AddrKey(r.Address)
	}
	byKey := map[string]*registrationGroup{}
	err := app.DB.RegistrationAddresses(func(addr string, ids []storage.AccountID) error {
		key := limit.AddrKey(addr)
		if want != "" && key != want {
			return nil
		}
		g := byKey[key]
		if g == nil {
			g = &registrationGroup{addr: key}
			byKey[key] = g
		}
		g.ids = append(g.ids, ids...)
		return nil
	})
	if err != nil {
		return err
	}
	var groups []registrationGroup
	for _, g := range byKey {
		if want != "" || len(g.ids) >= r.Min {
			slices.Sort(g.ids)
			groups = append(groups, *g)
		}
	}
	slices.SortFunc(groups, func(a, b registrationGroup) int {
		if c := cmp.Compare(len(b.ids), len(a.ids)); c != 0 {
			return c
		}
		return cmp.Compare(a.addr, b.addr)
	})
	if len(groups) == 0 {
		if r.Address != "" {
			fmt.Fprintf(out, "no account was registered from %s\n", r.Address)
		} else {
			fmt.Fprintf(out, "no address registered %d or more accounts\n", r.Min)
		}
		return nil
	}
	for _, g := range groups {
		logins, err := accountLogins(app.DB, g.ids)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s  %d accounts: %s\n", g.addr, len(g.ids), strings.Join(logins, " "))
	}
	return nil
}

// accountLogins words accounts as "login (id)".
func accountLogins(db *storage.DB, ids []storage.AccountID) ([]string, error) {
	out := make([]string, len(ids))
	for i, id := range ids {
		a, err := db.AccountProfile(id)
		if err != nil {
			return nil, fmt.Errorf("account %d: %w", id, err)
		}
		out[i] = fmt.Sprintf("%s (%d)", a.Login, id)
	}
	return out, nil
}

func parseByAddress(args []string) (Request, error) {
	fs := newFlags("account by-address", nil)
	r := ByAddressRequest{Min: 2}
	fs.StringVar(&r.Address, "address", "", "list the accounts registered from this client address")
	fs.IntVar(&r.Min, "min", 2, "list the addresses that registered at least this many accounts")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	return checked(&r)
}

// printRegistration adds to account show where a registered account came
// from and the other accounts registered from there.
func printRegistration(out io.Writer, db *storage.DB, acct *storage.Account) error {
	addr, err := db.RegistrationAddress(acct.ID)
	if err != nil || addr == "" {
		return err // none recorded: created by an operator, or before the index
	}
	ids, err := db.RegisteredFrom(addr)
	if err != nil {
		return err
	}
	ids = slices.DeleteFunc(ids, func(id storage.AccountID) bool { return id == acct.ID })
	logins, err := accountLogins(db, ids)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "registered from %s at %s\n", addr, acct.Created.UTC().Format("2006-01-02 15:04:05 UTC"))
	if len(logins) > 0 {
		fmt.Fprintf(out, "registered from the same address: %s\n", strings.Join(logins, " "))
	}
	return nil
}
