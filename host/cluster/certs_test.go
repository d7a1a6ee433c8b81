package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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

// handshake runs a TLS handshake between server and client over loopback
// (kernel buffers: neither side waits for the other to read), each side
// bounded by a deadline.
func handshake(server, client *tls.Config) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	errs := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			errs <- err
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		errs <- tls.Server(c, server).Handshake()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return err
	}
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	client = client.Clone()
	client.ServerName = "127.0.0.1" // gRPC sets it from the address it dials
	cerr := tls.Client(c, client).Handshake()
	c.Close()
	serr := <-errs
	if cerr != nil {
		return cerr
	}
	return serr
}

// TestTLSWithTwoCAs: a tls_ca holding two CAs (the middle of a key
// rotation, SECURITY.md) admits the nodes of both; a node that trusts one
// CA refuses the other's.
func TestTLSWithTwoCAs(t *testing.T) {
	old, fresh := t.TempDir(), t.TempDir()
	for _, dir := range []string{old, fresh} {
		if _, err := MakeCerts(dir, []CertNode{{Name: "n", Hosts: []string{"127.0.0.1"}}}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := os.ReadFile(filepath.Join(old, CAFile))
	b, _ := os.ReadFile(filepath.Join(fresh, CAFile))
	both := filepath.Join(t.TempDir(), "both.pem")
	if err := os.WriteFile(both, append(a, b...), 0o644); err != nil {
		t.Fatal(err)
	}
	node := func(dir, ca string) Config {
		return Config{TLSCert: filepath.Join(dir, "n.pem"), TLSKey: filepath.Join(dir, "n-key.pem"), TLSCA: ca}
	}
	load := func(c Config) (*tls.Config, *tls.Config) {
		t.Helper()
		s, cl, err := loadTLS(c, "127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		return s, cl
	}
	oldServer, _ := load(node(old, both))
	_, freshClient := load(node(fresh, both))
	if err := handshake(oldServer, freshClient); err != nil {
		t.Errorf("old certificate and new, both trusting both CAs: %v", err)
	}
	oldOnly, _ := load(node(old, filepath.Join(old, CAFile)))
	if err := handshake(oldOnly, freshClient); err == nil {
		t.Error("a node trusting the old CA alone admitted the new CA's certificate")
	}
}

// writeCA writes a CA certificate valid from notBefore to notAfter and its
// key into dir, as ca.pem and ca-key.pem.
func writeCA(t *testing.T, dir string, notBefore, notAfter time.Time) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "honmaster cluster CA"},
		NotBefore: notBefore, NotAfter: notAfter, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalPKCS8PrivateKey(key)
	if err := os.WriteFile(filepath.Join(dir, CAFile), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, CAKeyFile), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	return ca
}

// TestMakeCertsWithACAAtTheEndOfItsLife: with an expired CA in --out,
// MakeCerts wrote node certificates no node accepts (their chain does not
// verify); with one that ends in a year, it told a node certificate "10
// years" that the CA's end cuts to one. The first is refused now, saying
// what to do; the second is valid until the CA's end. (From a review of
// cluster certs; the first succeeded before, the second ran to 10 years.)
func TestMakeCertsWithACAAtTheEndOfItsLife(t *testing.T) {
	now := time.Now()
	dir := t.TempDir()
	writeCA(t, dir, now.Add(-48*time.Hour), now.Add(-time.Hour))
	if _, err := MakeCerts(dir, []CertNode{{Name: "hon1", Hosts: []string{"10.0.0.1"}}}); err == nil ||
		!strings.Contains(err.Error(), "expired") || strings.Contains(err.Error(), "x509") {
		t.Errorf("an expired CA: %v, want a refusal saying so", err)
	}

	dir = t.TempDir()
	ca := writeCA(t, dir, now.Add(-time.Hour), now.Add(365*24*time.Hour))
	if _, err := MakeCerts(dir, []CertNode{{Name: "hon1", Hosts: []string{"10.0.0.1"}}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "hon1.pem"))
	blk, _ := pem.Decode(b)
	node, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if node.NotAfter.After(ca.NotAfter) {
		t.Errorf("node certificate valid until %s, past its CA's %s", node.NotAfter, ca.NotAfter)
	}
}

// TestMakeCertsWithAMalformedCA: a ca.pem that is PEM but no certificate
// got a message naming Go's x509 package ("x509: malformed
// certificate"). (From a review; failed before.)
func TestMakeCertsWithAMalformedCA(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, CAFile), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("junk")}), 0o600)
	os.WriteFile(filepath.Join(dir, CAKeyFile), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("junk")}), 0o600)
	_, err := MakeCerts(dir, []CertNode{{Name: "hon1", Hosts: []string{"10.0.0.1"}}})
	if err == nil || strings.Contains(err.Error(), "x509") || strings.Contains(err.Error(), "asn1") || !strings.Contains(err.Error(), CAFile) {
		t.Errorf("a malformed CA: %v, want a sentence naming %s and no Go package", err, CAFile)
	}
}
