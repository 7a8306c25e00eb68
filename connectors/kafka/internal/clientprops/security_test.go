package clientprops

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"software.sslmate.com/src/go-pkcs12"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// Secrets used by the unit tests; TestSecretsNeverInErrors checks that none
// appears in any error.
const (
	secretPass      = "pa55-Secret-XYZ"
	secretStorePass = "store-Secret-QRS"
	secretKeyPass   = "key-Secret-LMN"
	secretToken     = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJib2IifQ.sig-Secret-TKN"
)

func jaas(module, opts string) string { return module + " required " + opts + ";" }

func TestParseJAAS(t *testing.T) {
	tests := []struct {
		name, in string
		module   string
		flag     string
		opts     map[string]string
	}{
		{"scram", `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";`,
			scramModule, "required", map[string]string{"username": "alice", "password": "alice-secret"}},
		{"escapes", `m.Mod required username="a\"b" password="back\\slash\nnl\tq'";`,
			"m.Mod", "required", map[string]string{"username": `a"b`, "password": "back\\slash\nnl\tq'"}},
		{"single quotes, bare values, odd spacing, no space before ;", "  m.Mod\tOPTIONAL\n user = 'x y' n=42 url=http://h:1/p;  ",
			"m.Mod", "optional", map[string]string{"user": "x y", "n": "42", "url": "http://h:1/p"}},
		{"comments", `m.Mod /* flag next */ requisite // line comment
		 a="1" /* between */ b="2";`, "m.Mod", "requisite", map[string]string{"a": "1", "b": "2"}},
		{"no options", `m.Mod sufficient;`, "m.Mod", "sufficient", map[string]string{}},
		{"empty quoted value, semicolon inside quotes", `m.Mod required a="" b=";=";`, "m.Mod", "required", map[string]string{"a": "", "b": ";="}},
		{"inner class", `a.B$C required;`, "a.B$C", "required", map[string]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			es, err := parseJAAS(tc.in)
			if err != nil {
				t.Fatalf("parseJAAS: %v", err)
			}
			if len(es) != 1 {
				t.Fatalf("got %d entries, want 1", len(es))
			}
			e := es[0]
			if e.module != tc.module || e.flag != tc.flag {
				t.Errorf("module %q flag %q, want %q %q", e.module, e.flag, tc.module, tc.flag)
			}
			if fmt.Sprint(e.options) != fmt.Sprint(tc.opts) {
				t.Errorf("options %q, want %q", e.options, tc.opts)
			}
		})
	}
	t.Run("two entries", func(t *testing.T) {
		es, err := parseJAAS(`a.A required x="1"; b.B optional;`)
		if err != nil || len(es) != 2 || es[1].module != "b.B" || es[0].order[0] != "x" {
			t.Fatalf("got %+v, %v", es, err)
		}
	})
}

func TestParseJAASErrors(t *testing.T) {
	tests := []struct {
		name, in string
		column   int
		reason   string
	}{
		{"empty", "", 1, "no login module"},
		{"no flag", `m.Mod username="u";`, 7, "control flag"},
		{"bad flag", `m.Mod mandatory username="u";`, 7, "control flag"},
		{"no semicolon", `m.Mod required username="u" password="` + secretPass + `"`, 55, "expected ';'"},
		{"unterminated quote", `m.Mod required username="u" password="` + secretPass, 38, "not closed"},
		{"missing =", `m.Mod required username "u";`, 25, "expected '='"},
		{"missing value", `m.Mod required password=;`, 25, "expected a value"},
		{"duplicate", `m.Mod required a="1" a="2";`, 22, "given twice"},
		{"stray character", `m.Mod required a="1" # b="2";`, 22, "unexpected character"},
		{"unterminated comment", `m.Mod required /* x`, 16, "unterminated"},
		{"newline in quotes", "m.Mod required password=\"" + secretPass + "\nrest\";", 25, "end of the line"},
		{"quote as module", `"m.Mod" required;`, 1, "login module class"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseJAAS(tc.in)
			var je *JAASError
			if !errors.As(err, &je) {
				t.Fatalf("got %v, want a *JAASError", err)
			}
			if je.Column != tc.column || !strings.Contains(je.Reason, tc.reason) {
				t.Errorf("column %d reason %q, want column %d and %q\n%v", je.Column, je.Reason, tc.column, tc.reason, err)
			}
			if strings.Contains(err.Error(), secretPass) || strings.Contains(err.Error(), "pa55") {
				t.Errorf("error shows the password: %v", err)
			}
			if !strings.Contains(je.Excerpt, "^") {
				t.Errorf("excerpt has no caret: %q", je.Excerpt)
			}
		})
	}
}

