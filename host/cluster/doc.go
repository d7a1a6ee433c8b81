// Package cluster runs a node of a cluster: several honmaster processes that
// serve one community over one PostgreSQL database, any of them accepting
// any request (docs/cluster.md is the operator's guide).
//
// Accounts are grains of a protoactor-go cluster (kind "account", identity
// the account id, placed by protoactor's disthash identity lookup: the
// rendezvous hash of the identity over the current members). A player
// request that names an account (by its session cookie, or by its login for
// pre_auth and srpAuth) is forwarded, as a protobuf Forward message, to
// that account's grain; the grain's node serves it with its own handlers
// and local account actor (package actors) and answers the reply bytes. A
// request that names no account (registration, patch information, the
// front page) is served where it arrived. So a login's pre_auth and srpAuth
// meet on one node (the pending handshake follows the account), and one
// account's requests are served by one actor however the load balancer
// spreads them.
//
// Correctness never rests on membership: when a grain starts on a node it
// makes the local actor take a new owner epoch (actors.Placement), and the
// database refuses every write of an older activation. Membership only
// makes takeover quick. The static provider (static.go) probes a fixed list
// of peers; a peer that misses probe_failures probes in a row, and was not
// heard from for Config.FailureDetection, leaves the topology, its grains
// start on the others at their next request, and it is blocked (protoactor
// never lets a member id back in). So a node never goes on serving under an
// id the others dropped: it stops serving once it did not run for
// Config.SelfFence, strictly shorter than FailureDetection (fence.go), and
// serves again only when its peers still list it; a node that a peer which
// answers no longer lists leaves and exits, so that its supervisor
// restarts it under a new member id; and /healthz fails while a node sees
// fewer members than a peer does. A graceful stop tells the peers first
// (Leave), so that they drop it before it stops answering (Node.Stop). The
// etcd provider (etcd.go, protoactor's own) keeps each member as a key
// under a lease in etcd instead: a member whose key goes leaves, and a node
// that sees itself removed, or that did not run for longer than its lease,
// exits likewise.
//
// A forwarded request's deadline travels with it, its home never starts it
// later or after the forwarding node gave up on it (Cancel), and it never
// runs twice (see Node.Forward): a request answered "outcome unknown" is
// applied before its deadline or never.
package cluster
