package srp_test

import (
	"crypto/rand"
	"fmt"

	"github.com/honmaster/masterserver/host/srp"
)

func Example() {
	grp := srp.DefaultGroup()

	// Account creation: store login, salt, salt2 and the verifier.
	salt, salt2, verifier, err := grp.NewVerifier("SouL", "test", rand.Reader)
	if err != nil {
		panic(err)
	}

	// pre_auth: the client sends login and A; the server keeps srv until
	// srpAuth and answers salt, salt2 and B.
	client, err := grp.NewClient("SouL", "test", rand.Reader)
	if err != nil {
		panic(err)
	}
	srv, err := grp.NewServer("SouL", salt, verifier, client.AHex(), rand.Reader)
	if err != nil {
		panic(err)
	}
	saltHex, bHex := srv.SaltHex(), srv.BHex()

	// srpAuth: the client sends M1; the server answers M2 in `proof`.
	m1, err := client.Proof(saltHex, salt2, bHex)
	if err != nil {
		panic(err)
	}
	m2, err := srv.Verify(m1)
	if err != nil {
		fmt.Println("login refused:", err)
		return
	}
	fmt.Println("server accepted M1; M2 length:", len(m2))
	fmt.Println("client accepts M2:", client.VerifyServer(m2) == nil)
	// Output:
	// server accepted M1; M2 length: 64
	// client accepts M2: true
}