func TestJAASExcerptMasksValues(t *testing.T) {
	in := `m.Mod required username=bob password=bare-` + secretPass + ` x "oops";`
	_, err := parseJAAS(in)
	if err == nil {
		t.Fatal("want an error")
	}
	msg := err.Error()
	if strings.Contains(msg, secretPass) || strings.Contains(msg, "bob") {
		t.Errorf("excerpt shows option values: %v", msg)
	}
	// The caret points at the '"' of "oops" (masked), after the masked x.
	lines := strings.Split(msg, "\n")
	excerpt, caret := lines[len(lines)-2], lines[len(lines)-1]
	at := strings.Index(caret, "^")
	if at < 0 || at >= len(excerpt) || excerpt[at] != '"' || excerpt[at-4:at] != "*** " {
		t.Errorf("caret not under the quoted value:\n%s\n%s", excerpt, caret)
	}
}

func TestJAASExcerptMasksMisplacedSecrets(t *testing.T) {
	for _, in := range []string{
		`m.Mod required username="bob" ` + secretPass + `;`,
		`m.Mod required username="bob" password: ` + secretPass + `;`,
		`m.Mod required username="bob" password ` + secretPass + ` x="y";`,
	} {
		_, err := parseJAAS(in)
		if err == nil {
			t.Fatalf("%q: want an error", in)
		}
		if strings.Contains(err.Error(), secretPass) || strings.Contains(err.Error(), "pa55") {
			t.Errorf("error shows the password: %v", err)
		}
		if !strings.Contains(err.Error(), "m.Mod required username=") {
			t.Errorf("excerpt lost the structure: %v", err)
		}
	}
}

func FuzzParseJAAS(f *testing.F) {
	f.Add(`org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="a\"b";`)
	f.Add(`m required /* c */ a='x' // y` + "\n;")
	f.Add(`m required a="`)
	f.Fuzz(func(t *testing.T, s string) {
		es, err := parseJAAS(s)
		if err != nil {
			var je *JAASError
			if !errors.As(err, &je) || je.Column < 1 || je.Column > len([]rune(s))+1 {
				t.Fatalf("bad error %#v for %q", err, s)
			}
			return
		}
		if len(es) == 0 {
			t.Fatalf("no entries and no error for %q", s)
		}
	})
}

func TestSecurityProtocols(t *testing.T) {
	scram512 := map[string]string{
		"security.protocol": "sasl_plaintext", "sasl.mechanism": "SCRAM-SHA-512",
		"sasl.jaas.config": jaas(scramModule, `username="alice" password="`+secretPass+`"`),
	}
	tests := []struct {
		name     string
		props    map[string]string
		opts     int
		consumed []string
		user     string
	}{
		{"none", map[string]string{"bootstrap.servers": "x:1"}, 0, nil, ""},
		{"plaintext", map[string]string{"security.protocol": "PLAINTEXT"}, 0, []string{"security.protocol"}, ""},
		{"ssl with system roots", map[string]string{"security.protocol": "SSL"}, 1, []string{"security.protocol"}, ""},
		{"scram", scram512, 1, []string{"security.protocol", "sasl.mechanism", "sasl.jaas.config"}, "alice"},
		{"plain over ssl", map[string]string{
			"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN", "ssl.endpoint.identification.algorithm": "",
			"sasl.jaas.config": jaas(plainModule, `username="bob" password="`+secretPass+`"`),
		}, 2, []string{"security.protocol", "sasl.mechanism", "sasl.jaas.config", "ssl.endpoint.identification.algorithm"}, "bob"},
		{"oauth token", map[string]string{
			"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
			"sasl.jaas.config": jaas(oauthModule, `token="`+secretToken+`" extension_traceId="t1"`),
		}, 1, []string{"security.protocol", "sasl.mechanism", "sasl.jaas.config"}, "bob"},
		{"oauth unsecured", map[string]string{
			"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
			"sasl.jaas.config": jaas(oauthModule, `unsecuredLoginStringClaim_sub="carol" unsecuredLoginListClaim_scope="a,b"`),
		}, 1, []string{"security.protocol", "sasl.mechanism", "sasl.jaas.config"}, "carol"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts, consumed, err := securityOptions(tc.props)
			if err != nil {
				t.Fatalf("securityOptions: %v", err)
			}
			if len(opts) != tc.opts {
				t.Errorf("%d options, want %d", len(opts), tc.opts)
			}
			if len(consumed) != len(tc.consumed) {
				t.Errorf("consumed %v, want %v", consumed, tc.consumed)
			}
			for _, k := range tc.consumed {
				if !consumed[k] {
					t.Errorf("%s not consumed", k)
				}
			}
			if consumed["bootstrap.servers"] {
				t.Error("bootstrap.servers consumed")
			}
			if ac := authContextFromProperties(tc.props); ac.User != tc.user {
				t.Errorf("user %q, want %q", ac.User, tc.user)
			}
		})
	}
}

