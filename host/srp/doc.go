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
package srp
