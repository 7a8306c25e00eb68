package clientprops

// Security: the Java client's security.protocol, sasl.* and ssl.* properties
// mapped onto franz-go. The mapping never downgrades: a property it cannot
// honour is an error naming it, and secrets never appear in any message.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// SecurityError reports a security property (security.protocol, sasl.* or
// ssl.*) that cannot be honoured. Its message names the property and never
// contains a secret value.
type SecurityError struct {
	// Key is the Java client property name, without the "properties."
	// prefix of the table option.
	Key string
	// Reason says what is wrong and what to do. It contains no secret.
	Reason string
	// Err is the underlying cause, if any (a *JAASError, a file error, a
	// certificate parse error). It contains no secret either.
	Err error
}

func (e *SecurityError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("option 'properties.%s': %s: %v", e.Key, e.Reason, e.Err)
	}
	return fmt.Sprintf("option 'properties.%s': %s", e.Key, e.Reason)
}

// Unwrap returns the underlying cause.
func (e *SecurityError) Unwrap() error { return e.Err }

func secErr(key, format string, args ...any) error {
	return &SecurityError{Key: key, Reason: fmt.Sprintf(format, args...)}
}

// Java client security property names.
const (
	propProtocol  = "security.protocol"
	propMechanism = "sasl.mechanism"
	propJAAS      = "sasl.jaas.config"

	propTrustLocation = "ssl.truststore.location"
	propTrustPassword = "ssl.truststore.password"
	propTrustType     = "ssl.truststore.type"
	propTrustCerts    = "ssl.truststore.certificates"
	propKeyLocation   = "ssl.keystore.location"
	propKeyPassword   = "ssl.keystore.password"
	propKeyType       = "ssl.keystore.type"
	propKeyChain      = "ssl.keystore.certificate.chain"
	propKeyKey        = "ssl.keystore.key"
	propKeyKeyPass    = "ssl.key.password"
	propEndpointAlg   = "ssl.endpoint.identification.algorithm"
	propSSLProtocol   = "ssl.protocol"
	propSSLEnabled    = "ssl.enabled.protocols"
	propKeyMgrAlg     = "ssl.keymanager.algorithm"
	propTrustMgrAlg   = "ssl.trustmanager.algorithm"
)

// sensitiveProperties are the security properties whose values are secrets.
var sensitiveProperties = []string{
	propJAAS, propTrustPassword, propKeyPassword, propKeyKeyPass, propKeyKey,
}

