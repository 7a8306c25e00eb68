package clientprops

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"github.com/twmb/franz-go/pkg/kgo"
	"software.sslmate.com/src/go-pkcs12"
)

// sslKeys are the ssl.* properties the mapping honours.
var sslKeys = []string{
	propTrustLocation, propTrustPassword, propTrustType, propTrustCerts,
	propKeyLocation, propKeyPassword, propKeyType, propKeyChain, propKeyKey, propKeyKeyPass,
	propEndpointAlg, propSSLProtocol, propSSLEnabled, propKeyMgrAlg, propTrustMgrAlg,
}

// TLSError reports a failed TLS handshake with a broker, saying which
// certificate failed and why.
type TLSError struct {
	// Broker is the address dialled.
	Broker string
	// Reason describes the failure in terms of the configuration.
	Reason string
	// Err is the underlying crypto/tls or crypto/x509 error.
	Err error
}

func (e *TLSError) Error() string {
	return fmt.Sprintf("TLS handshake with broker %s failed: %s: %v", e.Broker, e.Reason, e.Err)
}

// Unwrap returns the crypto/tls or crypto/x509 error.
func (e *TLSError) Unwrap() error { return e.Err }

// clientTLS is the TLS side of the configuration.
type clientTLS struct {
	roots       *x509.CertPool // nil: the system's roots
	rootsFrom   string         // where the roots came from, for messages
	cert        *tls.Certificate
	certFrom    string
	verifyHost  bool
	minVersion  uint16
	maxVersion  uint16
	dialTimeout time.Duration
}

// tlsConfig reads the ssl.* properties, marking the keys it reads consumed.
func tlsConfig(props map[string]string, consumed map[string]bool) (*clientTLS, error) {
	get := func(k string) (string, bool) {
		v, ok := props[k]
		if ok {
			consumed[k] = true
		}
		return v, ok
	}
	c := &clientTLS{verifyHost: true, minVersion: tls.VersionTLS12, dialTimeout: 10 * time.Second, rootsFrom: "the system's trusted certificates"}

	if v, ok := get(propEndpointAlg); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "":
			c.verifyHost = false
		case "https":
		default:
			return nil, secErr(propEndpointAlg, "unsupported value %q; want https (verify the broker's host name, the default) or empty (do not)", v)
		}
	}
	for _, k := range []string{propKeyMgrAlg, propTrustMgrAlg} {
		if v, ok := get(k); ok {
			want := map[string]string{propKeyMgrAlg: "SunX509", propTrustMgrAlg: "PKIX"}[k]
			if !strings.EqualFold(strings.TrimSpace(v), want) && !(k == propTrustMgrAlg && strings.EqualFold(v, "SunX509")) {
				return nil, secErr(k, "only the Java default (%s) is supported; got %q", want, v)
			}
		}
	}
	versions := map[string]uint16{"TLSV1.2": tls.VersionTLS12, "TLSV1.3": tls.VersionTLS13, "TLS": tls.VersionTLS12}
	if v, ok := get(propSSLEnabled); ok {
		c.minVersion, c.maxVersion = 0, 0
		for _, p := range strings.Split(v, ",") {
			p = strings.ToUpper(strings.TrimSpace(p))
			if p == "" {
				continue
			}
			ver, ok := versions[p]
			if !ok || p == "TLS" {
				return nil, secErr(propSSLEnabled, "unsupported protocol %q; want TLSv1.2 and/or TLSv1.3", p)
			}
			if c.minVersion == 0 || ver < c.minVersion {
				c.minVersion = ver
			}
			c.maxVersion = max(c.maxVersion, ver)
		}
		if c.minVersion == 0 {
			return nil, secErr(propSSLEnabled, "lists no protocol; want TLSv1.2 and/or TLSv1.3")
		}
	}
	if v, ok := get(propSSLProtocol); ok {
		// Java's SSLContext protocol: the highest version it may use.
		if _, ok := versions[strings.ToUpper(strings.TrimSpace(v))]; !ok {
			return nil, secErr(propSSLProtocol, "unsupported protocol %q; want TLSv1.2, TLSv1.3 or TLS", v)
		}
		if strings.EqualFold(strings.TrimSpace(v), "TLSv1.2") && c.maxVersion == 0 {
			c.maxVersion = tls.VersionTLS12
		}
	}

	if err := c.loadTrust(get); err != nil {
		return nil, err
	}
	if err := c.loadKey(get); err != nil {
		return nil, err
	}
	return c, nil
}

