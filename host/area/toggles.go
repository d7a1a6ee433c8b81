package area

import (
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/limit"
)

// Toggles is the budget of [limits] for the small writes a player repeats
// at will and that no budget of their own bounds (toggles_per_account,
// toggles_per_address): each kind of them (switch_auth's new sessions,
// the guides area's marks, the cloud area's enrollment) keeps its own
// limit.Writes at these rates, spent only by a request that writes, and
// puts a reload's rates in force (Live.Reload). In a cluster the
// configuration an area is given holds the node's share of the address's
// budget (config.ShareLimits); an account's writes all run on its node.
func Toggles(l config.Limits) limit.WriteRates {
	return limit.WriteRates{
		PerAccount: limit.Rate{Burst: l.TogglesAccount.Burst, Every: l.TogglesAccount.Every.Duration},
		PerAddress: limit.Rate{Burst: l.TogglesAddress.Burst, Every: l.TogglesAddress.Every.Duration},
		Keys:       l.TrackedKeys}
}
