package kafka

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
)

func TestParseProperties(t *testing.T) {
	s, err := parseProperties(map[string]string{
		"bootstrap.servers": "a:9092, b:9092", "group.id": "g", "isolation.level": "read_committed",
		"auto.offset.reset": "latest", "transaction.timeout.ms": "60000", "linger.ms": "10", "batch.size": "65536",
		"compression.type": "zstd", "acks": "all", "enable.idempotence": "true", "fetch.min.bytes": "1",
		"fetch.max.bytes": "1048576", "max.partition.fetch.bytes": "1048576", "fetch.max.wait.ms": "100",
		"request.timeout.ms": "30000", "max.in.flight.requests.per.connection": "5", "client.id": "c",
		"enable.auto.commit": "false", "security.protocol": "PLAINTEXT", "max.poll.records": "500",
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.seeds, ",") != "a:9092,b:9092" || s.groupID != "g" || !s.readCommitted || s.autoOffsetReset != "latest" ||
		s.transactionTimeout != time.Minute || s.maxPollRecords != 500 {
		t.Fatalf("parsed %+v", s)
	}
	if len(s.producer) == 0 || len(s.consumer) == 0 || len(s.common) == 0 {
		t.Fatalf("options not split by role: %+v", s)
	}
}

func TestParsePropertiesErrors(t *testing.T) {
	for _, tc := range []struct {
		props    map[string]string
		key      string
		security bool // a *SecurityError from the security mapping
	}{
		{map[string]string{}, "bootstrap.servers", false},
		{map[string]string{"bootstrap.servers": "a", "no.such.property": "1"}, "no.such.property", false},
		{map[string]string{"bootstrap.servers": "a", "sasl.jaas.config": "secret"}, "sasl.jaas.config", true},
		{map[string]string{"bootstrap.servers": "a", "security.protocol": "SASL_SSL"}, "sasl.mechanism", true},
		{map[string]string{"bootstrap.servers": "a", "transactional.id": "x"}, "transactional.id", false},
		{map[string]string{"bootstrap.servers": "a", "isolation.level": "serializable"}, "isolation.level", false},
		{map[string]string{"bootstrap.servers": "a", "linger.ms": "soon"}, "linger.ms", false},
		{map[string]string{"bootstrap.servers": "a", "acks": "1", "enable.idempotence": "true"}, "acks", false},
		{map[string]string{"bootstrap.servers": "a", "enable.auto.commit": "true"}, "enable.auto.commit", false},
		{map[string]string{"bootstrap.servers": "a", "max.in.flight.requests.per.connection": "6"}, "max.in.flight.requests.per.connection", false},
	} {
		_, err := parseProperties(tc.props)
		var pe *PropertyError
		var se *SecurityError
		switch {
		case tc.security && (!errors.As(err, &se) || se.Key != tc.key):
			t.Errorf("parseProperties(%v) = %v, want a SecurityError for %s", tc.props, err, tc.key)
			continue
		case !tc.security && (!errors.As(err, &pe) || pe.Key != tc.key):
			t.Errorf("parseProperties(%v) = %v, want a PropertyError for %s", tc.props, err, tc.key)
			continue
		}
		if !strings.Contains(err.Error(), "properties."+tc.key) {
			t.Errorf("error %q does not name properties.%s", err, tc.key)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("error %q shows a secret", err)
		}
	}
}

func TestSinkConfigValidation(t *testing.T) {
	base := func() SinkConfig {
		return SinkConfig{Topic: "t", Properties: map[string]string{"bootstrap.servers": "a"}, Encoder: kvEncoder,
			DeliveryGuarantee: ExactlyOnce, TransactionalIDPrefix: "p", AckTracker: &MemoryAckTracker{}}
	}
	if _, err := NewSink(base()); err != nil {
		t.Fatal(err)
	}
	noPrefix := base()
	noPrefix.TransactionalIDPrefix = ""
	if _, err := NewSink(noPrefix); err == nil || !strings.Contains(err.Error(), "sink.transactional-id-prefix") {
		t.Errorf("exactly-once without a prefix: %v", err)
	}
	noIdem := base()
	noIdem.Properties["acks"] = "1"
	if _, err := NewSink(noIdem); err == nil {
		t.Errorf("exactly-once with acks=1 accepted")
	}
	noAck := base()
	noAck.AckTracker = nil
	s, err := NewSink(noAck)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(context.Background(), task(0)); err == nil || !strings.Contains(err.Error(), "SetAckTracker") {
		t.Errorf("Open without an ack tracker: %v", err)
	}
	// A runtime hands its tracker over through an interface of its own.
	type runtimeSide interface {
		SetAckTracker(interface {
			IsDurablyCommitted(connector.Committable) bool
		})
	}
	if _, ok := s.(runtimeSide); !ok {
		t.Errorf("TransactionalSink.SetAckTracker does not match the unnamed interface")
	}
}

func TestParseEnums(t *testing.T) {
	if g, err := ParseDeliveryGuarantee("EXACTLY_ONCE"); err != nil || g != ExactlyOnce {
		t.Errorf("ParseDeliveryGuarantee: %v %v", g, err)
	}
	if _, err := ParseDeliveryGuarantee("twice"); err == nil {
		t.Errorf("bad delivery guarantee accepted")
	}
	if n, err := ParseNamingStrategy("incrementing"); err != nil || n != Incrementing {
		t.Errorf("ParseNamingStrategy: %v %v", n, err)
	}
	if p, err := ParsePartitioner("round-robin"); err != nil || p != RoundRobinPartitioner {
		t.Errorf("ParsePartitioner: %v %v", p, err)
	}
	for _, m := range []string{"earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets"} {
		if sm, err := ParseStartupMode(m); err != nil || sm.String() != m {
			t.Errorf("ParseStartupMode(%q) = %v, %v", m, sm, err)
		}
	}
	for _, m := range []string{"unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets"} {
		if bm, err := ParseBoundedMode(m); err != nil || bm.String() != m {
			t.Errorf("ParseBoundedMode(%q) = %v, %v", m, bm, err)
		}
	}
	for _, k := range []string{"topic", "partition", "offset", "timestamp", "timestamp-type", "headers", "leader-epoch"} {
		if mk, err := ParseMetadataKey(k); err != nil || mk.String() != k || mk.MetadataType().Kind == 0 {
			t.Errorf("ParseMetadataKey(%q) = %v, %v", k, mk, err)
		}
	}
	if _, err := ParsePartitioner("com.example.MyPartitioner"); err == nil {
		t.Errorf("partitioner class accepted")
	}
}

func TestTransactionalIDs(t *testing.T) {
	id := transactionalID("orders", 3, 12)
	if id != "orders-3-12" {
		t.Fatalf("transactionalID = %q", id)
	}
	if task, slot, ok := parseTransactionalID("orders", id); !ok || task != 3 || slot != 12 {
		t.Fatalf("parseTransactionalID(%q) = %d %d %v", id, task, slot, ok)
	}
	for _, other := range []string{"orders-1-3-12", "orders-x-1", "orders-3", "orders-03-1", "order-3-12", "orders-3-12-"} {
		if _, _, ok := parseTransactionalID("orders", other); ok {
			t.Errorf("%q taken as one of prefix orders' ids", other)
		}
	}
}

func TestFetchSizes(t *testing.T) {
	for _, tc := range []struct {
		props           map[string]string
		part, totalWant int32
	}{
		{map[string]string{}, DefaultPartitionFetchBytes, DefaultFetchMaxBytes},
		{map[string]string{"max.partition.fetch.bytes": "4194304"}, 4 << 20, 4 << 20}, // the total follows
		{map[string]string{"fetch.max.bytes": "1048576"}, DefaultPartitionFetchBytes, 1 << 20},
		{map[string]string{"fetch.max.bytes": "52428800", "max.partition.fetch.bytes": "1048576"}, 1 << 20, 50 << 20},
	} {
		props := map[string]string{"bootstrap.servers": "127.0.0.1:1"}
		for k, v := range tc.props {
			props[k] = v
		}
		s, err := parseProperties(props)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(s.seeds...)}, s.fetchSizes()...)...)
		if err != nil {
			t.Fatal(err)
		}
		part, total := cl.OptValue(kgo.FetchMaxPartitionBytes), cl.OptValue(kgo.FetchMaxBytes)
		cl.Close()
		if part != tc.part || total != tc.totalWant {
			t.Errorf("%v: client fetch sizes partition %v total %v, want %d and %d", tc.props, part, total, tc.part, tc.totalWant)
		}
	}
}