// storeType returns the upper-cased type property or def.
func storeType(get func(string) (string, bool), key, def string) (string, error) {
	v, ok := get(key)
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	t := strings.ToUpper(strings.TrimSpace(v))
	switch t {
	case "JKS", "PKCS12", "PEM":
		return t, nil
	}
	return "", secErr(key, "unsupported store type %q; want JKS, PKCS12 or PEM", v)
}

// storeFormat returns the format of a JKS or PKCS12 store's data. Java 17
// reads either format whichever of the two types is configured (its
// keystore.type.compat), so JKS and PKCS12 are told apart by content here
// too: a JKS store starts with the magic number 0xFEEDFEED.
func storeFormat(typ string, data []byte) string {
	if typ == "PEM" {
		return typ
	}
	if bytes.HasPrefix(data, []byte{0xFE, 0xED, 0xFE, 0xED}) {
		return "JKS"
	}
	return "PKCS12"
}

func readStore(key, path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &SecurityError{Key: key, Reason: "cannot read the file", Err: err}
	}
	return b, nil
}

func (c *clientTLS) loadTrust(get func(string) (string, bool)) error {
	typ, err := storeType(get, propTrustType, "JKS")
	if err != nil {
		return err
	}
	loc, hasLoc := get(propTrustLocation)
	pass, hasPass := get(propTrustPassword)
	inline, hasInline := get(propTrustCerts)
	switch {
	case hasLoc && hasInline:
		return secErr(propTrustCerts, "cannot be combined with ssl.truststore.location; give one")
	case hasInline:
		if typ != "PEM" {
			return secErr(propTrustType, "must be PEM when ssl.truststore.certificates is given")
		}
		if hasPass {
			return secErr(propTrustPassword, "is not supported with PEM trust certificates (they are not encrypted); remove it")
		}
		certs, err := pemCertificates([]byte(inline))
		if err != nil {
			return &SecurityError{Key: propTrustCerts, Reason: "holds no usable certificate", Err: err}
		}
		c.setRoots(certs, "ssl.truststore.certificates")
		return nil
	case !hasLoc:
		if hasPass {
			return secErr(propTrustPassword, "is set without ssl.truststore.location")
		}
		if _, ok := get(propTrustType); ok {
			return secErr(propTrustType, "is set without ssl.truststore.location or ssl.truststore.certificates")
		}
		return nil // the system's roots, as Java uses its default trust store
	}
	data, err := readStore(propTrustLocation, loc)
	if err != nil {
		return err
	}
	var certs []*x509.Certificate
	typ = storeFormat(typ, data)
	switch typ {
	case "PEM":
		if hasPass {
			return secErr(propTrustPassword, "is not supported with a PEM trust store (it is not encrypted); remove it")
		}
		certs, err = pemCertificates(data)
	case "PKCS12":
		certs, err = pkcs12.DecodeTrustStore(data, pass)
		if err != nil && !hasPass {
			err = fmt.Errorf("%w (no ssl.truststore.password was given)", err)
		}
	case "JKS":
		certs, err = jksTrustedCerts(data, pass)
	}
	if err != nil {
		return &SecurityError{Key: propTrustLocation, Reason: fmt.Sprintf("cannot read %s trust store %s (check ssl.truststore.type and ssl.truststore.password)", typ, loc), Err: err}
	}
	if len(certs) == 0 {
		return secErr(propTrustLocation, "trust store %s holds no certificate", loc)
	}
	c.setRoots(certs, fmt.Sprintf("ssl.truststore.location (%s)", loc))
	return nil
}

