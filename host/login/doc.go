// Package login provides the SRP login of the game client (pre_auth, srpAuth),
// sub-account switching (switch_auth) and the session cookies that every
// other area authenticates with.
//
// pre_auth and srpAuth are linked only by the login: the handshake state
// (b, B, A) waits in memory, keyed by login, for a configured time; a newer
// pre_auth replaces it and srpAuth consumes it, so each pre_auth allows one
// proof attempt. Sessions are stored (through the account's actor) and
// survive a restart until they expire.
package login
