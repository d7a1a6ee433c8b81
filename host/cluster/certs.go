package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CertNode is one node of MakeCerts: its name and the addresses (IP
// addresses or host names) the other nodes dial it at.
type CertNode struct {
	Name  string
	Hosts []string
}

// The files MakeCerts writes into its directory, beside NAME.pem and
// NAME-key.pem for each node.
const (
	CAFile    = "ca.pem"
	CAKeyFile = "ca-key.pem"
)

// certLifetime is how long the CA and the node certificates are valid: a
// small community's cluster should not stop on a forgotten renewal.
const certLifetime = 10 * 365 * 24 * time.Hour

// ParseCertNodes reads the --nodes list of "honmaster cluster certs":
// NAME[=HOST[+HOST...]],... A node's certificate names NAME and each HOST
// (an IP address or a host name: what the other nodes dial, that is its
// cluster.advertise, else cluster.listen).
func ParseCertNodes(s string) ([]CertNode, error) {
	var out []CertNode
	seen := map[string]bool{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, hosts, withHosts := strings.Cut(item, "=")
		if !validCertName(name) {
			return nil, fmt.Errorf("node name %q: use letters, digits, '-' and '.' (like hon1 or hon1.internal)", name)
		}
		if name == strings.TrimSuffix(CAFile, ".pem") || strings.HasSuffix(name, "-key") {
			return nil, fmt.Errorf("node name %q is taken by the CA's or a key's file name", name)
		}
		if seen[strings.ToLower(name)] {
			return nil, fmt.Errorf("node %q is listed twice", name)
		}
		seen[strings.ToLower(name)] = true
		n := CertNode{Name: name}
		if withHosts {
			for h := range strings.SplitSeq(hosts, "+") {
				h = strings.Trim(h, "[]")
				if net.ParseIP(h) == nil && !validCertName(h) {
					return nil, fmt.Errorf("node %s: %q is neither an IP address nor a host name", name, h)
				}
				n.Hosts = append(n.Hosts, h)
			}
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("no node named: give NAME=ADDRESS for each node, separated by commas")
	}
	return out, nil
}

func validCertName(s string) bool {
	if s == "" || len(s) > 253 || s[0] == '.' || s[0] == '-' || strings.HasSuffix(s, ".") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// MakeCerts writes a private CA (CAFile, CAKeyFile) into dir, or uses the
// one already there, and for each node its certificate NAME.pem and key
// NAME-key.pem, signed by that CA, valid as a server and as a client (the
// cluster port's mutual TLS), naming the node and its hosts. Keys are
// ECDSA P-256, written with mode 0600; no existing file is overwritten.
// It returns the files it wrote.
func MakeCerts(dir string, nodes []CertNode) ([]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for _, n := range nodes {
		for _, f := range []string{n.Name + ".pem", n.Name + "-key.pem"} {
			if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
				return nil, fmt.Errorf("%s exists already: node %s has its certificate (remove its files to make new ones)", filepath.Join(dir, f), n.Name)
			}
		}
	}
	now := time.Now()
	ca, caKey, written, err := loadOrMakeCA(dir, now)
	if err != nil {
		return written, err
	}
	for _, n := range nodes {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return written, err
		}
		tmpl := &x509.Certificate{
			SerialNumber: serial(),
			Subject:      pkix.Name{CommonName: n.Name, Organization: []string{"honmaster cluster"}},
			// Never past the CA's own end: a node added late in the
			// CA's life is told the truth about its certificate.
			NotBefore: now.Add(-time.Hour), NotAfter: earliest(now.Add(certLifetime), ca.NotAfter),
			KeyUsage:    x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
			DNSNames:    []string{n.Name},
		}
		for _, h := range n.Hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else if !strings.EqualFold(h, n.Name) {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return written, err
		}
		if written, err = writeCertAndKey(dir, n.Name, der, key, written); err != nil {
			return written, err
		}
	}
	return written, nil
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// loadOrMakeCA reads the CA in dir, or makes one when neither of its files
// exists.
func loadOrMakeCA(dir string, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, []string, error) {
	certPEM, errC := os.ReadFile(filepath.Join(dir, CAFile))
	keyPEM, errK := os.ReadFile(filepath.Join(dir, CAKeyFile))
	switch {
	case errors.Is(errC, fs.ErrNotExist) && errors.Is(errK, fs.ErrNotExist):
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, nil, err
		}
		tmpl := &x509.Certificate{
			SerialNumber: serial(),
			Subject:      pkix.Name{CommonName: "honmaster cluster CA", Organization: []string{"honmaster cluster"}},
			NotBefore:    now.Add(-time.Hour), NotAfter: now.Add(certLifetime),
			KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
			BasicConstraintsValid: true, IsCA: true, MaxPathLenZero: true,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			return nil, nil, nil, err
		}
		ca, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, nil, nil, err
		}
		written, err := writeCertAndKey(dir, "ca", der, key, nil)
		return ca, key, written, err
	case errC != nil:
		return nil, nil, nil, fmt.Errorf("the CA: %w", errC)
	case errK != nil:
		return nil, nil, nil, fmt.Errorf("the CA's key: %w", errK)
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, nil, fmt.Errorf("%s or %s in %s is not PEM", CAFile, CAKeyFile, dir)
	}
	ca, err := x509.ParseCertificate(cb.Bytes)
	if err != nil || !ca.IsCA {
		return nil, nil, nil, fmt.Errorf("%s in %s is not a CA certificate (move it and %s away to make a new CA, then new certificates for every node)",
			CAFile, dir, CAKeyFile)
	}
	// A node certificate signed now must verify: not with a CA that has
	// expired, or that expires within a day.
	if !now.Add(24 * time.Hour).Before(ca.NotAfter) {
		return nil, nil, nil, fmt.Errorf("the CA in %s expired or expires within a day (%s): move %s and %s away to make a new CA, "+
			"then new certificates for every node", dir, ca.NotAfter.UTC().Format(time.DateOnly), CAFile, CAKeyFile)
	}
	k, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	key, ok := k.(*ecdsa.PrivateKey)
	if err != nil || !ok || !key.PublicKey.Equal(ca.PublicKey) {
		return nil, nil, nil, fmt.Errorf("%s in %s is not the key of %s", CAKeyFile, dir, CAFile)
	}
	return ca, key, nil, nil
}

// writeCertAndKey writes NAME.pem and NAME-key.pem (0600), never over an
// existing file, and appends them to written.
func writeCertAndKey(dir, name string, der []byte, key *ecdsa.PrivateKey, written []string) ([]string, error) {
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return written, err
	}
	for _, f := range []struct {
		file  string
		block *pem.Block
		mode  os.FileMode
	}{
		{name + "-key.pem", &pem.Block{Type: "PRIVATE KEY", Bytes: kder}, 0o600},
		{name + ".pem", &pem.Block{Type: "CERTIFICATE", Bytes: der}, 0o644},
	} {
		path := filepath.Join(dir, f.file)
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.mode)
		if err != nil {
			return written, err
		}
		err = pem.Encode(fh, f.block)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}
