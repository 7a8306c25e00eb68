package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connector/connectortest"
	"github.com/streamsql/streamsql/factory"
	_ "github.com/streamsql/streamsql/formats/json"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/types"
)

// The connector conformance suite (package connectortest) on the kafka and
// upsert-kafka connectors, created through the factory registry as the
// planner creates them, against the real brokers.

// conformanceRows is the number of rows of each check: enough for several
// fetches over three partitions, few enough to keep the suite quick.
const conformanceRows = 60

// conformanceTable is a table of connectortest.Fields over topic, with
// primary key id for upsert-kafka.
func conformanceTable(b kafkatest.Broker, topic string, kv ...string) factory.Table {
	opts := map[string]string{"properties.bootstrap.servers": b.Addr, "topic": topic}
	for i := 0; i+1 < len(kv); i += 2 {
		opts[kv[i]] = kv[i+1]
	}
	schema := factory.PhysicalSchema(connectortest.Fields())
	if opts["connector"] == "upsert-kafka" {
		schema.PrimaryKey = []string{"id"}
	}
	return factory.Table{Name: "cat.db.conformance", Options: opts, Schema: schema}
}

// jsonRecord is a row of connectortest.Fields as a record: key {"id":..},
// value {"id":..,"name":..}, as another Kafka client would write it.
func jsonRecord(topic string, r types.Row) *kgo.Record {
	id := r.Fields[0].Int64()
	key := fmt.Appendf(nil, `{"id":%d}`, id)
	value, _ := json.Marshal(map[string]any{"id": id, "name": r.Fields[1].Str()})
	return &kgo.Record{Topic: topic, Key: key, Value: value}
}

// decodeRecord is the inverse of jsonRecord's value.
func decodeRecord(t testing.TB, rec *kgo.Record) types.Row {
	var v struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(rec.Value, &v); err != nil {
		t.Fatalf("record at %s/%d@%d: %v", rec.Topic, rec.Partition, rec.Offset, err)
	}
	return types.Row{Fields: []types.Value{types.Int64(v.ID), types.Str(v.Name)}}
}

// produceInput writes rows to a new topic of three partitions, in two
// committed transactions with an aborted one between them, so that readers
// meet transaction markers and aborted records.
func produceInput(t testing.TB, b kafkatest.Broker, rows []types.Row) string {
	t.Helper()
	topic := b.Topic(t, 3)
	cl := b.Client(t, kgo.TransactionalID(kafkatest.UniqueName(t)), kgo.DefaultProduceTopic(topic))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	half := len(rows) / 2
	aborted := []types.Row{{Fields: []types.Value{types.Int64(-1), types.Str("aborted")}}}
	for i, batch := range [][]types.Row{rows[:half], aborted, rows[half:]} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		// One record per produce request: a batch each, so that small
		// fetches return few rows.
		for _, r := range batch {
			if err := cl.ProduceSync(ctx, jsonRecord(topic, r)).FirstErr(); err != nil {
				t.Fatalf("producing the input: %v", err)
			}
		}
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(i != 1)); err != nil {
			t.Fatalf("ending the input's transaction: %v", err)
		}
	}
	// A commit returns before the broker has written its markers; a
	// bounded read_committed source resolves its end at the last stable
	// offset when it starts, so without this wait it could stop short.
	b.AwaitStable(t, topic)
	return topic
}

// sourceHarness describes a source of table options kv over a topic that
// holds the input.
func sourceHarness(b kafkatest.Broker, kv ...string) connectortest.SourceHarness {
	return connectortest.SourceHarness{
		N: conformanceRows,
		Input: func(t testing.TB, rows []types.Row) func() (connector.Source, error) {
			tbl := conformanceTable(b, produceInput(t, b, rows), kv...)
			return func() (connector.Source, error) {
				src, _, err := factory.Default.CreateSource(context.Background(), tbl)
				return src, err
			}
		},
	}
}

// committed reads topic with read_committed from its start until it has
// seen expect records and then for half a second more (so that repeated
// records show), or for a second when it sees fewer.
func committed(t testing.TB, b kafkatest.Broker, topic string, expect int) []types.Row {
	t.Helper()
	cl := b.Client(t, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(100*time.Millisecond))
	defer cl.Close()
	wait := time.Second
	if expect > 0 {
		wait = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var out []types.Row
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		for _, e := range fs.Errors() {
			if ctx.Err() == nil {
				t.Fatalf("consuming %s: partition %d: %v", topic, e.Partition, e.Err)
			}
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Value != nil {
				out = append(out, decodeRecord(t, r))
			}
		})
		if expect > 0 && len(out) >= expect {
			expect = 0
			cancel()
			ctx, cancel = context.WithTimeout(context.Background(), 500*time.Millisecond)
		}
	}
	cancel()
	return out
}