func (c *clientTLS) setRoots(certs []*x509.Certificate, from string) {
	c.roots = x509.NewCertPool()
	for _, cert := range certs {
		c.roots.AddCert(cert)
	}
	c.rootsFrom = from
}

func (c *clientTLS) loadKey(get func(string) (string, bool)) error {
	typ, err := storeType(get, propKeyType, "JKS")
	if err != nil {
		return err
	}
	loc, hasLoc := get(propKeyLocation)
	pass, hasPass := get(propKeyPassword)
	keyPass, hasKeyPass := get(propKeyKeyPass)
	chain, hasChain := get(propKeyChain)
	key, hasKey := get(propKeyKey)
	switch {
	case hasLoc && (hasChain || hasKey):
		k := propKeyChain
		if !hasChain {
			k = propKeyKey
		}
		return secErr(k, "cannot be combined with ssl.keystore.location; give one")
	case hasChain != hasKey:
		if hasChain {
			return secErr(propKeyKey, "is required with ssl.keystore.certificate.chain")
		}
		return secErr(propKeyChain, "is required with ssl.keystore.key")
	case hasChain:
		if typ != "PEM" {
			return secErr(propKeyType, "must be PEM when ssl.keystore.certificate.chain and ssl.keystore.key are given")
		}
		if hasPass {
			return secErr(propKeyPassword, "is not used with an inline PEM key; remove it")
		}
		cert, err := pemKeyPair([]byte(chain), []byte(key), keyPass, hasKeyPass, propKeyChain, propKeyKey)
		if err != nil {
			return err
		}
		c.cert, c.certFrom = cert, "ssl.keystore.certificate.chain"
		return nil
	case !hasLoc:
		for _, k := range []string{propKeyPassword, propKeyKeyPass, propKeyType} {
			if _, ok := get(k); ok {
				return secErr(k, "is set without ssl.keystore.location or ssl.keystore.key")
			}
		}
		return nil
	}
	data, err := readStore(propKeyLocation, loc)
	if err != nil {
		return err
	}
	from := fmt.Sprintf("ssl.keystore.location (%s)", loc)
	var cert *tls.Certificate
	typ = storeFormat(typ, data)
	switch typ {
	case "PEM":
		if hasPass {
			return secErr(propKeyPassword, "is not used with a PEM key store; an encrypted key's password is ssl.key.password")
		}
		cert, err = pemKeyPair(data, data, keyPass, hasKeyPass, propKeyLocation, propKeyLocation)
		if err != nil {
			return err
		}
	case "PKCS12":
		if hasKeyPass && keyPass != pass {
			return secErr(propKeyKeyPass, "differs from ssl.keystore.password, which a PKCS12 key store does not support; remove it")
		}
		var priv any
		var leaf *x509.Certificate
		var cas []*x509.Certificate
		priv, leaf, cas, err = pkcs12.DecodeChain(data, pass)
		if err != nil {
			return &SecurityError{Key: propKeyLocation, Reason: fmt.Sprintf("cannot read PKCS12 key store %s (check ssl.keystore.password)", loc), Err: err}
		}
		cert, err = tlsCert(priv, append([]*x509.Certificate{leaf}, cas...))
	case "JKS":
		if !hasKeyPass {
			keyPass = pass
		}
		cert, err = jksKeyPair(data, pass, keyPass)
	}
	if err != nil {
		return &SecurityError{Key: propKeyLocation, Reason: fmt.Sprintf("cannot read %s key store %s (check ssl.keystore.password and ssl.key.password)", typ, loc), Err: err}
	}
	c.cert, c.certFrom = cert, from
	return nil
}