func TestSecurityPropertiesAllAccepted(t *testing.T) {
	keys := securityProperties()
	if len(keys) != 18 || !slices.IsSorted(keys) {
		t.Fatalf("securityProperties() = %v", keys)
	}
	for _, k := range keys {
		if !(k == propProtocol || strings.HasPrefix(k, "sasl.") || strings.HasPrefix(k, "ssl.")) {
			t.Errorf("%s is not a security property", k)
		}
	}
}

func TestUnsecuredJWT(t *testing.T) {
	s := &security{}
	_, err := s.oauthMechanism(jaasEntry{module: oauthModule, options: map[string]string{"unsecuredLoginStringClaim_sub": "dave"}, order: []string{"unsecuredLoginStringClaim_sub"}})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := unsecuredJWT(map[string]any{"sub": "dave"})
	if err != nil {
		t.Fatal(err)
	}
	if jwtSubject(tok) != "dave" || !strings.HasSuffix(tok, ".") || s.user != "dave" {
		t.Errorf("token %q subject %q user %q", tok, jwtSubject(tok), s.user)
	}
}

// secErrCase is a configuration that must be refused with an error naming
// key.
type secErrCase struct {
	name  string
	props map[string]string
	key   string
}

func securityErrorCases(t *testing.T, f *tlsFiles) []secErrCase {
	scram := func(extra ...string) map[string]string {
		m := map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-256",
			"sasl.jaas.config": jaas(scramModule, `username="alice" password="`+secretPass+`"`)}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	return []secErrCase{
		{"unknown protocol", map[string]string{"security.protocol": "TLS"}, "security.protocol"},
		{"sasl key with SSL", map[string]string{"security.protocol": "SSL", "sasl.mechanism": "PLAIN"}, "sasl.mechanism"},
		{"jaas with PLAINTEXT", map[string]string{"sasl.jaas.config": jaas(plainModule, `username="u" password="`+secretPass+`"`)}, "sasl.jaas.config"},
		{"ssl key with SASL_PLAINTEXT", map[string]string{"security.protocol": "SASL_PLAINTEXT", "ssl.truststore.password": secretStorePass,
			"sasl.mechanism": "PLAIN", "sasl.jaas.config": jaas(plainModule, `username="u" password="`+secretPass+`"`)}, "ssl.truststore.password"},
		{"unknown sasl key", scram("sasl.login.callback.handler.class", "x.Y"), "sasl.login.callback.handler.class"},
		{"unknown ssl key", scram("ssl.cipher.suites", "TLS_AES_128_GCM_SHA256"), "ssl.cipher.suites"},
		{"no mechanism", map[string]string{"security.protocol": "SASL_SSL", "sasl.jaas.config": jaas(plainModule, `password="`+secretPass+`"`)}, "sasl.mechanism"},
		{"GSSAPI", scram("sasl.mechanism", "GSSAPI"), "sasl.mechanism"},
		{"unknown mechanism", scram("sasl.mechanism", "AWS_MSK_IAM"), "sasl.mechanism"},
		{"no jaas", map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"}, "sasl.jaas.config"},
		{"malformed jaas", scram("sasl.jaas.config", scramModule+` required username="alice" password="`+secretPass+`"`), "sasl.jaas.config"},
		{"module mismatch", scram("sasl.jaas.config", jaas(plainModule, `username="alice" password="`+secretPass+`"`)), "sasl.jaas.config"},
		{"two modules", scram("sasl.jaas.config", jaas(scramModule, `username="a" password="`+secretPass+`"`)+" "+jaas(scramModule, "")), "sasl.jaas.config"},
		{"no username", scram("sasl.jaas.config", jaas(scramModule, `password="`+secretPass+`"`)), "sasl.jaas.config"},
		{"no password", scram("sasl.jaas.config", jaas(scramModule, `username="alice"`)), "sasl.jaas.config"},
		{"unknown jaas option", scram("sasl.jaas.config", jaas(scramModule, `username="alice" password="`+secretPass+`" secret="`+secretKeyPass+`"`)), "sasl.jaas.config"},
		{"oauth without token", map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER", "sasl.jaas.config": jaas(oauthModule, "")}, "sasl.jaas.config"},
		{"oauth endpoint", map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER", "sasl.oauthbearer.token.endpoint.url": "https://idp",
			"sasl.jaas.config": jaas(oauthModule, `clientSecret="`+secretPass+`"`)}, "sasl.oauthbearer.token.endpoint.url"},
		{"oauth unknown option", map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER",
			"sasl.jaas.config": jaas(oauthModule, `clientSecret="`+secretPass+`"`)}, "sasl.jaas.config"},
		{"endpoint algorithm", scram("ssl.endpoint.identification.algorithm", "ldaps"), "ssl.endpoint.identification.algorithm"},
		{"store type", scram("ssl.truststore.type", "BKS", "ssl.truststore.location", f.trustJKS), "ssl.truststore.type"},
		{"missing trust store", scram("ssl.truststore.location", filepath.Join(t.TempDir(), "none.jks")), "ssl.truststore.location"},
		{"wrong JKS trust store password", scram("ssl.truststore.location", f.trustJKS, "ssl.truststore.password", secretStorePass+"x"), "ssl.truststore.location"},
		{"wrong PKCS12 trust store password", scram("ssl.truststore.location", f.trustP12, "ssl.truststore.type", "PKCS12", "ssl.truststore.password", secretStorePass+"x"), "ssl.truststore.location"},
		{"PEM read as JKS", scram("ssl.truststore.location", f.caPEM, "ssl.truststore.password", secretStorePass), "ssl.truststore.location"},
		{"inline certs without PEM type", scram("ssl.truststore.certificates", string(f.ca.PEM)), "ssl.truststore.type"},
		{"inline certs and location", scram("ssl.truststore.certificates", string(f.ca.PEM), "ssl.truststore.type", "PEM", "ssl.truststore.location", f.caPEM), "ssl.truststore.certificates"},
		{"trust password without store", scram("ssl.truststore.password", secretStorePass), "ssl.truststore.password"},
		{"wrong PKCS12 key store password", scram("ssl.keystore.location", f.keyP12, "ssl.keystore.type", "PKCS12", "ssl.keystore.password", secretStorePass+"x"), "ssl.keystore.location"},
		{"wrong JKS key password", scram("ssl.keystore.location", f.keyJKS, "ssl.keystore.password", secretStorePass, "ssl.key.password", secretKeyPass+"x"), "ssl.keystore.location"},
		{"key without chain", scram("ssl.keystore.key", string(f.keyPEM), "ssl.keystore.type", "PEM"), "ssl.keystore.certificate.chain"},
		{"inline key without PEM type", scram("ssl.keystore.key", string(f.keyPEM), "ssl.keystore.certificate.chain", string(f.chainPEM)), "ssl.keystore.type"},
		{"key password with plain PEM key", scram("ssl.keystore.key", string(f.keyPEM), "ssl.keystore.certificate.chain", string(f.chainPEM), "ssl.keystore.type", "PEM", "ssl.key.password", secretKeyPass), "ssl.key.password"},
		{"encrypted PEM key", scram("ssl.keystore.key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n", "ssl.keystore.certificate.chain", string(f.chainPEM), "ssl.keystore.type", "PEM", "ssl.key.password", secretKeyPass), "ssl.key.password"},
		{"key of another certificate", scram("ssl.keystore.key", string(f.otherKeyPEM), "ssl.keystore.certificate.chain", string(f.chainPEM), "ssl.keystore.type", "PEM"), "ssl.keystore.key"},
		{"key store password without store", scram("ssl.keystore.password", secretStorePass), "ssl.keystore.password"},
		{"enabled protocols", scram("ssl.enabled.protocols", "TLSv1.1"), "ssl.enabled.protocols"},
		{"key manager", scram("ssl.keymanager.algorithm", "PKIX-custom"), "ssl.keymanager.algorithm"},
	}
}

