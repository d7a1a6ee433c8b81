// Package srp provides the SRP-6a variant that the Heroes of Newerth client
// uses to log in: the fixed group, the password secret, verifier creation,
// the server side of one handshake (pre_auth, then srpAuth) and a client for
// tests and load testing.
//
// H is SHA-256, PAD(x) is x big-endian, left-padded with zeros to 256 bytes
// (the length of N), ‖ is concatenation, and hex text is lowercase:
//
//	p  = sha256hex( md5hex( md5hex(password) + salt2 + MAGIC1 ) + MAGIC2 )   (HashMD5First)
//	p  = sha256hex( md5hex( md5hex(password + salt2 + MAGIC1) + MAGIC2 ) )   (HashSpecLiteral)
//	x  = H( s ‖ H( I ‖ ":" ‖ p ) )
//	v  = g^x mod N
//	k  = H( N ‖ PAD(g) )
//	B  = (k·v + g^b) mod N                  (b redrawn while PAD(B)[0] == 0)
//	u  = H( PAD(A) ‖ PAD(B) )               (u == 0 is rejected)
//	S  = (A · v^u)^b mod N                  (server)
//	S  = (B − k·g^x)^(a + u·x) mod N        (client)
//	K  = H( PAD(S) )
//	M1 = H( (H(N) XOR H(PAD(g))) ‖ H(I) ‖ s ‖ PAD(A) ‖ PAD(B) ‖ K )
//	M2 = H( PAD(A) ‖ M1 ‖ K )
//
// I is the login exactly as stored (case-sensitive), s the 256-byte salt and
// salt2 the 22-character second salt that only enters p. Some clients build
// M1 and M2 from the minimal (unpadded) bytes of A and S instead of PAD(A)
// and PAD(S); the server accepts either form and answers M2 in the form that
// matched.
//
// A typical server login:
//
//	grp := srp.DefaultGroup()
//	// account creation: store login, salt, salt2, verifier; never the password.
//	salt, salt2, verifier, err := grp.NewVerifier(login, password, rand.Reader)
//
//	// pre_auth: keep srv until srpAuth (keyed by login), answer salt, salt2, B.
//	srv, err := grp.NewServer(login, salt, verifier, aHex, rand.Reader)
//	reply(srv.SaltHex(), salt2, srv.BHex())
//
//	// srpAuth: one proof attempt per pre_auth.
//	m2Hex, err := srv.Verify(proofHex)
//
// A Server or Client is one handshake and is not safe for concurrent use; a
// Group is immutable and safe to share.
//
// # Secret values and how each is handled
//
// An attacker who times the server (or shares its machine) must learn
// nothing that opens an account, so every computation on a secret takes a
// time and touches memory independent of that secret:
//
//   - b (the server's private value, 256 bits, per handshake): knowing b
//     and B gives k·v, hence the verifier. g^b comes from the Group's
//     fixed-base table (fixedbase.go: 64 windows of 4 bits, 16 entries each,
//     256 KiB, built on first use in ~6 ms; every window multiplies and
//     reads its whole row under a mask), and S = (A·v^u)^b is
//     filippo.io/bigmod's constant-time Exp. b lives in a fixed array,
//     wiped after Verify.
//   - v (the verifier, stored): a password guess can be checked against it
//     offline. It is loaded with bigmod (its range check is constant-time),
//     and k·v, v^u, A·v^u use only bigmod's constant-time Mul and Exp.
//   - x (the password's private key, 256 bits) at account creation
//     (Verifier): g^x is the fixed-base table's.
//   - S, K and everything derived from v or b: bigmod values, S written to
//     a fixed 256-byte array; M1 is compared with crypto/subtle. Building
//     both proof forms always (see Server.Verify) hides whether S has a
//     leading zero byte from the time of the comparison; stripping the
//     zeros for the minimal form itself is a loop over them (at most a few
//     bytes, 1 login in 128).
//   - the password and salt2 are hashed (MD5, SHA-256: constant-time in the
//     content for a given length).
//
// Public values use math/big or plain bytes: N, g, k, A and B (on the
// wire), u (a hash of A and B), the salts, M2 (sent). FakeVerifier's value
// is public in effect (it opens nothing). The Client is for tests and the
// load tester: its g^a and g^x use the table, but its S is math/big's
// variable-time Exp (the secrets are the tester's own).
//
// Cost (host/srp benchmarks on the project's 2-core machine, one core):
// g^b from the table is ~0.35 of one math/big modexp, a bigmod Exp ~0.86,
// so the server's three exponentiations of a login cost ~2.1 math/big
// modexps; BenchmarkLoginOverModExp puts the whole server-side SRP at ~0.76
// of the naive floor of three math/big modexps (it was ~1.02).
package srp
