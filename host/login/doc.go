// Package login provides the SRP login of the game client (pre_auth, srpAuth),
// sub-account switching (switch_auth) and the session cookies that every
// other area authenticates with.
//
// pre_auth and srpAuth are linked only by the login: the handshake state
// (b, B, A) waits in memory, keyed by login and client address, for a
// configured time. A login may have several handshakes pending, one per
// address; srpAuth checks its proof against the one its own address
// started and consumes it, so a third party can neither finish, cancel nor
// push out a player's login, and a proof whose handshake is gone is no
// wrong password (see pendingSet). A login without an account gets a fake,
// stable handshake, so that pre_auth does not tell which accounts exist.
// Sessions are stored (through the account's actor) and survive a restart
// until they expire.
package login