// pemCertificates parses every CERTIFICATE block of data.
func pemCertificates(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for n := 1; ; n++ {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM block %d: %w", n, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM CERTIFICATE block found")
	}
	return certs, nil
}

// pemKeyPair builds a certificate from PEM certificates and a PEM private
// key: unencrypted (PKCS#8, PKCS#1 or SEC 1), or an encrypted PKCS#8 key
// (ENCRYPTED PRIVATE KEY, PBES2) with ssl.key.password, as Kafka reads them.
func pemKeyPair(chainPEM, keyPEM []byte, keyPass string, hasKeyPass bool, chainKey, keyKey string) (*tls.Certificate, error) {
	certs, err := pemCertificates(chainPEM)
	if err != nil {
		return nil, &SecurityError{Key: chainKey, Reason: "holds no usable certificate", Err: err}
	}
	var keyDER []byte
	encrypted := false
	rest := keyPEM
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "ENCRYPTED PRIVATE KEY" {
			keyDER, encrypted = b.Bytes, true
			break
		}
		if strings.HasSuffix(b.Type, "PRIVATE KEY") {
			if _, enc := b.Headers["Proc-Type"]; enc {
				return nil, secErr(propKeyKeyPass, "legacy OpenSSL-encrypted PEM keys (Proc-Type header) are not supported; convert the key to encrypted PKCS#8 with `openssl pkcs8 -topk8 -v2 aes-256-cbc`, or use a PKCS12 key store")
			}
			keyDER = b.Bytes
			break
		}
	}
	if keyDER == nil {
		return nil, secErr(keyKey, "holds no PEM PRIVATE KEY block")
	}
	switch {
	case encrypted && !hasKeyPass:
		return nil, secErr(propKeyKeyPass, "is required: the PEM private key is encrypted")
	case encrypted:
		keyDER, err = decryptPKCS8(keyDER, keyPass)
		if err != nil {
			return nil, &SecurityError{Key: propKeyKeyPass, Reason: "cannot decrypt the PEM private key", Err: err}
		}
	case hasKeyPass && keyPass != "":
		return nil, secErr(propKeyKeyPass, "is set but the PEM key is not encrypted; remove it")
	}
	priv, err := parsePrivateKey(keyDER)
	if err != nil {
		return nil, secErr(keyKey, "holds a private key that cannot be parsed (want PKCS#8, PKCS#1 or SEC 1)")
	}
	cert, err := tlsCert(priv, certs)
	if err != nil {
		return nil, &SecurityError{Key: keyKey, Reason: "does not fit the certificate", Err: err}
	}
	return cert, nil
}

func parsePrivateKey(der []byte) (crypto.PrivateKey, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	return x509.ParseECPrivateKey(der)
}

// tlsCert pairs a private key with its chain (leaf first) and checks that
// the key belongs to the leaf.
func tlsCert(priv any, chain []*x509.Certificate) (*tls.Certificate, error) {
	if len(chain) == 0 || chain[0] == nil {
		return nil, errors.New("no certificate for the private key")
	}
	signer, ok := priv.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("unsupported private key type %T", priv)
	}
	if !publicKeysEqual(signer.Public(), chain[0].PublicKey) {
		return nil, fmt.Errorf("the private key does not belong to certificate %s", describeCert(chain[0]))
	}
	c := &tls.Certificate{PrivateKey: priv, Leaf: chain[0]}
	for _, x := range chain {
		c.Certificate = append(c.Certificate, x.Raw)
	}
	return c, nil
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	type equaler interface{ Equal(crypto.PublicKey) bool }
	switch a.(type) {
	case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
		return a.(equaler).Equal(b)
	}
	return false
}