func TestSecurityErrors(t *testing.T) {
	f := makeTLSFiles(t)
	for _, tc := range securityErrorCases(t, f) {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := securityOptions(tc.props)
			var se *SecurityError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *SecurityError", err)
			}
			if se.Key != tc.key {
				t.Errorf("error names %q, want %q: %v", se.Key, tc.key, err)
			}
			if !strings.Contains(err.Error(), "'properties."+tc.key+"'") {
				t.Errorf("message does not name properties.%s: %v", tc.key, err)
			}
		})
	}
}

// tlsFiles are stores made for the unit tests: a CA, a client key pair in
// every format, and a JKS/PKCS12/PEM trust store of the CA.
type tlsFiles struct {
	ca, otherCA                *kafkatest.CA
	client                     *kafkatest.KeyPair
	caPEM, trustJKS, trustP12  string
	keyJKS, keyP12, keyPEMFile string
	chainPEM, keyPEM           []byte
	otherKeyPEM, otherChainPEM []byte
}

func makeTLSFiles(t *testing.T) *tlsFiles {
	t.Helper()
	dir := t.TempDir()
	f := &tlsFiles{ca: kafkatest.NewCA(t, "unit CA"), otherCA: kafkatest.NewCA(t, "other CA")}
	f.client = f.ca.Issue(t, "client")
	f.chainPEM, f.keyPEM = f.client.CertPEM(), f.client.KeyPEM(t)
	other := f.otherCA.Issue(t, "other")
	f.otherKeyPEM, f.otherChainPEM = other.KeyPEM(t), other.CertPEM()
	f.caPEM = kafkatest.WriteFile(t, dir, "ca.pem", f.ca.PEM)
	f.keyPEMFile = kafkatest.WriteFile(t, dir, "client.pem", append(append([]byte{}, f.keyPEM...), f.chainPEM...))
	f.keyP12 = kafkatest.WriteFile(t, dir, "client.p12", f.client.PKCS12(t, secretStorePass))

	trust, err := pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{f.ca.Cert}, secretStorePass)
	if err != nil {
		t.Fatal(err)
	}
	f.trustP12 = kafkatest.WriteFile(t, dir, "trust.p12", trust)

	ks := keystore.New()
	if err := ks.SetTrustedCertificateEntry("ca", keystore.TrustedCertificateEntry{
		CreationTime: time.Now(), Certificate: keystore.Certificate{Type: "X509", Content: f.ca.Cert.Raw}}); err != nil {
		t.Fatal(err)
	}
	f.trustJKS = writeJKS(t, dir, "trust.jks", ks, secretStorePass)

	ks = keystore.New()
	der, err := x509.MarshalPKCS8PrivateKey(f.client.Key)
	if err != nil {
		t.Fatal(err)
	}
	if err := ks.SetPrivateKeyEntry("client", keystore.PrivateKeyEntry{CreationTime: time.Now(), PrivateKey: der,
		CertificateChain: []keystore.Certificate{{Type: "X509", Content: f.client.Cert.Raw}, {Type: "X509", Content: f.ca.Cert.Raw}}},
		[]byte(secretKeyPass)); err != nil {
		t.Fatal(err)
	}
	f.keyJKS = writeJKS(t, dir, "client.jks", ks, secretStorePass)
	return f
}

