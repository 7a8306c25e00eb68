package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
)

// TestNotNullEnforcerJob runs Flink's everyday upsert job — a nullable
// user_id from a Kafka topic into the PRIMARY KEY (so NOT NULL) of an
// upsert-kafka table — on the real broker. The planner accepts it; with
// the default enforcer (ERROR) the job fails at the row with a NULL
// user_id, naming the table, the column and the record's topic, partition
// and offset; with DROP that row is dropped, counted, and the others are
// written.
func TestNotNullEnforcerJob(t *testing.T) {
	b := kafkatest.Require(t)
	in := b.Topic(t, 1)
	cl := b.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, v := range []string{`{"user_id":1,"n":10}`, `{"user_id":null,"n":20}`, `{"n":30}`, `{"user_id":4,"n":40}`} {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: in, Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	for _, mode := range []string{"ERROR", "DROP"} {
		t.Run(mode, func(t *testing.T) {
			out := b.Topic(t, 1)
			text := `SET 'table.exec.sink.not-null-enforcer' = '` + mode + `';
CREATE TABLE kafka_source (user_id BIGINT, n INT) WITH ('connector' = 'kafka', 'topic' = '` + in + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE upsert_sink (user_id BIGINT, n INT, PRIMARY KEY (user_id) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = '` + out + `', 'properties.bootstrap.servers' = '` + b.Addr + `',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO upsert_sink SELECT user_id, n FROM kafka_source;
`
			j, err := job.Compile(ctx, "notnull.sql", text, job.Options{Registry: job.NewRegistry(), Set: map[string]string{"restart-strategy.type": "none"}})
			if err != nil {
				t.Fatalf("the planner refused a job Flink runs: %v", err)
			}
			err = j.Run(ctx)
			if mode == "ERROR" {
				want := []string{"column 'user_id' of table", "upsert_sink", "is NOT NULL", "topic " + in + " partition 0 offset 1"}
				for _, w := range want {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Fatalf("job error %v; want it to contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("DROP: %v", err)
			}
			var dropped int64
			for _, ts := range j.Status().Tasks {
				dropped += ts.Dropped
			}
			if dropped != 2 {
				t.Errorf("dropped %d rows, want 2 (the NULL and the missing user_id)", dropped)
			}
			recs := b.Consume(t, out, false, time.Minute, func(r []*kgo.Record) bool { return len(r) >= 2 })
			got := kafkatest.Values(recs)
			if len(got) != 2 || got[0] != `{"user_id":1,"n":10}` || got[1] != `{"user_id":4,"n":40}` {
				t.Errorf("written %q, want the rows of user 1 and 4", got)
			}
		})
	}
}