// jksTrustedCerts returns the trusted certificate entries of a JKS store. An
// empty password skips the integrity check, as Java does.
func jksTrustedCerts(data []byte, pass string) ([]*x509.Certificate, error) {
	if pass == "" && len(data) > sha1.Size {
		// Java reads a trust store without a password, unchecked. The
		// store's digest is SHA-1(password || "Mighty Aphrodite" || body);
		// recompute it for the empty password so the reader accepts it.
		body := data[:len(data)-sha1.Size]
		h := sha1.New()
		h.Write([]byte("Mighty Aphrodite"))
		h.Write(body)
		data = h.Sum(slices.Clip(body))
	}
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(pass)); err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for _, alias := range ks.Aliases() {
		var raw []byte
		if ks.IsTrustedCertificateEntry(alias) {
			e, err := ks.GetTrustedCertificateEntry(alias)
			if err != nil {
				return nil, fmt.Errorf("entry %s: %w", alias, err)
			}
			raw = e.Certificate.Content
		} else if ks.IsPrivateKeyEntry(alias) {
			// Java trusts the certificates of key entries too.
			chain, err := ks.GetPrivateKeyEntryCertificateChain(alias)
			if err != nil || len(chain) == 0 {
				continue
			}
			raw = chain[0].Content
		}
		if raw == nil {
			continue
		}
		c, err := x509.ParseCertificate(raw)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", alias, err)
		}
		certs = append(certs, c)
	}
	return certs, nil
}

// jksKeyPair returns the one private key entry of a JKS key store.
func jksKeyPair(data []byte, storePass, keyPass string) (*tls.Certificate, error) {
	ks := keystore.New()
	if err := ks.Load(bytes.NewReader(data), []byte(storePass)); err != nil {
		return nil, err
	}
	var aliases []string
	for _, a := range ks.Aliases() {
		if ks.IsPrivateKeyEntry(a) {
			aliases = append(aliases, a)
		}
	}
	slices.Sort(aliases)
	if len(aliases) != 1 {
		return nil, fmt.Errorf("want exactly one private key entry, found %d (%s)", len(aliases), strings.Join(aliases, ", "))
	}
	e, err := ks.GetPrivateKeyEntry(aliases[0], []byte(keyPass))
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", aliases[0], err)
	}
	priv, err := parsePrivateKey(e.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("entry %s: cannot parse the private key", aliases[0])
	}
	var chain []*x509.Certificate
	for _, c := range e.CertificateChain {
		x, err := x509.ParseCertificate(c.Content)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", aliases[0], err)
		}
		chain = append(chain, x)
	}
	return tlsCert(priv, chain)
}

// describeCert names a certificate for messages: subject, issuer, expiry.
func describeCert(c *x509.Certificate) string {
	return fmt.Sprintf("%q (issued by %q, valid %s to %s)", c.Subject.String(), c.Issuer.String(),
		c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339))
}

// dialer returns the kgo option that dials brokers with TLS, verifying the
// broker's chain against the configured roots (and its host name unless
// disabled) and explaining a failure in terms of the configuration.
func (c *clientTLS) dialer() kgo.Opt { return kgo.Dialer(c.dial) }

// dial connects to addr and completes the TLS handshake.
func (c *clientTLS) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: c.dialTimeout}
	raw, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	conn := tls.Client(raw, c.config(host))
	if err := conn.HandshakeContext(ctx); err != nil {
		_ = raw.Close()
		return nil, c.describeHandshake(addr, err)
	}
	return &tlsConn{Conn: conn, c: c, addr: addr}, nil
}

// tlsConn explains TLS alerts that arrive after the handshake: with TLS 1.3
// a broker rejects the client's certificate only after the client finished
// its side of the handshake, so the alert surfaces on the first read.
type tlsConn struct {
	net.Conn
	c    *clientTLS
	addr string
}

func (t *tlsConn) Read(p []byte) (int, error) {
	n, err := t.Conn.Read(p)
	if err != nil && strings.Contains(err.Error(), "remote error: tls:") {
		err = t.c.describeHandshake(t.addr, err)
	}
	return n, err
}