// sinkHarness describes a sink of table options kv over a new topic per
// check. Break makes the topic refuse records of more than 16 bytes.
func sinkHarness(b kafkatest.Broker, kv ...string) connectortest.SinkHarness {
	return connectortest.SinkHarness{
		N: conformanceRows,
		New: func(t testing.TB) connectortest.SinkFixture {
			topic := b.Topic(t, 3)
			tbl := conformanceTable(b, topic, kv...)
			return connectortest.SinkFixture{
				NewSink: func() (connector.Sink, error) {
					sink, _, err := factory.Default.CreateSink(context.Background(), tbl)
					return sink, err
				},
				Committed: func(t testing.TB, expect int) []types.Row { return committed(t, b, topic, expect) },
				Break: func(t testing.TB) {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					small := "16"
					resp, err := b.Admin(t).AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "max.message.bytes", Value: &small}}, topic)
					if err == nil {
						err = resp[0].Err
					}
					if err != nil {
						t.Fatalf("limiting the topic's record size: %v", err)
					}
					awaitTopicConfig(t, b, topic, "max.message.bytes", small)
				},
			}
		},
	}
}

// awaitTopicConfig waits until the broker describes topic's config key
// with value: AlterConfigs returns when the controller has the change,
// before the broker applies it.
func awaitTopicConfig(t testing.TB, b kafkatest.Broker, topic, key, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	adm := b.Admin(t)
	for {
		rcs, err := adm.DescribeTopicConfigs(ctx, topic)
		if err == nil && len(rcs) == 1 && rcs[0].Err == nil {
			for _, c := range rcs[0].Configs {
				if c.Key == key && c.Value != nil && *c.Value == value {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("topic %s: %s is not %s after 30s (last error: %v)", topic, key, value, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestConformanceSource runs the suite on kafka sources (unbounded and
// bounded, read_committed over transactional input) and on an upsert-kafka
// source.
func TestConformanceSource(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	for _, tc := range []struct {
		name string
		kv   []string
	}{
		{"kafka-unbounded", []string{"connector", "kafka", "format", "json", "scan.startup.mode", "earliest-offset",
			"properties.isolation.level", "read_committed"}},
		// Small fetches: many Reads, interrupted between and during
		// fetches.
		{"kafka-small-fetches", []string{"connector", "kafka", "format", "json", "scan.startup.mode", "earliest-offset",
			"properties.isolation.level", "read_committed", "properties.max.partition.fetch.bytes", "64",
			"properties.fetch.max.bytes", "64"}},
		{"kafka-bounded", []string{"connector", "kafka", "format", "json", "scan.startup.mode", "earliest-offset",
			"scan.bounded.mode", "latest-offset", "properties.isolation.level", "read_committed"}},
		{"upsert-kafka", []string{"connector", "upsert-kafka", "key.format", "json", "value.format", "json",
			"properties.isolation.level", "read_committed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			connectortest.RunSource(t, sourceHarness(b, tc.kv...))
		})
	}
}

// TestConformanceSink runs the suite on kafka sinks: exactly-once on both
// transaction versions, at-least-once, and upsert-kafka exactly-once.
func TestConformanceSink(t *testing.T) {
	t.Parallel()
	type sinkCase struct {
		name string
		b    kafkatest.Broker
		kv   []string
	}
	var cases []sinkCase
	for _, b := range kafkatest.RequireAll(t) {
		cases = append(cases, sinkCase{"exactly-once-" + b.Name, b, []string{"connector", "kafka", "format", "json",
			"sink.delivery-guarantee", "exactly-once"}})
	}
	b := kafkatest.Require(t)
	cases = append(cases,
		sinkCase{"at-least-once", b, []string{"connector", "kafka", "format", "json"}},
		sinkCase{"upsert-kafka-exactly-once", b, []string{"connector", "upsert-kafka", "key.format", "json",
			"value.format", "json", "sink.delivery-guarantee", "exactly-once"}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			connectortest.RunSink(t, sinkHarness(tc.b, tc.kv...))
		})
	}
}