func writeJKS(t *testing.T, dir, name string, ks keystore.KeyStore, pass string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := ks.Store(&buf, []byte(pass)); err != nil {
		t.Fatal(err)
	}
	return kafkatest.WriteFile(t, dir, name, buf.Bytes())
}

func TestTLSStores(t *testing.T) {
	f := makeTLSFiles(t)
	trusts := map[string]map[string]string{
		"JKS":         {"ssl.truststore.location": f.trustJKS, "ssl.truststore.password": secretStorePass},
		"JKS no pass": {"ssl.truststore.location": f.trustJKS},
		"PKCS12":      {"ssl.truststore.location": f.trustP12, "ssl.truststore.type": "PKCS12", "ssl.truststore.password": secretStorePass},
		// Java 17 reads either format whichever type is configured.
		"PKCS12 as the default JKS": {"ssl.truststore.location": f.trustP12, "ssl.truststore.password": secretStorePass},
		"JKS typed PKCS12":          {"ssl.truststore.location": f.trustJKS, "ssl.truststore.type": "PKCS12", "ssl.truststore.password": secretStorePass},
		"PEM file":                  {"ssl.truststore.location": f.caPEM, "ssl.truststore.type": "pem"},
		"PEM inline":                {"ssl.truststore.certificates": string(f.ca.PEM), "ssl.truststore.type": "PEM"},
	}
	for name, props := range trusts {
		t.Run("trust "+name, func(t *testing.T) {
			c, err := tlsConfig(props, map[string]bool{})
			if err != nil {
				t.Fatalf("tlsConfig: %v", err)
			}
			if c.roots == nil {
				t.Fatal("no roots")
			}
			if _, err := f.client.Cert.Verify(x509.VerifyOptions{Roots: c.roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
				t.Errorf("the CA is not among the roots: %v", err)
			}
		})
	}
	keys := map[string]map[string]string{
		"JKS":                       {"ssl.keystore.location": f.keyJKS, "ssl.keystore.password": secretStorePass, "ssl.key.password": secretKeyPass},
		"PKCS12":                    {"ssl.keystore.location": f.keyP12, "ssl.keystore.type": "PKCS12", "ssl.keystore.password": secretStorePass},
		"PKCS12 as the default JKS": {"ssl.keystore.location": f.keyP12, "ssl.keystore.password": secretStorePass},
		"PEM file":                  {"ssl.keystore.location": f.keyPEMFile, "ssl.keystore.type": "PEM"},
		"PEM inline":                {"ssl.keystore.certificate.chain": string(f.chainPEM), "ssl.keystore.key": string(f.keyPEM), "ssl.keystore.type": "PEM"},
	}
	for name, props := range keys {
		t.Run("key "+name, func(t *testing.T) {
			c, err := tlsConfig(props, map[string]bool{})
			if err != nil {
				t.Fatalf("tlsConfig: %v", err)
			}
			if c.cert == nil || !c.cert.Leaf.Equal(f.client.Cert) || len(c.cert.Certificate) != 2 {
				t.Fatalf("certificate not loaded: %+v", c.cert)
			}
		})
	}
}

// tlsServer serves TLS on 127.0.0.1 with a certificate of ca for hosts;
// with clientCA it requires a client certificate signed by it. Each
// connection completes its handshake, reads until EOF and is closed.
func tlsServer(t *testing.T, ca *kafkatest.CA, clientCA *kafkatest.CA, hosts ...string) string {
	t.Helper()
	kp := ca.Issue(t, "server", hosts...)
	cert, err := tls.X509KeyPair(kp.CertPEM(), kp.KeyPEM(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	if clientCA != nil {
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
		cfg.ClientCAs = x509.NewCertPool()
		cfg.ClientCAs.AddCert(clientCA.Cert)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.(*tls.Conn).Handshake()
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return ln.Addr().String()
}

func TestTLSHandshakeErrors(t *testing.T) {
	f := makeTLSFiles(t)
	good := tlsServer(t, f.ca, nil, "127.0.0.1")
	wrongHost := tlsServer(t, f.ca, nil, "kafka.example.com")
	otherCA := tlsServer(t, f.otherCA, nil, "127.0.0.1")
	mtls := tlsServer(t, f.ca, f.ca, "127.0.0.1")
	trust := map[string]string{"ssl.truststore.location": f.caPEM, "ssl.truststore.type": "PEM"}
	noHost := map[string]string{"ssl.truststore.location": f.caPEM, "ssl.truststore.type": "PEM", "ssl.endpoint.identification.algorithm": ""}

	dial := func(t *testing.T, props map[string]string, addr string) error {
		t.Helper()
		c, err := tlsConfig(props, map[string]bool{})
		if err != nil {
			t.Fatalf("tlsConfig: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := c.dial(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		defer conn.Close()
		// A TLS 1.3 server rejects a client certificate after the client's
		// handshake is done: the alert arrives on the first read.
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = conn.Read(make([]byte, 1))
		if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed) || err != nil && strings.Contains(err.Error(), "EOF") {
			return nil
		}
		return err
	}
	t.Run("ok", func(t *testing.T) {
		if err := dial(t, trust, good); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("host name not verified when disabled", func(t *testing.T) {
		if err := dial(t, noHost, wrongHost); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("mutual TLS", func(t *testing.T) {
		props := map[string]string{"ssl.truststore.location": f.caPEM, "ssl.truststore.type": "PEM",
			"ssl.keystore.location": f.keyP12, "ssl.keystore.type": "PKCS12", "ssl.keystore.password": secretStorePass}
		if err := dial(t, props, mtls); err != nil {
			t.Fatal(err)
		}
	})
	errCases := []struct {
		name  string
		props map[string]string
		addr  string
		want  []string
	}{
		{"unknown CA", trust, otherCA, []string{`certificate "CN=server,O=streamsql tests"`, `issued by "CN=other CA,O=streamsql tests"`, "not signed by any certificate in ssl.truststore.location (" + f.caPEM + ")"}},
		{"unknown CA even without host check", noHost, otherCA, []string{"not signed by any certificate"}},
		{"host name", trust, wrongHost, []string{"not valid for host 127.0.0.1", "names: kafka.example.com", "ssl.endpoint.identification.algorithm"}},
		{"no client certificate", trust, mtls, []string{"requires a client certificate", "ssl.keystore.location"}},
		{"client certificate of another CA", map[string]string{"ssl.truststore.location": f.caPEM, "ssl.truststore.type": "PEM",
			"ssl.keystore.key": string(f.otherKeyPEM), "ssl.keystore.certificate.chain": string(f.otherChainPEM), "ssl.keystore.type": "PEM"},
			mtls, []string{"rejected the client certificate", `"CN=other,O=streamsql tests"`, "ssl.keystore.certificate.chain"}},
		{"not TLS", trust, plainServer(t), []string{"does not speak TLS"}},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			err := dial(t, tc.props, tc.addr)
			var te *TLSError
			if !errors.As(err, &te) {
				t.Fatalf("got %v, want a *TLSError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message lacks %q: %v", w, err)
				}
			}
		})
	}
}

// plainServer accepts TCP connections and answers garbage.
func plainServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HTTP/1.0 400 Bad Request\r\n\r\n"))
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return ln.Addr().String()
}

func TestDescribeAuthError(t *testing.T) {
	wrap := func(e error) error { return fmt.Errorf("producing to x: %w", e) }
	tests := []struct {
		name string
		err  error
		ac   AuthContext
		want string
	}{
		{"sasl", wrap(kerr.SaslAuthenticationFailed), AuthContext{User: "alice", Mechanism: "SCRAM-SHA-512"}, `authentication failed for user "alice" with mechanism SCRAM-SHA-512`},
		{"mechanism", kerr.UnsupportedSaslMechanism, AuthContext{Mechanism: "PLAIN"}, "does not enable SASL mechanism PLAIN"},
		{"topic write", wrap(kerr.TopicAuthorizationFailed), AuthContext{User: "bob", Topic: "orders", Operation: OpProduce}, "grant User:bob the ACL WRITE on topic orders"},
		{"topic read", kerr.TopicAuthorizationFailed, AuthContext{User: "bob", Topic: "orders", Group: "g"}, "the ACL READ on topic orders"},
		{"group", kerr.GroupAuthorizationFailed, AuthContext{User: "bob", Group: "g1", Operation: OpConsume}, "grant User:bob the ACL READ on group g1"},
		{"txn id", kerr.TransactionalIDAuthorizationFailed, AuthContext{User: "bob", TransactionalID: "job-1-0", Operation: OpTransaction}, "the ACL WRITE on transactional id job-1-0"},
		{"list txns", kerr.TransactionalIDAuthorizationFailed, AuthContext{User: "bob", TransactionalID: "job-1", Operation: OpListTransactions}, "DESCRIBE on the transactional ids (prefix job-1)"},
		{"cluster configs", kerr.ClusterAuthorizationFailed, AuthContext{User: "bob", Operation: OpDescribeClusterConfigs}, "the ACL DESCRIBE_CONFIGS on the cluster"},
		{"idempotent", kerr.ClusterAuthorizationFailed, AuthContext{User: "bob", Operation: OpIdempotentProduce}, "IDEMPOTENT_WRITE on the cluster"},
		{"protocol mismatch", fmt.Errorf("x: %w", &kgo.ErrFirstReadEOF{}), AuthContext{Protocol: "SASL_PLAINTEXT"}, "expects another security protocol than properties.security.protocol=SASL_PLAINTEXT"},
		{"no user", kerr.TopicAuthorizationFailed, AuthContext{Topic: "t", Operation: OpProduce}, "the client is not authorized while producing: grant the client's principal the ACL WRITE on topic t"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := DescribeAuthError(tc.err, tc.ac)
			var ae *AuthError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an *AuthError with %q", err, tc.want)
			}
			if !errors.Is(err, tc.err) && !errors.Is(tc.err, errors.Unwrap(err)) {
				t.Errorf("does not wrap %v", tc.err)
			}
			if DescribeAuthError(err, AuthContext{}) != err {
				t.Error("describing twice changed the error")
			}
		})
	}
	te := &TLSError{Broker: "b:1", Reason: "r", Err: errors.New("x")}
	if got := DescribeAuthError(fmt.Errorf("wrapped: %w", te), AuthContext{}); got != te {
		t.Errorf("a TLSError must come back unwrapped, got %v", got)
	}
	other := errors.New("boom")
	if DescribeAuthError(other, AuthContext{}) != other || DescribeAuthError(nil, AuthContext{}) != nil {
		t.Error("other errors must pass unchanged")
	}
}

func TestSensitiveProperty(t *testing.T) {
	for _, k := range []string{"sasl.jaas.config", "properties.sasl.jaas.config", "ssl.truststore.password", "ssl.keystore.password",
		"ssl.key.password", "ssl.keystore.key", "sasl.oauthbearer.token", "SSL.KEY.PASSWORD"} {
		if !SensitiveProperty(k) {
			t.Errorf("%s not sensitive", k)
		}
	}
	for _, k := range SensitiveProperties() {
		if !SensitiveProperty(k) {
			t.Errorf("listed %s not sensitive", k)
		}
	}
	for _, k := range []string{"security.protocol", "sasl.mechanism", "ssl.truststore.location", "ssl.keystore.certificate.chain",
		"ssl.truststore.certificates", "bootstrap.servers", "ssl.keystore.type"} {
		if SensitiveProperty(k) {
			t.Errorf("%s sensitive", k)
		}
	}
}

// TestSecretsNeverInErrors runs every failing configuration and checks that
// no secret value appears in its error.
func TestSecretsNeverInErrors(t *testing.T) {
	f := makeTLSFiles(t)
	secrets := []string{secretPass, secretStorePass, secretKeyPass, secretToken, "pa55", "store-Secret", "key-Secret",
		strings.TrimSpace(string(f.keyPEM)), "PRIVATE KEY-----\nM"}
	n := 0
	for _, tc := range securityErrorCases(t, f) {
		_, _, err := securityOptions(tc.props)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		n++
		for _, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: error shows a secret (%.8s...): %v", tc.name, s, err)
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d failure cases checked", n)
	}
}

func TestAuthContextFromProperties(t *testing.T) {
	ac := authContextFromProperties(map[string]string{
		"security.protocol": "sasl_ssl", "sasl.mechanism": "scram-sha-256",
		"sasl.jaas.config":        jaas(scramModule, `username="alice" password="`+secretPass+`"`),
		"ssl.truststore.location": "/nonexistent/trust.jks", // not read
	})
	if ac != (AuthContext{Protocol: "SASL_SSL", User: "alice", Mechanism: "SCRAM-SHA-256"}) {
		t.Errorf("got %+v", ac)
	}
	if ac := authContextFromProperties(nil); ac != (AuthContext{Protocol: "PLAINTEXT"}) {
		t.Errorf("no properties: got %+v", ac)
	}
	bad := authContextFromProperties(map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN", "sasl.jaas.config": "broken"})
	if bad != (AuthContext{Protocol: "SASL_PLAINTEXT"}) {
		t.Errorf("malformed JAAS: got %+v", bad)
	}
}