// config is the tls.Config for one broker host. Verification is done in
// VerifyConnection, always: the chain against the roots, and the host name
// unless ssl.endpoint.identification.algorithm is empty. InsecureSkipVerify
// only hands verification to that function.
func (c *clientTLS) config(host string) *tls.Config {
	cfg := &tls.Config{
		MinVersion:         c.minVersion,
		MaxVersion:         c.maxVersion,
		ServerName:         host,
		InsecureSkipVerify: true, // verified in VerifyConnection below
		VerifyConnection:   func(cs tls.ConnectionState) error { return c.verify(host, cs) },
	}
	if c.cert != nil {
		cert := c.cert
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
	}
	return cfg
}

// certError is a verification failure of the broker's certificate.
type certError struct {
	reason string
	err    error
}

func (e *certError) Error() string { return e.reason + ": " + e.err.Error() }
func (e *certError) Unwrap() error { return e.err }

func (c *clientTLS) verify(host string, cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return &certError{"the broker sent no certificate", errors.New("empty certificate chain")}
	}
	leaf := cs.PeerCertificates[0]
	opts := x509.VerifyOptions{
		Roots:         c.roots,
		Intermediates: x509.NewCertPool(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, ic := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(ic)
	}
	if _, err := leaf.Verify(opts); err != nil {
		var why string
		var ua x509.UnknownAuthorityError
		var ci x509.CertificateInvalidError
		switch {
		case errors.As(err, &ua):
			why = fmt.Sprintf("the broker's certificate %s is not signed by any certificate in %s", describeCert(leaf), c.rootsFrom)
		case errors.As(err, &ci) && ci.Reason == x509.Expired:
			why = fmt.Sprintf("the broker's certificate %s has expired or is not yet valid", describeCert(leaf))
		default:
			why = fmt.Sprintf("the broker's certificate %s is not valid", describeCert(leaf))
		}
		return &certError{why, err}
	}
	if c.verifyHost {
		if err := leaf.VerifyHostname(host); err != nil {
			return &certError{fmt.Sprintf("the broker's certificate %s is not valid for host %s (names: %s); fix the broker's certificate or, as in Kafka, set ssl.endpoint.identification.algorithm to empty to skip host-name verification",
				describeCert(leaf), host, certNames(leaf)), err}
		}
	}
	return nil
}

func certNames(c *x509.Certificate) string {
	var names []string
	names = append(names, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// describeHandshake turns a handshake error into a TLSError.
func (c *clientTLS) describeHandshake(addr string, err error) error {
	var ce *certError
	if errors.As(err, &ce) {
		return &TLSError{Broker: addr, Reason: ce.reason, Err: ce.err}
	}
	msg := err.Error()
	certAlert := strings.Contains(msg, "remote error: tls: certificate required") ||
		strings.Contains(msg, "remote error: tls: bad certificate") ||
		strings.Contains(msg, "remote error: tls: unknown certificate") // also "... authority"
	switch {
	case certAlert && c.cert == nil:
		return &TLSError{Broker: addr, Reason: "the broker requires a client certificate and none is configured; set ssl.keystore.location (or ssl.keystore.certificate.chain and ssl.keystore.key)", Err: err}
	case certAlert:
		return &TLSError{Broker: addr, Reason: fmt.Sprintf("the broker rejected the client certificate %s from %s: check that the broker trusts its issuer and that it is valid for client authentication", describeCert(c.cert.Leaf), c.certFrom), Err: err}
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		return &TLSError{Broker: addr, Reason: "the broker closed the connection during the TLS handshake: its listener probably does not use TLS; check security.protocol (SSL and SASL_SSL use TLS) against the listener of that port", Err: err}
	case strings.Contains(msg, "first record does not look like a TLS handshake"):
		return &TLSError{Broker: addr, Reason: "the broker's listener does not speak TLS; check security.protocol and the port", Err: err}
	}
	return &TLSError{Broker: addr, Reason: "handshake failed", Err: err}
}
