package matches

import (
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// HostOf is the serving area's Route.Account (hostOf): the account a
// request is served for in cluster mode.
func HostOf(r *wire.Request) (storage.AccountID, bool) { return current.Load().hostOf(r) }
