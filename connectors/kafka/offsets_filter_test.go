package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestOffsetsInTransactionFilterDropsAll runs a chained exactly-once
// INSERT without checkpoint files (the source's offsets go in the sink's
// transactions) whose WHERE drops every row: with no row to write, the
// job must still commit its source's offsets, or a restart would read
// the topic again from the start and the group's lag would never fall.
// Both transaction versions.
func TestOffsetsInTransactionFilterDropsAll(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) { testOffsetsInTransactionFilterDropsAll(t, b, nil) })
}

// TestOffsetsInTransactionFilterDropsAllCrash is the same job SIGKILLed
// right after it pre-committed its first offsets-only transaction (which
// the next start aborts: no checkpoint file records it), then right
// after it committed one, and then run to its end: the group ends at the
// end of the input and nothing reaches the sink.
func TestOffsetsInTransactionFilterDropsAllCrash(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		testOffsetsInTransactionFilterDropsAll(t, b, []string{"after-pre-commit@1:kill", "after-commit@1:kill"})
	})
}

// testOffsetsInTransactionFilterDropsAll runs the job once per kill rule
// (each must kill it), then to its end.
func testOffsetsInTransactionFilterDropsAll(t *testing.T, b kafkatest.Broker, kills []string) {
	in, out := b.Topic(t, 2), b.Topic(t, 2)
	name := kafkatest.UniqueName(t)
	var recs []*kgo.Record
	for i := range 400 {
		recs = append(recs, &kgo.Record{Topic: in, Partition: int32(i % 2), Value: fmt.Appendf(nil, `{"id":%d,"tag":"drop"}`, i)})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner())).ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	sql := `SET 'execution.checkpointing.interval' = '30ms';
CREATE TABLE src (id BIGINT, tag STRING) WITH ('connector' = 'kafka', 'topic' = '` + in + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'group-offsets', 'properties.group.id' = '` + name + `-g', 'properties.auto.offset.reset' = 'earliest',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json', 'scan.parallelism' = '2');
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '` + out + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + name + `', 'sink.parallelism' = '2');
INSERT INTO snk SELECT id FROM src WHERE tag = 'keep';
`
	for _, rule := range kills {
		if !(chainJob{offsetsInTxn: true}).runSQL(t, t.TempDir(), name, sql, rule, 0) {
			t.Fatalf("%s: the job ended without being killed", rule)
		}
	}
	if (chainJob{offsetsInTxn: true}).runSQL(t, t.TempDir(), name, sql, "", 0) {
		t.Fatal("the job was killed")
	}
	expectNothingCommitted(t, b, out)
	adm := b.Admin(t)
	committed, err := adm.FetchOffsets(ctx, name+"-g")
	if err == nil {
		err = committed.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	for p := range int32(2) {
		o, ok := committed.Lookup(in, p)
		if !ok || o.At != 200 {
			t.Errorf("partition %d: group offset %v (committed %v), want 200: the source's progress was not committed", p, o.At, ok)
		}
	}
}