// SensitiveProperty reports whether the Java client property key (without
// the "properties." prefix) holds a secret — a password, a JAAS
// configuration, a private key or a token — whose value must never be
// shown. Option declarations use it to mark such keys sensitive.
func SensitiveProperty(key string) bool {
	k := strings.ToLower(strings.TrimPrefix(key, "properties."))
	if slices.Contains(sensitiveProperties, k) {
		return true
	}
	for _, w := range []string{"password", "secret", "token", "jaas", "credential"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return strings.HasSuffix(k, ".key")
}

// SensitiveProperties returns the security properties (Java client names,
// without the "properties." prefix) whose values are secrets, for option
// declarations: sasl.jaas.config, the store and key passwords and the
// inline private key ssl.keystore.key.
func SensitiveProperties() []string { return slices.Clone(sensitiveProperties) }

// securityProperties lists the security properties securityOptions
// honours (Java client names without the "properties." prefix), sorted, for
// SupportedProperties and the configuration reference.
func securityProperties() []string {
	keys := append([]string{propProtocol, propMechanism, propJAAS}, sslKeys...)
	slices.Sort(keys)
	return keys
}

// securityProtocol is a value of security.protocol.
type securityProtocol struct {
	tls, sasl bool
}

var securityProtocols = map[string]securityProtocol{
	"PLAINTEXT":      {},
	"SSL":            {tls: true},
	"SASL_PLAINTEXT": {sasl: true},
	"SASL_SSL":       {tls: true, sasl: true},
}

// Login module classes of the Java client and the mechanisms each serves.
const (
	plainModule = "org.apache.kafka.common.security.plain.PlainLoginModule"
	scramModule = "org.apache.kafka.common.security.scram.ScramLoginModule"
	oauthModule = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
)

// securityOptions maps the security properties among props (Java client
// property names without the "properties." prefix) to franz-go options: a
// TLS dialer for SSL and SASL_SSL, a SASL mechanism for SASL_PLAINTEXT and
// SASL_SSL. consumed holds every key it handled, so that the caller can
// reject the remaining keys as unknown. Any security.protocol, sasl.* or
// ssl.* key it cannot honour is an error (*SecurityError) naming the key; a
// TLS or SASL property given while security.protocol does not use TLS or
// SASL is an error too, never silently ignored.
func securityOptions(props map[string]string) (opts []kgo.Opt, consumed map[string]bool, err error) {
	s, err := parseSecurity(props)
	if err != nil {
		return nil, nil, err
	}
	return s.opts, s.consumed, nil
}

// security is what the security properties say.
type security struct {
	opts      []kgo.Opt
	consumed  map[string]bool
	protocol  string
	mechanism string // "" without SASL
	user      string // SASL user name ("" for OAUTHBEARER without a subject)
}

func parseSecurity(props map[string]string) (*security, error) {
	s := &security{consumed: map[string]bool{}, protocol: "PLAINTEXT"}
	get := func(k string) (string, bool) {
		v, ok := props[k]
		if ok {
			s.consumed[k] = true
		}
		return v, ok
	}
	if v, ok := get(propProtocol); ok {
		s.protocol = strings.ToUpper(strings.TrimSpace(v))
	}
	proto, ok := securityProtocols[s.protocol]
	if !ok {
		return nil, secErr(propProtocol, "unsupported security protocol %q; want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", props[propProtocol])
	}
	// Every other security key must be one this mapping knows, and only
	// where the protocol uses it.
	for _, k := range sortedKeys(props) {
		switch {
		case strings.HasPrefix(k, "sasl."):
			if !slices.Contains([]string{propMechanism, propJAAS}, k) {
				return nil, secErr(k, "has no equivalent in streamsql's Kafka client (franz-go); supported SASL properties are sasl.mechanism and sasl.jaas.config")
			}
			if !proto.sasl {
				return nil, secErr(k, "is set but security.protocol is %s, which does not use SASL; set security.protocol to SASL_PLAINTEXT or SASL_SSL, or remove it", s.protocol)
			}
		case strings.HasPrefix(k, "ssl."):
			if !slices.Contains(sslKeys, k) {
				return nil, secErr(k, "has no equivalent in streamsql's Kafka client (franz-go); supported TLS properties are %s", strings.Join(sslKeys, ", "))
			}
			if !proto.tls {
				return nil, secErr(k, "is set but security.protocol is %s, which does not use TLS; set security.protocol to SSL or SASL_SSL, or remove it", s.protocol)
			}
		}
	}
	if proto.tls {
		tc, err := tlsConfig(props, s.consumed)
		if err != nil {
			return nil, err
		}
		s.opts = append(s.opts, tc.dialer())
	}
	if proto.sasl {
		m, err := s.saslMechanism(props, get)
		if err != nil {
			return nil, err
		}
		s.opts = append(s.opts, kgo.SASL(m))
	}
	return s, nil
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// saslMechanism builds the mechanism named by sasl.mechanism (default
// GSSAPI in Java, which franz-go lacks, so it must be given) with the
// credentials of sasl.jaas.config.
func (s *security) saslMechanism(props map[string]string, get func(string) (string, bool)) (sasl.Mechanism, error) {
	mech, ok := get(propMechanism)
	mech = strings.ToUpper(strings.TrimSpace(mech))
	if !ok || mech == "" {
		return nil, secErr(propMechanism, "is required with security.protocol=%s (the Java client's default, GSSAPI/Kerberos, is not supported); set PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER", s.protocol)
	}
	var wantModule string
	switch mech {
	case "PLAIN":
		wantModule = plainModule
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		wantModule = scramModule
	case "OAUTHBEARER":
		wantModule = oauthModule
	case "GSSAPI":
		return nil, secErr(propMechanism, "GSSAPI (Kerberos) is not supported; use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER")
	default:
		return nil, secErr(propMechanism, "unsupported SASL mechanism %q; want PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER", props[propMechanism])
	}
	s.mechanism = mech
	jaas, ok := get(propJAAS)
	if !ok || strings.TrimSpace(jaas) == "" {
		return nil, secErr(propJAAS, "is required with sasl.mechanism=%s; for example '%s required username=\"...\" password=\"...\";'", mech, wantModule)
	}
	entries, err := parseJAAS(jaas)
	if err != nil {
		return nil, &SecurityError{Key: propJAAS, Reason: "cannot be parsed", Err: err}
	}
	if len(entries) != 1 {
		return nil, secErr(propJAAS, "has %d login modules; a Kafka client takes exactly one", len(entries))
	}
	e := entries[0]
	if e.module != wantModule {
		return nil, secErr(propJAAS, "login module %s does not serve sasl.mechanism=%s; use %s", e.module, mech, wantModule)
	}
	switch mech {
	case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
		allowed := []string{"username", "password"}
		if mech != "PLAIN" {
			allowed = append(allowed, "tokenauth")
		}
		if err := onlyOptions(e, allowed); err != nil {
			return nil, err
		}
		user, pass := e.options["username"], e.options["password"]
		if user == "" {
			return nil, secErr(propJAAS, "login module %s needs a non-empty username option", e.module)
		}
		if _, ok := e.options["password"]; !ok {
			return nil, secErr(propJAAS, "login module %s needs a password option", e.module)
		}
		s.user = user
		if mech == "PLAIN" {
			return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
		}
		isToken := false
		if v, ok := e.options["tokenauth"]; ok {
			switch strings.ToLower(v) {
			case "true":
				isToken = true
			case "false":
			default:
				return nil, secErr(propJAAS, "option tokenauth must be true or false")
			}
		}
		a := scram.Auth{User: user, Pass: pass, IsToken: isToken}
		if mech == "SCRAM-SHA-256" {
			return a.AsSha256Mechanism(), nil
		}
		return a.AsSha512Mechanism(), nil
	default: // OAUTHBEARER
		return s.oauthMechanism(e)
	}
}

// onlyOptions rejects a JAAS option outside allowed (by name only: values
// may be secrets).
func onlyOptions(e jaasEntry, allowed []string) error {
	for _, k := range e.order {
		if !slices.Contains(allowed, k) {
			return secErr(propJAAS, "login module %s: option %s is not supported; supported options are %s", e.module, k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// oauthMechanism builds OAUTHBEARER with a token given in the configuration:
// either option token="<JWT>" (a streamsql extension: Java has no in-line
// token option), or the unsecured-token options of Kafka's default login
// handler (unsecuredLoginStringClaim_sub and friends), from which the same
// unsigned token Java would build is made. extension_NAME="value" options
// become SASL extensions, as in Java.
func (s *security) oauthMechanism(e jaasEntry) (sasl.Mechanism, error) {
	a := oauth.Auth{Extensions: map[string]string{}}
	claims := map[string]any{}
	scope := ""
	lifetime := time.Hour
	var unsecured bool
	for _, k := range e.order {
		v := e.options[k]
		switch {
		case k == "token":
			a.Token = v
		case strings.HasPrefix(k, "extension_"):
			a.Extensions[strings.TrimPrefix(k, "extension_")] = v
		case strings.HasPrefix(k, "unsecuredLoginStringClaim_"):
			unsecured = true
			claims[strings.TrimPrefix(k, "unsecuredLoginStringClaim_")] = v
		case k == "unsecuredLoginPrincipalClaimName" || k == "unsecuredLoginScopeClaimName":
			unsecured = true
		case k == "unsecuredLoginLifetimeSeconds":
			unsecured = true
			var n int
			if _, err := fmt.Sscan(v, &n); err != nil || n <= 0 {
				return nil, secErr(propJAAS, "option unsecuredLoginLifetimeSeconds must be a positive number of seconds")
			}
			lifetime = time.Duration(n) * time.Second
		case k == "unsecuredLoginListClaim_scope":
			unsecured = true
			scope = v
		default:
			return nil, secErr(propJAAS, "login module %s: option %s is not supported; give the token with token=\"...\" or the unsecuredLoginStringClaim_sub option, plus extension_NAME options", e.module, k)
		}
	}
	if a.Token != "" && unsecured {
		return nil, secErr(propJAAS, "give either token or the unsecuredLogin* options, not both")
	}
	if a.Token == "" && !unsecured {
		return nil, secErr(propJAAS, "OAUTHBEARER needs a token in the configuration: option token=\"<JWT>\" (token endpoints and login callback handlers are not supported), or unsecuredLoginStringClaim_sub=\"<principal>\" for an unsecured token")
	}
	if unsecured {
		principalClaim := "sub"
		if v, ok := e.options["unsecuredLoginPrincipalClaimName"]; ok && v != "" {
			principalClaim = v
		}
		sub, _ := claims[principalClaim].(string)
		if sub == "" {
			return nil, secErr(propJAAS, "an unsecured OAUTHBEARER token needs the principal claim: option unsecuredLoginStringClaim_%s", principalClaim)
		}
		s.user = sub
		now := time.Now()
		claims["iat"] = float64(now.UnixMilli()) / 1000
		claims["exp"] = float64(now.Add(lifetime).UnixMilli()) / 1000
		if scope != "" {
			scopeName := "scope"
			if v, ok := e.options["unsecuredLoginScopeClaimName"]; ok && v != "" {
				scopeName = v
			}
			claims[scopeName] = strings.Split(scope, ",")
		}
		tok, err := unsecuredJWT(claims)
		if err != nil {
			return nil, &SecurityError{Key: propJAAS, Reason: "cannot build the unsecured token", Err: err}
		}
		a.Token = tok
	} else {
		s.user = jwtSubject(a.Token)
	}
	return a.AsMechanism(), nil
}

// unsecuredJWT encodes claims as an unsigned JWS ("alg":"none"), as Kafka's
// OAuthBearerUnsecuredLoginCallbackHandler does.
func unsecuredJWT(claims map[string]any) (string, error) {
	body, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"none"}`)) + "." + enc.EncodeToString(body) + ".", nil
}

// jwtSubject returns the "sub" claim of a JWT, or "" if it has none or is
// not a JWT. Only the subject is read, for error messages; the token itself
// is a secret.
func jwtSubject(tok string) string {
	parts := strings.Split(tok, ".")
	if len(parts) < 2 {
		return ""
	}
	body, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return ""
	}
	var c struct {
		Sub string `json:"sub"`
	}
	if json.Unmarshal(body, &c) != nil {
		return ""
	}
	return c.Sub
}
