package srp

import "errors"

// Errors returned by this package. Callers match them with errors.Is, never by
// text.
var (
	// ErrBadPublicValue reports an A or B that is empty, not hex, too long
	// for the group, or ≡ 0 mod N.
	ErrBadPublicValue = errors.New("srp: bad public value")
	// ErrBadProof reports a proof (M1 on the server, M2 on the client) that is
	// malformed or does not match.
	ErrBadProof = errors.New("srp: bad proof")
	// ErrZeroScrambler reports u = H(PAD(A) ‖ PAD(B)) == 0.
	ErrZeroScrambler = errors.New("srp: zero scrambling parameter")
	// ErrBadSalt reports a salt that is empty or not hex.
	ErrBadSalt = errors.New("srp: bad salt")
	// ErrBadVerifier reports a stored verifier that is empty, ≡ 0 mod N or
	// not below N, or a stored salt that is empty.
	ErrBadVerifier = errors.New("srp: bad verifier")
	// ErrBadGroup reports group constants that NewGroup refuses.
	ErrBadGroup = errors.New("srp: bad group")
	// ErrHandshakeUsed reports a second Verify on the same Server, or a
	// VerifyServer before Proof: one proof attempt per pre_auth.
	ErrHandshakeUsed = errors.New("srp: handshake already used or not started")
	// ErrRandomSource reports a random source that failed or kept giving
	// values that must be redrawn.
	ErrRandomSource = errors.New("srp: random source unusable")
)
