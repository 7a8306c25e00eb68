package clientprops

// Security against a real broker started by the test itself
// (kafkatest.StartSecure runs scripts/kafka.sh start --security --acl):
// SCRAM over SASL_SSL with a keytool-made JKS trust store, PLAIN over
// SASL_PLAINTEXT, mutual TLS with a PKCS12 key store, unsecured OAUTHBEARER,
// and each failure's message, scanned for secrets.

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

const (
	alicePass   = "alice-Secret-512"
	bobPass     = "bob-Secret-plain"
	clientStore = "carol-Store-Secret"
	trustPass   = "trust-Store-Secret"
	// badToken is an unsigned JWT for "mallory" that expired in 2001.
	badToken = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJtYWxsb3J5IiwiZXhwIjoxMDAwMDAwMDAwLCJpYXQiOjk5OTk5OTk5OX0."
)

// failFast bounds every failure case: an error must come back as itself,
// well before this, not as a deadline.
const failFast = 20 * time.Second

func TestSecurityBroker(t *testing.T) {
	t.Parallel() // most of its time is the broker's start
	sb := kafkatest.StartSecure(t, kafkatest.SecureOptions{
		ScramUsers: map[string]string{"alice": alicePass},
		PlainUsers: map[string]string{"bob": bobPass},
		ACL:        true,
	})
	dir := sb.Dir
	trustJKS := sb.CA.KeytoolTrustStore(t, filepath.Join(dir, "client-trust.jks"), trustPass)
	carol := sb.CA.Issue(t, "carol")
	carolP12 := kafkatest.WriteFile(t, dir, "carol.p12", carol.PKCS12(t, clientStore))

	topic := sb.Plain.Topic(t, 1)
	denied := sb.Plain.Topic(t, 1)
	adm := sb.Plain.Admin(t)
	users := []string{"User:alice", "User:bob", "User:carol", "User:dave"}
	acls := kadm.NewACLs().Allow(users...).AllowHosts().Topics(topic).ResourcePatternType(kadm.ACLPatternLiteral).
		Operations(kadm.OpWrite, kadm.OpRead, kadm.OpDescribe)
	// alice may describe the denied topic (so that the broker says
	// "not authorized" rather than "unknown topic") but not write to it.
	describeOnly := kadm.NewACLs().Allow("User:alice").AllowHosts().Topics(denied).ResourcePatternType(kadm.ACLPatternLiteral).
		Operations(kadm.OpDescribe)
	// Exactly-once sinks need WRITE and DESCRIBE on their transactional ids.
	txnACLs := kadm.NewACLs().Allow("User:alice").AllowHosts().TransactionalIDs("eos-").ResourcePatternType(kadm.ACLPatternPrefixed).
		Operations(kadm.OpWrite, kadm.OpDescribe)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, b := range []*kadm.ACLBuilder{acls, describeOnly, txnACLs} {
		res, err := adm.CreateACLs(ctx, b)
		if err != nil {
			t.Fatalf("CreateACLs: %v", err)
		}
		for _, r := range res {
			if r.Err != nil {
				t.Fatalf("CreateACLs %s: %v", r.Principal, r.Err)
			}
		}
	}

	scram := func(user, pass string) map[string]string {
		return map[string]string{
			"security.protocol":       "SASL_SSL",
			"sasl.mechanism":          "SCRAM-SHA-512",
			"sasl.jaas.config":        scramModule + ` required username="` + user + `" password="` + pass + `";`,
			"ssl.truststore.location": trustJKS,
			"ssl.truststore.password": trustPass,
		}
	}
	plainProps := map[string]string{
		"security.protocol": "SASL_PLAINTEXT",
		"sasl.mechanism":    "PLAIN",
		"sasl.jaas.config":  plainModule + ` required username="bob" password="` + bobPass + `";`,
	}
	mtls := map[string]string{
		"security.protocol":       "SSL",
		"ssl.truststore.location": trustJKS,
		"ssl.truststore.password": trustPass,
		"ssl.keystore.location":   carolP12,
		"ssl.keystore.type":       "PKCS12",
		"ssl.keystore.password":   clientStore,
	}
	oauthProps := map[string]string{
		"security.protocol": "SASL_PLAINTEXT",
		"sasl.mechanism":    "OAUTHBEARER",
		"sasl.jaas.config":  oauthModule + ` required unsecuredLoginStringClaim_sub="dave";`,
	}

	for _, tc := range []struct {
		name  string
		addr  string
		props map[string]string
	}{
		{"SCRAM-SHA-512 over SASL_SSL with a JKS trust store", sb.SASLSSL, scram("alice", alicePass)},
		{"PLAIN over SASL_PLAINTEXT", sb.SASLPlaintext, plainProps},
		{"mutual TLS with a PKCS12 key store", sb.SSL, mtls},
		{"unsecured OAUTHBEARER over SASL_PLAINTEXT", sb.SASLPlaintext, oauthProps},
	} {
		t.Run(tc.name, func(t *testing.T) {
			value := "v-" + strings.ReplaceAll(tc.name, " ", "-")
			cl := secureClient(t, tc.addr, tc.props, kgo.DefaultProduceTopic(topic))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := cl.ProduceSync(ctx, kgo.StringRecord(value)).FirstErr(); err != nil {
				t.Fatalf("produce: %v", DescribeAuthError(err, authContextFromProperties(tc.props)))
			}
			consumer := secureClient(t, tc.addr, tc.props, kgo.ConsumeTopics(topic),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(200*time.Millisecond))
			for !slices.Contains(kafkatest.Values(consumer.PollFetches(ctx).Records()), value) {
				if ctx.Err() != nil {
					t.Fatalf("did not read back %q over the secure listener", value)
				}
			}
		})
	}

	t.Run("transactions over SASL_SSL with SCRAM-SHA-512", func(t *testing.T) {
		props := scram("alice", alicePass)
		cl := secureClient(t, sb.SASLSSL, props, kgo.TransactionalID("eos-"+topic), kgo.DefaultProduceTopic(topic))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, kgo.StringRecord("committed")).FirstErr(); err != nil {
			t.Fatalf("produce: %v", DescribeAuthError(err, authContextFromProperties(props)))
		}
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatalf("commit: %v", err)
		}
		consumer := secureClient(t, sb.SASLSSL, props, kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(200*time.Millisecond))
		for !slices.Contains(kafkatest.Values(consumer.PollFetches(ctx).Records()), "committed") {
			if ctx.Err() != nil {
				t.Fatal("did not read the committed record with read_committed")
			}
		}
	})

	// Failure cases: each must return its explanation, not a deadline.
	var messages []string
	var rogueKey string
	fail := func(t *testing.T, err error, want ...string) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("hung until the deadline instead of failing: %v", err)
		}
		messages = append(messages, err.Error())
		t.Log(err)
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("message lacks %q:\n%v", w, err)
			}
		}
	}
	produce := func(props map[string]string, addr, topic string, ac AuthContext, opts ...kgo.Opt) error {
		cl := secureClient(t, addr, props, append(opts, kgo.DefaultProduceTopic(topic))...)
		ctx, cancel := context.WithTimeout(context.Background(), failFast)
		defer cancel()
		if err := CheckConnection(ctx, cl, ac); err != nil {
			return err
		}
		var err error
		if id, _ := cl.OptValue(kgo.TransactionalID).(string); id != "" {
			if err = cl.BeginTransaction(); err == nil {
				err = cl.ProduceSync(ctx, kgo.StringRecord("x")).FirstErr()
			}
		} else {
			err = cl.ProduceSync(ctx, kgo.StringRecord("x")).FirstErr()
		}
		return DescribeAuthError(err, ac)
	}

	t.Run("wrong password", func(t *testing.T) {
		props := scram("alice", "wrong-"+alicePass)
		fail(t, produce(props, sb.SASLSSL, topic, authContextFromProperties(props)),
			`authentication failed for user "alice" with mechanism SCRAM-SHA-512`)
	})
	t.Run("unknown user", func(t *testing.T) {
		props := scram("eve", alicePass)
		fail(t, produce(props, sb.SASLSSL, topic, authContextFromProperties(props)),
			`authentication failed for user "eve" with mechanism SCRAM-SHA-512`)
	})
	t.Run("wrong PLAIN password", func(t *testing.T) {
		props := map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
			"sasl.jaas.config": plainModule + ` required username="bob" password="` + alicePass + `";`}
		fail(t, produce(props, sb.SASLPlaintext, topic, authContextFromProperties(props)),
			`authentication failed for user "bob" with mechanism PLAIN`)
	})
	t.Run("untrusted broker certificate", func(t *testing.T) {
		other := kafkatest.NewCA(t, "not the broker's CA")
		props := scram("alice", alicePass)
		props["ssl.truststore.location"] = kafkatest.WriteFile(t, dir, "other.pem", other.PEM)
		props["ssl.truststore.type"] = "PEM"
		delete(props, "ssl.truststore.password")
		err := produce(props, sb.SASLSSL, topic, authContextFromProperties(props))
		var te *TLSError
		if !errors.As(err, &te) {
			t.Errorf("got %v, want a *TLSError", err)
		}
		fail(t, err, `certificate "CN=broker,O=streamsql tests"`, "is not signed by any certificate in ssl.truststore.location")
	})
	t.Run("client certificate missing", func(t *testing.T) {
		props := map[string]string{"security.protocol": "SSL", "ssl.truststore.location": trustJKS, "ssl.truststore.password": trustPass}
		fail(t, produce(props, sb.SSL, topic, AuthContext{}), "requires a client certificate")
	})
	t.Run("client certificate of an untrusted CA", func(t *testing.T) {
		rogue := kafkatest.NewCA(t, "rogue CA").Issue(t, "mallory")
		props := map[string]string{"security.protocol": "SSL", "ssl.truststore.location": trustJKS, "ssl.truststore.password": trustPass,
			"ssl.keystore.type": "PEM", "ssl.keystore.certificate.chain": string(rogue.CertPEM()), "ssl.keystore.key": string(rogue.KeyPEM(t))}
		fail(t, produce(props, sb.SSL, topic, AuthContext{}), `the broker rejected the client certificate "CN=mallory,O=streamsql tests"`,
			"from ssl.keystore.certificate.chain")
		rogueKey = string(rogue.KeyPEM(t))
	})
	t.Run("invalid OAUTHBEARER token", func(t *testing.T) {
		props := map[string]string{"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "OAUTHBEARER",
			"sasl.jaas.config": oauthModule + ` required token="` + badToken + `";`}
		fail(t, produce(props, sb.SASLPlaintext, topic, authContextFromProperties(props)),
			`authentication failed for user "mallory" with mechanism OAUTHBEARER`)
	})
	t.Run("SASL_SSL client at the PLAINTEXT listener", func(t *testing.T) {
		props := scram("alice", alicePass)
		err := produce(props, sb.Plain.Addr, topic, authContextFromProperties(props))
		var te *TLSError
		if !errors.As(err, &te) {
			t.Errorf("got %v, want a *TLSError", err)
		}
		fail(t, err, "listener probably does not use TLS")
	})
	t.Run("PLAINTEXT client at the SASL_PLAINTEXT listener", func(t *testing.T) {
		props := map[string]string{"security.protocol": "PLAINTEXT"}
		fail(t, produce(props, sb.SASLPlaintext, topic, authContextFromProperties(props)),
			"expects another security protocol than properties.security.protocol=PLAINTEXT")
	})
	t.Run("mechanism not enabled", func(t *testing.T) {
		props := scram("alice", alicePass)
		props["security.protocol"] = "SASL_PLAINTEXT"
		delete(props, "ssl.truststore.location")
		delete(props, "ssl.truststore.password")
		fail(t, produce(props, sb.SASLPlaintext, topic, authContextFromProperties(props)),
			"does not enable SASL mechanism SCRAM-SHA-512")
	})
	t.Run("write denied", func(t *testing.T) {
		props := scram("alice", alicePass)
		ac := authContextFromProperties(props)
		ac.Topic, ac.Operation = denied, OpProduce
		fail(t, produce(props, sb.SASLSSL, denied, ac), "grant User:alice the ACL WRITE on topic "+denied)
	})
	t.Run("transactional id denied", func(t *testing.T) {
		props := scram("alice", alicePass)
		ac := authContextFromProperties(props)
		ac.Topic, ac.TransactionalID, ac.Operation = topic, "job-txn-0", OpTransaction
		fail(t, produce(props, sb.SASLSSL, topic, ac, kgo.TransactionalID("job-txn-0")),
			"grant User:alice the ACL WRITE on transactional id job-txn-0")
	})
	t.Run("group denied", func(t *testing.T) {
		props := scram("alice", alicePass)
		ac := authContextFromProperties(props)
		ac.Group, ac.Operation = "job-group", OpConsume
		cl := secureClient(t, sb.SASLSSL, props)
		ctx, cancel := context.WithTimeout(context.Background(), failFast)
		defer cancel()
		resp, err := kadm.NewClient(cl).FetchOffsets(ctx, "job-group")
		if err == nil {
			err = resp.Error()
		}
		fail(t, DescribeAuthError(err, ac), "grant User:alice the ACL READ on group job-group")
	})
	t.Run("describing transactional ids denied", func(t *testing.T) {
		props := scram("alice", alicePass)
		ac := authContextFromProperties(props)
		ac.TransactionalID, ac.Operation = "job-txn", OpListTransactions
		cl := secureClient(t, sb.SASLSSL, props)
		ctx, cancel := context.WithTimeout(context.Background(), failFast)
		defer cancel()
		described, err := kadm.NewClient(cl).DescribeTransactions(ctx, "job-txn-0")
		if err == nil {
			for _, d := range described {
				if d.Err != nil {
					err = d.Err
				}
			}
		}
		fail(t, DescribeAuthError(err, ac), "grant User:alice the ACL DESCRIBE on the transactional ids (prefix job-txn)")
	})
	t.Run("cluster configs denied", func(t *testing.T) {
		props := scram("alice", alicePass)
		ac := authContextFromProperties(props)
		ac.Operation = OpDescribeClusterConfigs
		cl := secureClient(t, sb.SASLSSL, props)
		ctx, cancel := context.WithTimeout(context.Background(), failFast)
		defer cancel()
		rcs, err := kadm.NewClient(cl).DescribeBrokerConfigs(ctx)
		if err == nil {
			for _, rc := range rcs {
				if rc.Err != nil {
					err = rc.Err
				}
			}
		}
		fail(t, DescribeAuthError(err, ac), "grant User:alice the ACL DESCRIBE_CONFIGS on the cluster")
	})

	t.Run("no secret in any message", func(t *testing.T) {
		if len(messages) < 8 {
			t.Fatalf("only %d failure messages collected", len(messages))
		}
		for _, m := range messages {
			for _, s := range []string{alicePass, bobPass, clientStore, trustPass, badToken, rogueKey, "PRIVATE KEY"} {
				if strings.Contains(m, s) {
					t.Errorf("message shows a secret: %s", m)
				}
			}
		}
	})
}

// secureClient is a client of addr configured by the security properties
// props, closed when the test ends.
func secureClient(t *testing.T, addr string, props map[string]string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	sec, _, err := securityOptions(props)
	if err != nil {
		t.Fatalf("securityOptions: %v", err)
	}
	cl, err := kgo.NewClient(append(append([]kgo.Opt{kgo.SeedBrokers(addr)}, sec...), opts...)...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}
