package actors

import (
	"github.com/asynkron/protoactor-go/actor"
	cmap "github.com/orcaman/concurrent-map"
)

// registryBuckets is how many concurrent maps protoactor's process registry
// spreads the actors' names over in this system: 16 of 32 Go maps each,
// where protoactor makes 1,024 (32,768 Go maps).
//
// A Go map never gives back the slots it grew. Every account actor is named
// in the registry while it runs, so after some 100k activations (players at
// once or not) each of protoactor's 32,768 maps held the group of 8 slots
// its first name allocated, for good, and their headers cost ~3 MiB even
// when empty: ~11 MiB in all after 100k players left (bench/memory's heap
// profile). 512 maps of ~200 names each at that peak keep ~4 MiB of slots,
// and almost nothing when empty. A name is looked up in the registry only
// the first time a PID is used (protoactor caches the process in the PID),
// and added and removed as its actor starts and stops, so 512 locks are
// plenty.
const registryBuckets = 16

// rebucketRegistry gives the process registry of as, fresh from
// actor.NewActorSystem and before anything else uses it, registryBuckets
// maps, with the processes the system registered for itself (event stream,
// dead letters) moved over. actor.SliceMap and its LocalPIDs are exported
// for this.
func rebucketRegistry(as *actor.ActorSystem) {
	old := as.ProcessRegistry.LocalPIDs
	fresh := &actor.SliceMap{LocalPIDs: make([]cmap.ConcurrentMap, registryBuckets)}
	for i := range fresh.LocalPIDs {
		fresh.LocalPIDs[i] = cmap.New()
	}
	for _, bucket := range old.LocalPIDs {
		for name, proc := range bucket.Items() {
			fresh.GetBucket(name).Set(name, proc)
		}
	}
	as.ProcessRegistry.LocalPIDs = fresh
}
