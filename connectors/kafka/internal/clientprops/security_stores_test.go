package clientprops

import (
	"crypto/x509"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestStoresMadeByTools reads stores made the way users make them: trust
// stores with the JDK's keytool (JKS and PKCS12) and a key store with
// `openssl pkcs12 -export`.
func TestStoresMadeByTools(t *testing.T) {
	dir := t.TempDir()
	ca := kafkatest.NewCA(t, "tools CA")
	kp := ca.Issue(t, "client")
	for _, typ := range []string{"JKS", "PKCS12"} {
		t.Run("keytool "+typ+" trust store", func(t *testing.T) {
			path := ca.KeytoolTrustStoreOfType(t, filepath.Join(dir, "trust-"+typ), secretStorePass, typ)
			c, err := tlsConfig(map[string]string{"ssl.truststore.location": path, "ssl.truststore.type": typ,
				"ssl.truststore.password": secretStorePass}, map[string]bool{})
			if err != nil {
				t.Fatalf("tlsConfig: %v", err)
			}
			if _, err := kp.Cert.Verify(x509VerifyAny(c)); err != nil {
				t.Errorf("the CA is not among the roots: %v", err)
			}
		})
	}
	t.Run("openssl PKCS12 key store", func(t *testing.T) {
		openssl := requireOpenSSL(t, "to make a PKCS12 key store")
		key := kafkatest.WriteFile(t, dir, "key.pem", kp.KeyPEM(t))
		chain := kafkatest.WriteFile(t, dir, "chain.pem", kp.CertPEM())
		p12 := filepath.Join(dir, "client.p12")
		out, err := exec.Command(openssl, "pkcs12", "-export", "-inkey", key, "-in", chain, "-out", p12,
			"-passout", "pass:"+secretStorePass, "-name", "client").CombinedOutput()
		if err != nil {
			t.Fatalf("openssl pkcs12 -export: %v\n%s", err, out)
		}
		c, err := tlsConfig(map[string]string{"ssl.keystore.location": p12, "ssl.keystore.type": "PKCS12",
			"ssl.keystore.password": secretStorePass}, map[string]bool{})
		if err != nil {
			t.Fatalf("tlsConfig: %v", err)
		}
		if c.cert == nil || !c.cert.Leaf.Equal(kp.Cert) {
			t.Fatal("certificate not loaded")
		}
	})
}

func x509VerifyAny(c *clientTLS) x509.VerifyOptions {
	return x509.VerifyOptions{Roots: c.roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}
}
