package kafkatest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// CA is a test certificate authority made with Go's crypto packages.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	// PEM is the CA certificate, PEM-encoded.
	PEM []byte
}

// KeyPair is a certificate issued by a CA, with its key.
type KeyPair struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	CA   *CA
}

// NewCA makes a self-signed CA named cn, valid for a day.
func NewCA(t testing.TB, cn string) *CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("generating CA key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          nextSerial(),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"streamsql tests"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatalf("creating CA certificate: %v", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("parsing CA certificate: %v", err)
	}
	return &CA{Cert: cert, Key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// nextSerial returns a random 128-bit serial number.
func nextSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}

// Issue makes a certificate for cn signed by ca, for the given host names
// and IP addresses (server certificates) or none (client certificates).
// It is valid for both server and client authentication.
func (ca *CA) Issue(t testing.TB, cn string, hosts ...string) *KeyPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("generating key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: nextSerial(),
		Subject:      pkix.Name{CommonName: cn, Organization: []string{"streamsql tests"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		t.Fatalf("creating certificate %s: %v", cn, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("parsing certificate %s: %v", cn, err)
	}
	return &KeyPair{Cert: cert, Key: key, CA: ca}
}

// CertPEM returns the certificate chain (leaf, then the CA), PEM-encoded.
func (kp *KeyPair) CertPEM() []byte {
	out := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: kp.Cert.Raw})
	return append(out, kp.CA.PEM...)
}

// KeyPEM returns the private key, PEM-encoded as unencrypted PKCS#8.
func (kp *KeyPair) KeyPEM(t testing.TB) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(kp.Key)
	if err != nil {
		t.Fatalf("marshalling key: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// PKCS12 returns the key and chain as a PKCS12 key store protected by
// password, in the modern encryption Java 17 reads.
func (kp *KeyPair) PKCS12(t testing.TB, password string) []byte {
	t.Helper()
	data, err := pkcs12.Modern.Encode(kp.Key, kp.Cert, []*x509.Certificate{kp.CA.Cert}, password)
	if err != nil {
		t.Fatalf("encoding PKCS12: %v", err)
	}
	return data
}

// WriteFile writes data to dir/name (mode 0600) and returns the path.
func WriteFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatalf("writing %s: %v", p, err)
	}
	return p
}

// KeytoolTrustStore imports the CA certificate into a new JKS trust store
// at path with the JDK's keytool, as Flink users make theirs, and returns
// path. Without keytool the test fails under CI=true and is skipped
// otherwise.
func (ca *CA) KeytoolTrustStore(t testing.TB, path, password string) string {
	t.Helper()
	return ca.KeytoolTrustStoreOfType(t, path, password, "JKS")
}

// KeytoolTrustStoreOfType is KeytoolTrustStore with the store type (JKS or
// PKCS12).
func (ca *CA) KeytoolTrustStoreOfType(t testing.TB, path, password, storeType string) string {
	t.Helper()
	keytool, err := exec.LookPath("keytool")
	if err != nil {
		needTool(t, "keytool (the JDK) is needed to make a JKS trust store")
	}
	certFile := WriteFile(t, filepath.Dir(path), filepath.Base(path)+".ca.pem", ca.PEM)
	cmd := exec.Command(keytool, "-importcert", "-noprompt", "-storetype", storeType,
		"-keystore", path, "-storepass", password, "-alias", "ca", "-file", certFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("keytool -importcert: %v\n%s", err, out)
	}
	return path
}

// needTool fails the test under CI=true and skips it otherwise.
func needTool(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
