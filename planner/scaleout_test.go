package planner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/planner"
)

const scaleKafka = `
CREATE TABLE src (k BIGINT, v STRING) WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = 'b:9092',
  'properties.group.id' = 'g', 'scan.startup.mode' = 'group-offsets', 'properties.isolation.level' = 'read_committed', 'format' = 'json');
CREATE TABLE dst (k BIGINT, v STRING) WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'b:9092',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'p', 'format' = 'json');
`

// TestScaleOutKafkaToKafka: a scaled-out Kafka → Kafka exactly-once job
// needs no checkpoint directory, and EXPLAIN shows the mode and what each
// table does in it.
func TestScaleOutKafkaToKafka(t *testing.T) {
	p, err := planner.Compile(context.Background(), "job.sql", "SET 'pipeline.scale-out' = 'true';\n"+scaleKafka+
		"INSERT INTO dst SELECT k, v FROM src;", planner.Options{Registry: testRegistry(), Set: map[string]string{"pipeline.instance-id": "i-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.ScaleOut || p.InstanceID != "i-1" {
		t.Fatalf("ScaleOut %v, InstanceID %q", p.ScaleOut, p.InstanceID)
	}
	var b strings.Builder
	if err := p.Explain(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Scale-out: on (pipeline.scale-out), instance i-1",
		"scale-out: reads the partitions that consumer group 'g' assigns this instance",
		"scale-out: each instance writes in its own transactions"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, b.String())
		}
	}
}

// TestScaleOutRefusals: tables that cannot take part are refused, each
// error naming the table and why.
func TestScaleOutRefusals(t *testing.T) {
	for _, tc := range []struct{ name, sql, want string }{
		{"datagen", "CREATE TABLE gen (k BIGINT, v STRING) WITH ('connector' = 'datagen');\nINSERT INTO dst SELECT k, v FROM gen;",
			"source 'gen' (connector 'datagen') cannot take part in a scaled-out job"},
		{"bare select", "SELECT k, v FROM src;", "a bare query cannot run in a scaled-out job"},
		{"no group", "CREATE TABLE src2 (k BIGINT, v STRING) WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = 'b:9092', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');\nINSERT INTO dst SELECT k, v FROM src2;",
			"source 'src2' (connector 'kafka') cannot take part in a scaled-out job (pipeline.scale-out = true): set 'properties.group.id'"},
		{"bounded", "INSERT INTO dst SELECT k, v FROM src /*+ OPTIONS('scan.bounded.mode' = 'latest-offset') */;",
			"a bounded read"},
		{"checkpoint dir", "SET 'execution.checkpointing.dir' = '/tmp/x';\nINSERT INTO dst SELECT k, v FROM src;",
			"execution.checkpointing.dir cannot be used with pipeline.scale-out = true"},
		{"shared group", "INSERT INTO dst SELECT k, v FROM src;\nINSERT INTO dst SELECT k, v FROM src;",
			"its consumer group 'g' is also read by source 'src'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := planner.Compile(context.Background(), "job.sql", "SET 'pipeline.scale-out' = 'true';\n"+scaleKafka+tc.sql,
				planner.Options{Registry: testRegistry()})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
