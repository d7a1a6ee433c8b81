// Package actors provides the single writer of every account: one actor per
// account, spawned on demand and passivated when idle, that applies changes
// one at a time and commits each as one synced storage batch before replying.
//
// Requests reach an account through a fixed set of shards: routing tables
// under a lock (not actors: a request goes straight from its asker to the
// account's mailbox, and the reply comes back on a channel the request
// carries). A shard owns the account actors hashed to it, spawns one on its
// first request, and passivates an idle account by poisoning it and holding
// that account's requests until it has stopped. Every post to an account
// actor and the poison are made under the shard's lock, so no request is
// ever queued behind the poison and lost to the race between "idle,
// stopping" and "new request". Account actors are spawned from the root
// rather than made children of another actor: protoactor's PIDSet.Remove
// keeps the last removed child reachable from its parent, which would keep
// passivated accounts in memory.
//
// Areas describe their mutations as Change values (see Change); the account
// actor gives them a Tx scoped to that account and commits what they wrote:
// the account records whose encoding changed, the upgrades gained, and the
// records of the area's own per-account keyspaces (storage.AccountKeyspace,
// written with ks.Put(tx, key, value)). The actor keeps the decoded account
// and publishes it after each commit: System.Snapshot reads it without a
// message, System.Read runs a function inside the actor.
//
// The registry actor is the single writer of everything not owned by one
// account: account creation (the login index, the sub-account index and the
// id sequence, which refuses to wrap) and every global keyspace
// (storage.GlobalKeyspace, written in System.UpdateGlobal with
// ks.Put(g, key, value)); System.GlobalVersion tells caches when a global
// keyspace changed.
//
// Sessions are read through System.Session: a bounded cache in front of
// storage that each account's actor updates when it writes or deletes one of
// its sessions.
package actors
