package kafka

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
)

// TestDebeziumUpdatesOverflowTheBatch reads a topic of Debezium updates on
// the real broker: every record is two rows (-U, +U), so a batch holds
// twice as many rows as records, past the reader's slab of one row per
// record. Every row must come out once, in order, with its kind and its
// record's metadata.
func TestDebeziumUpdatesOverflowTheBatch(t *testing.T) {
	b := kafkatest.Require(t)
	in := b.Topic(t, 1)
	cl := b.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const n = 300
	var want []string
	for i := range n {
		v := fmt.Sprintf(`{"before":{"id":%d,"v":%d},"after":{"id":%d,"v":%d},"op":"u","source":{"table":"t%d"}}`, i, i, i, i+1, i)
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: in, Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("-U[%d, %d, t%d, %d]", i, i, i, i), fmt.Sprintf("+U[%d, %d, t%d, %d]", i, i+1, i, i))
	}
	var out bytes.Buffer
	j, err := job.Compile(ctx, "cdc.sql", `
CREATE TABLE src (id BIGINT, v BIGINT, tbl STRING METADATA FROM 'value.source.table' VIRTUAL,
  off BIGINT METADATA FROM 'offset' VIRTUAL) WITH (
  'connector' = 'kafka', 'topic' = '`+in+`', 'properties.bootstrap.servers' = '`+b.Addr+`',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'debezium-json');
SELECT id, v, tbl, off FROM src;`, job.Options{Registry: job.NewRegistry(), Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: %s, want %s", i, got[i], want[i])
		}
	}
}
