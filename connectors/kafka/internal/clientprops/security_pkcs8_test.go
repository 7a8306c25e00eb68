package clientprops

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// encryptKey encrypts the PEM key with `openssl pkcs8 -topk8` and the
// given scheme arguments, as users make encrypted keys.
func encryptKey(t *testing.T, keyPEM []byte, pass string, scheme ...string) []byte {
	t.Helper()
	openssl := requireOpenSSL(t, "to make encrypted keys")
	dir := t.TempDir()
	in := kafkatest.WriteFile(t, dir, "key.pem", keyPEM)
	out := filepath.Join(dir, "enc.pem")
	args := append([]string{"pkcs8", "-topk8", "-in", in, "-out", out, "-passout", "pass:" + pass}, scheme...)
	if b, err := exec.Command(openssl, args...).CombinedOutput(); err != nil {
		t.Fatalf("openssl %v: %v\n%s", args, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "ENCRYPTED PRIVATE KEY") {
		t.Fatalf("openssl wrote no encrypted key:\n%s", b)
	}
	return b
}

func TestEncryptedPEMKey(t *testing.T) {
	ca := kafkatest.NewCA(t, "pkcs8 CA")
	kp := ca.Issue(t, "client")
	chain, key := kp.CertPEM(), kp.KeyPEM(t)
	for name, scheme := range map[string][]string{
		"aes-256-cbc hmacWithSHA256": {"-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA256"},
		"aes-128-cbc hmacWithSHA1":   {"-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1"},
		"aes-192-cbc hmacWithSHA512": {"-v2", "aes-192-cbc", "-v2prf", "hmacWithSHA512"},
	} {
		t.Run(name, func(t *testing.T) {
			enc := encryptKey(t, key, secretKeyPass, scheme...)
			c, err := tlsConfig(map[string]string{"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": string(chain),
				"ssl.keystore.key": string(enc), "ssl.key.password": secretKeyPass}, map[string]bool{})
			if err != nil {
				t.Fatalf("tlsConfig: %v", err)
			}
			if c.cert == nil || !c.cert.Leaf.Equal(kp.Cert) {
				t.Fatal("certificate not loaded")
			}
			// The same key in a PEM key store file.
			file := kafkatest.WriteFile(t, t.TempDir(), "ks.pem", append(append([]byte{}, enc...), chain...))
			if _, err := tlsConfig(map[string]string{"ssl.keystore.type": "PEM", "ssl.keystore.location": file,
				"ssl.key.password": secretKeyPass}, map[string]bool{}); err != nil {
				t.Fatalf("tlsConfig with a PEM file: %v", err)
			}
		})
	}

	enc := encryptKey(t, key, secretKeyPass, "-v2", "aes-256-cbc")
	legacy := encryptKey(t, key, secretKeyPass, "-v1", "PBE-SHA1-3DES")
	for _, tc := range []struct {
		name, key, pass string
		hasPass         bool
		want            string
	}{
		{"wrong password", string(enc), "wrong-" + secretKeyPass, true, "wrong password"},
		{"no password", string(enc), "", false, "is required: the PEM private key is encrypted"},
		{"PBES1", string(legacy), secretKeyPass, true, "only PBES2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			props := map[string]string{"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": string(chain), "ssl.keystore.key": tc.key}
			if tc.hasPass {
				props["ssl.key.password"] = tc.pass
			}
			_, err := tlsConfig(props, map[string]bool{})
			var se *SecurityError
			if !errors.As(err, &se) || se.Key != "ssl.key.password" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a SecurityError for ssl.key.password saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secretKeyPass) || strings.Contains(err.Error(), "PRIVATE KEY") {
				t.Errorf("error shows a secret: %v", err)
			}
		})
	}
}

// requireOpenSSL returns the path of openssl, which some tests run to make
// keys the way users do. .ci/run installs it: under CI=true a missing one
// fails the test; elsewhere the test skips, saying why.
func requireOpenSSL(t *testing.T, why string) string {
	t.Helper()
	path, err := exec.LookPath("openssl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("openssl is needed " + why)
		}
		t.Skip("openssl is needed " + why)
	}
	return path
}
