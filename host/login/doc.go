// Package login provides the SRP login of the game client (pre_auth, srpAuth),
// sub-account switching (switch_auth) and the session cookies that every
// other area authenticates with.
//
// pre_auth and srpAuth are linked only by the login: the handshake state
// (b, B, A) waits in memory, keyed by login and client address, for a
// configured time. A login may have several handshakes pending (one per
// address, a bounded number in all); srpAuth tries its proof against each,
// consumes the one it matches, and on a mismatch consumes only the
// handshake of its own address, so a third party cannot cancel a player's
// login (see pendingSet). A login without an account gets a fake, stable
// handshake, so that pre_auth does not tell which accounts exist. Sessions are stored (through the account's actor) and
// survive a restart until they expire.
package login
