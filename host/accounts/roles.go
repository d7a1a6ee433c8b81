package accounts

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// Role is a right an area gives accounts, which the operator commands
// "account create --FLAG", "account role --login L --FLAG | --no-FLAG" and
// "account show" handle without knowing the area: the area registers it
// (RegisterRole) from its init, and stores it as a record of the account,
// written through the account's actor.
type Role struct {
	Flag string // the command-line flag: "game-host" (--game-host, --no-game-host)
	Noun string // how output names it: "game host" ("L is a game host")
	Doc  string // what it allows: "may run a server manager and game servers"
	// Has reports whether account id has the role.
	Has func(db *storage.DB, id storage.AccountID) (bool, error)
	// Set gives (on) or takes away the role, through the account's actor.
	Set func(ctx context.Context, sys *actors.System, id storage.AccountID, on bool) error
}

var (
	rolesMu  sync.Mutex
	roles    []Role
	roleFlag = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)
)

// RegisterRole adds a role; call it from an area's init. A malformed role,
// or a flag registered twice, panics (a programming error any test
// catches).
func RegisterRole(r Role) {
	rolesMu.Lock()
	defer rolesMu.Unlock()
	if !roleFlag.MatchString(r.Flag) || strings.HasPrefix(r.Flag, "no-") || r.Noun == "" || r.Has == nil || r.Set == nil {
		panic(fmt.Sprintf("accounts: role %q: want a flag matching %s (not no-...), a noun, Has and Set", r.Flag, roleFlag))
	}
	for _, o := range roles {
		if o.Flag == r.Flag {
			panic(fmt.Sprintf("accounts: role %q registered twice", r.Flag))
		}
	}
	roles = append(roles, r)
	slices.SortFunc(roles, func(a, b Role) int { return strings.Compare(a.Flag, b.Flag) })
}

// Roles returns the registered roles, by flag.
func Roles() []Role {
	rolesMu.Lock()
	defer rolesMu.Unlock()
	return slices.Clone(roles)
}

// RoleByFlag returns the role of flag.
func RoleByFlag(flag string) (Role, bool) {
	for _, r := range Roles() {
		if r.Flag == flag {
			return r, true
		}
	}
	return Role{}, false
}
