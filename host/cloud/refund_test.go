package cloud_test

import (
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cloud"
)

// An upload the account's own quota refused still spent its address's
// byte budget: a player retrying refused uploads (auto-upload with full
// buckets) locked every other account behind the address (a cafe) out of
// storing, though nothing was stored. A refused upload gives its bytes
// back. (From a review of the area; failed before.)
func TestARefusedUploadSpendsNothingOfTheAddress(t *testing.T) {
	ts, archive := startThreeUploadBudget(t, func(c *config.Config) { c.Limits.CloudBuckets = 1 })
	full := ts.account(t, "Full")
	checkBody(t, "first bucket", ts.post(t, cloud.PathStore, storeIn(full.Cookie, "one"), zipPart(archive)), storeOK)
	for _, b := range []string{"two", "three"} {
		checkBody(t, "refused "+b, ts.post(t, cloud.PathStore, storeIn(full.Cookie, b), zipPart(archive)), failure(cloud.ReasonTooManyBuckets))
	}
	// One archive stored from the address of a budget of three: room for
	// two more.
	for _, n := range []string{"Neighbour", "Another"} {
		other := ts.account(t, n)
		checkBody(t, n, ts.post(t, cloud.PathStore, storeIn(other.Cookie, cloud.DefaultBucket), zipPart(archive)), storeOK)
	}
	// And the budget still holds.
	last := ts.account(t, "Last")
	checkBody(t, "past the budget", ts.post(t, cloud.PathStore, storeIn(last.Cookie, cloud.DefaultBucket), zipPart(archive)), failure(cloud.ReasonAddressQuota))
}
