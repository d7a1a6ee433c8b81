// Package actors provides the single writer of every account: one actor per
// account, spawned on demand and passivated when idle, that applies changes
// one at a time and commits each as one synced storage batch before replying.
//
// Requests reach an account through a fixed set of shard actors. A shard owns
// the account actors hashed to it, forwards requests to them (the reply goes
// straight back to the asker), and passivates an idle account by poisoning it
// and buffering that account's requests until it has stopped. No request is
// therefore lost to the race between "idle, stopping" and "new request".
//
// Account creation goes through the registry actor, the single writer of the
// login index, the sub-account index and the account id sequence.
//
// Areas describe their mutations as Change values (see Change); the account
// actor gives them a Tx scoped to that account and commits what they wrote.
package actors
