package srp

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"

	"filippo.io/bigmod"
)

// ServerState is a pending handshake's state, carried to the node that will
// check its proof: a cluster node that stops hands its pending handshakes
// to their accounts' new homes. It holds secrets (the verifier and b):
// never log it, and send it only over an authenticated, encrypted channel.
type ServerState struct {
	Login  string // the account's login as stored (hashed into M1)
	Salt   []byte
	V      []byte // PAD(v)
	A, B   []byte // PAD(A) as the client sent it, PAD(B)
	Secret []byte // b
}

// errBadState is ResumeServer's error for a state of the wrong shape.
var errBadState = errors.New("srp: malformed handshake state")

// Export returns the handshake's state and makes this Server unusable (its
// b wiped, later Verify calls answer ErrHandshakeUsed), so that the
// exported state is the handshake's only live copy: still one proof per
// handshake. A used Server gives ErrHandshakeUsed.
func (s *Server) Export() (ServerState, error) {
	if s.used {
		return ServerState{}, ErrHandshakeUsed
	}
	s.used = true
	st := ServerState{Login: s.login, Salt: bytes.Clone(s.salt), V: s.v.Bytes(s.grp.mod),
		A: bytes.Clone(s.padA[:]), B: bytes.Clone(s.padB[:]), Secret: bytes.Clone(s.b[:])}
	clear(s.b[:])
	return st, nil
}

// ResumeServer rebuilds an exported handshake (Export) of this group, ready
// for its one Verify. It checks A and v as NewServer does.
func (g *Group) ResumeServer(st ServerState) (*Server, error) {
	if len(st.Salt) == 0 || len(st.A) != padLen || len(st.B) != padLen || len(st.Secret) != secretBytes {
		return nil, errBadState
	}
	s := &Server{grp: g, login: st.Login, salt: bytes.Clone(st.Salt)}
	v, err := bigmod.NewNat().SetBytes(st.V, g.mod)
	if err != nil || v.IsZero() == 1 {
		return nil, fmt.Errorf("%w: v not in [1, N)", ErrBadVerifier)
	}
	s.v = v
	copy(s.padA[:], st.A)
	copy(s.padB[:], st.B)
	copy(s.b[:], st.Secret)
	if err := g.checkPublic(new(big.Int).SetBytes(s.padA[:])); err != nil {
		return nil, err
	}
	if s.a, err = bigmod.NewNat().SetOverflowingBytes(s.padA[:], g.mod); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPublicValue, err)
	}
	return s, nil
}
