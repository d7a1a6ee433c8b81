package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMakeCerts: a CA and a certificate per node, keys owner-only, each
// certificate naming its node and addresses and verifying against the CA
// as a server and as a client; a second run adds nodes under the same CA
// and never overwrites a file.
func TestMakeCerts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	nodes, err := ParseCertNodes("hon1=10.0.0.11+hon1.internal, hon2=[fd00::12]")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MakeCerts(dir, nodes); err != nil {
		t.Fatal(err)
	}
	if _, err := MakeCerts(dir, []CertNode{{Name: "hon3", Hosts: []string{"10.0.0.13"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := MakeCerts(dir, []CertNode{{Name: "hon1"}}); err == nil {
		t.Error("a node's existing certificate was made again")
	}
	for _, f := range []string{CAKeyFile, "hon1-key.pem", "hon2-key.pem", "hon3-key.pem"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want mode 0600", f, st.Mode(), err)
		}
	}
	pool := x509.NewCertPool()
	ca, _ := os.ReadFile(filepath.Join(dir, CAFile))
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("ca.pem holds no certificate")
	}
	for _, tt := range []struct{ node, host string }{{"hon1", "10.0.0.11"}, {"hon1", "hon1.internal"}, {"hon1", "hon1"}, {"hon2", "fd00::12"}, {"hon3", "10.0.0.13"}} {
		cert, err := tls.LoadX509KeyPair(filepath.Join(dir, tt.node+".pem"), filepath.Join(dir, tt.node+"-key.pem"))
		if err != nil {
			t.Fatal(err)
		}
		for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
			if _, err := cert.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: tt.host, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
				t.Errorf("%s as %s: %v", tt.node, tt.host, err)
			}
		}
	}
	cert, _ := tls.LoadX509KeyPair(filepath.Join(dir, "hon2.pem"), filepath.Join(dir, "hon2-key.pem"))
	if err := cert.Leaf.VerifyHostname("10.0.0.11"); err == nil {
		t.Error("hon2's certificate names hon1's address")
	}
}

func TestParseCertNodesRefusesNonsense(t *testing.T) {
	for _, s := range []string{"", ",", "a,a", "a,A", "ca", "a-key", "a=", "a=x y", "a b", "-a", "a=1.2.3.4+", "a/b"} {
		if ns, err := ParseCertNodes(s); err == nil {
			t.Errorf("%q: %v accepted", s, ns)
		}
	}
	ns, err := ParseCertNodes("a,b=127.0.0.1")
	if err != nil || len(ns) != 2 || ns[0].Name != "a" || len(ns[0].Hosts) != 0 || !slices.Equal(ns[1].Hosts, []string{"127.0.0.1"}) {
		t.Errorf("a,b=127.0.0.1: %v, %v", ns, err)
	}
}
