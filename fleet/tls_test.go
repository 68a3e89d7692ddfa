package fleet

import (
	"context"
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
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
)

// selfSigned makes a certificate for 127.0.0.1 that is its own CA, and writes the CA's
// PEM to a file.
func selfSigned(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "spine test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, ca
}

// TestTLSAndNKeys: a TLS server is reached with its CA and refused without it; an NKey
// user signs in with its seed file, and no one signs in without one.
func TestTLSAndNKeys(t *testing.T) {
	cert, ca := selfSigned(t)
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	seedFile := filepath.Join(t.TempDir(), "user.nk")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := StartServer(ServerConfig{Dir: t.TempDir(), Port: -1, NKeys: []string{pub},
		TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	ctx := context.Background()
	c, err := Connect(ctx, ConnectOptions{URL: srv.URL(), CAFile: ca, NKeyFile: seedFile})
	if err != nil {
		t.Fatalf("with the CA and the seed: %v", err)
	}
	c.Close()
	if _, err := Connect(ctx, ConnectOptions{URL: srv.URL(), NKeyFile: seedFile}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: %v", err)
	}
	if _, err := Connect(ctx, ConnectOptions{URL: srv.URL(), CAFile: ca}); err == nil {
		t.Error("without the seed: connected")
	}
	if _, err := StartServer(ServerConfig{Dir: t.TempDir(), Port: -1, NKeys: []string{"not-a-key"}}); err == nil ||
		err.Error() != `fleet: "not-a-key" is not an NKey user's public key (U…)` {
		t.Errorf("a bad NKey: %v", err)
	}
}
