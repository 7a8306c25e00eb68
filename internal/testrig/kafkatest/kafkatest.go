// Package kafkatest gives integration tests a real Apache Kafka broker: its
// address, a fresh topic per test, and clients that are closed when the test
// ends.
//
// The brokers are started outside the test binary by scripts/kafka.sh (the
// README's test command, scripts/test.sh, starts them and exports their
// addresses):
//
//	STREAMSQL_KAFKA_BOOTSTRAP      a broker with Kafka 4.x defaults
//	                               (transaction version 2)
//	STREAMSQL_KAFKA_BOOTSTRAP_TV1  a broker formatted with
//	                               transaction.version=1, as Kafka 3.x
//
// With CI=true a test that needs a broker fails when its variable is unset;
// otherwise it is skipped with a message saying how to start one.
package kafkatest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Environment variables that carry broker addresses.
const (
	EnvBootstrap    = "STREAMSQL_KAFKA_BOOTSTRAP"
	EnvBootstrapTV1 = "STREAMSQL_KAFKA_BOOTSTRAP_TV1"
)

// Broker is a running broker a test may use.
type Broker struct {
	// Name says which broker it is ("tv2" or "tv1"), for subtest names.
	Name string
	// Addr is the bootstrap address, host:port.
	Addr string
	// TransactionVersion is the transaction.version the cluster was
	// formatted with, as the broker reports it.
	TransactionVersion int16
}

// Require returns the default broker (transaction version 2).
func Require(t testing.TB) Broker {
	t.Helper()
	return require(t, "tv2", EnvBootstrap, "")
}

// RequireTV1 returns the broker formatted with transaction.version=1.
func RequireTV1(t testing.TB) Broker {
	t.Helper()
	return require(t, "tv1", EnvBootstrapTV1, "--tv1")
}

// RequireAll returns both brokers, the default one first. Recovery tests run
// against each.
func RequireAll(t testing.TB) []Broker {
	t.Helper()
	return []Broker{Require(t), RequireTV1(t)}
}

func require(t testing.TB, name, env, flag string) Broker {
	t.Helper()
	addr := os.Getenv(env)
	if addr == "" {
		msg := fmt.Sprintf("%s is not set: this test needs a real Kafka broker. Run the tests with scripts/test.sh, "+
			"or start one with `eval \"$(scripts/kafka.sh start %s)\"` and export %s=$STREAMSQL_KAFKA_BOOTSTRAP", env, flag, env)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	tv, err := TransactionVersion(context.Background(), addr)
	if err != nil {
		t.Fatalf("broker %s (%s) does not answer: %v", addr, env, err)
	}
	return Broker{Name: name, Addr: addr, TransactionVersion: tv}
}

// TransactionVersion asks the broker at addr for the cluster's finalized
// transaction.version feature level (0 when it is not finalized).
func TransactionVersion(ctx context.Context, addr string) (int16, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		return 0, fmt.Errorf("ApiVersions: %w", err)
	}
	for _, f := range resp.FinalizedFeatures {
		if f.Name == "transaction.version" {
			return f.MaxVersionLevel, nil
		}
	}
	return 0, nil
}

// Client returns a client of b with the given options; it is closed when
// the test ends.
func (b Broker) Client(t testing.TB, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.Addr)}, opts...)...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// Admin returns an admin client of b, closed when the test ends.
func (b Broker) Admin(t testing.TB) *kadm.Client {
	t.Helper()
	return kadm.NewClient(b.Client(t))
}

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// UniqueName returns a name made of the test's name and a random suffix,
// safe for topics and transactional ids.
func UniqueName(t testing.TB) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := strings.Trim(unsafeChars.ReplaceAllString(t.Name(), "-"), "-")
	if len(name) > 150 {
		name = name[:150]
	}
	return name + "-" + hex.EncodeToString(b[:])
}

// Topic creates a topic with a unique name and the given number of
// partitions on b, and deletes it when the test ends.
func (b Broker) Topic(t testing.TB, partitions int32) string {
	t.Helper()
	adm := b.Admin(t)
	topic := UniqueName(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := adm.CreateTopic(ctx, partitions, 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("creating topic %s: %v", topic, err)
	}
	// Cleanups run last-in first-out, so adm is still open here.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = adm.DeleteTopic(ctx, topic)
	})
	b.AwaitPartitions(t, topic, partitions)
	return topic
}

// Consume reads topic from its start, as a direct (group-less) consumer
// with the given isolation, until done reports true for the records read so
// far or timeout passes; it returns what it read. Use it with a done that
// looks for an expected count or a sentinel record.
func (b Broker) Consume(t testing.TB, topic string, readCommitted bool, timeout time.Duration, done func([]*kgo.Record) bool) []*kgo.Record {
	t.Helper()
	iso := kgo.ReadUncommitted()
	if readCommitted {
		iso = kgo.ReadCommitted()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(iso),
		kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var recs []*kgo.Record
	for !done(recs) {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			break
		}
		for _, e := range fs.Errors() {
			t.Fatalf("consuming %s: partition %d: %v", topic, e.Partition, e.Err)
		}
		recs = append(recs, fs.Records()...)
	}
	return recs
}

// Values returns the values of recs as strings.
func Values(recs []*kgo.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(r.Value)
	}
	return out
}
