package kafka

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
)

func TestSinkConfigValidation(t *testing.T) {
	base := func() sinkConfig {
		return sinkConfig{Topic: "t", Properties: map[string]string{"bootstrap.servers": "a"}, Encoder: kvEncoder,
			DeliveryGuarantee: exactlyOnce, TransactionalIDPrefix: "p", AckTracker: &memoryAckTracker{}}
	}
	if _, err := newSink(base()); err != nil {
		t.Fatal(err)
	}
	noPrefix := base()
	noPrefix.TransactionalIDPrefix = ""
	if _, err := newSink(noPrefix); err == nil || !strings.Contains(err.Error(), "sink.transactional-id-prefix") {
		t.Errorf("exactly-once without a prefix: %v", err)
	}
	noIdem := base()
	noIdem.Properties["acks"] = "1"
	if _, err := newSink(noIdem); err == nil {
		t.Errorf("exactly-once with acks=1 accepted")
	}
	noAck := base()
	noAck.AckTracker = nil
	s, err := newSink(noAck)
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
	if g, err := parseDeliveryGuarantee("EXACTLY_ONCE"); err != nil || g != exactlyOnce {
		t.Errorf("ParseDeliveryGuarantee: %v %v", g, err)
	}
	if _, err := parseDeliveryGuarantee("twice"); err == nil {
		t.Errorf("bad delivery guarantee accepted")
	}
	if n, err := parseNamingStrategy("incrementing"); err != nil || n != incrementing {
		t.Errorf("ParseNamingStrategy: %v %v", n, err)
	}
	if p, err := parsePartitioner("round-robin"); err != nil || p != partitionerRoundRobin {
		t.Errorf("ParsePartitioner: %v %v", p, err)
	}
	for _, m := range []string{"earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets"} {
		if sm, err := parseMode[startupMode](startupNames, "scan.startup.mode", m); err != nil || sm.String() != m {
			t.Errorf("ParseStartupMode(%q) = %v, %v", m, sm, err)
		}
	}
	for _, m := range []string{"unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets"} {
		if bm, err := parseMode[boundedMode](boundedNames, "scan.bounded.mode", m); err != nil || bm.String() != m {
			t.Errorf("ParseBoundedMode(%q) = %v, %v", m, bm, err)
		}
	}
	for _, k := range []string{"topic", "partition", "offset", "timestamp", "timestamp-type", "headers", "leader-epoch"} {
		if mk, err := parseMetadataKey(k); err != nil || mk.String() != k || mk.MetadataType().Kind == 0 {
			t.Errorf("ParseMetadataKey(%q) = %v, %v", k, mk, err)
		}
	}
	if _, err := parsePartitioner("com.example.MyPartitioner"); err == nil {
		t.Errorf("partitioner class accepted")
	}
}

func TestTransactionalIDs(t *testing.T) {
	id := txn.ID("orders", 3, 12)
	if id != "orders-3-12" {
		t.Fatalf("transactionalID = %q", id)
	}
	if task, slot, ok := txn.ParseID("orders", id); !ok || task != 3 || slot != 12 {
		t.Fatalf("txn.ParseID(%q) = %d %d %v", id, task, slot, ok)
	}
	for _, other := range []string{"orders-1-3-12", "orders-x-1", "orders-3", "orders-03-1", "order-3-12", "orders-3-12-"} {
		if _, _, ok := txn.ParseID("orders", other); ok {
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
		{map[string]string{"max.partition.fetch.bytes": "131072"}, 128 << 10, DefaultFetchMaxBytes},
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
