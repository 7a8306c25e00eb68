// Package exactlyonce proves exactly-once for stateful SQL end to end:
// job files with aggregations run through package job — in child
// processes that are SIGKILLed (internal/testrig/crashtest) at random
// moments and at the runtime's fault points (runtime/testkit), or in this
// process, stopped and restored at another parallelism — against the real
// Kafka brokers (both transaction versions), PostgreSQL and the
// filesystem sink. What the sinks committed is read by readers of this
// package's own (a read_committed Kafka reader that stops exactly at the
// last stable offset, plain SQL, the visible files)
// and compared with a batch oracle computed here over the committed input.
//
// The tests (docs/exactly-once.md, "How exactly-once is tested"):
//
//   - agg_crash_test.go: GROUP BY COUNT/SUM into the exactly-once Kafka
//     sink (debezium-json) and upsert-kafka, a TUMBLE window aggregation
//     into the exactly-once Kafka sink (json), upsert-kafka and the
//     filesystem sink, and HOP, CUMULATE and SESSION window aggregations
//     into the exactly-once Kafka sink, at parallelism 1 and 4, on both
//     state backends, killed at random and at every fault point.
//   - join_crash_test.go: a LEFT JOIN of an append-only topic with an
//     upsert-kafka table whose rows change and go, into upsert-kafka
//     (through the upsert materializer) and debezium-json, on both state
//     backends, at parallelism 1 and 4, killed at random and at fault
//     points.
//   - interval_crash_test.go: a LEFT interval join of two append-only
//     topics with event-time watermarks into two exactly-once Kafka sinks
//     (json), on both state backends, at parallelism 1 and 4, killed at
//     random and at fault points; each row of the batch join committed
//     once.
//   - topn_crash_test.go: a Top-3 per key with the row number into
//     debezium-json and upsert-kafka, on both state backends, at
//     parallelism 1 and 4, killed at random and at fault points.
//   - retract_test.go: two aggregation levels over a debezium-json source
//     with updates and deletes, into upsert-kafka, jdbc and debezium-json,
//     restored at another parallelism; each sink equals the oracle after
//     every completed checkpoint.
//   - windowend_test.go: the last TUMBLE window and the SESSION windows of
//     a bounded job, which only the end of the input closes, are committed
//     exactly once, also when the job is killed at any fault point of its
//     final checkpoint (both state backends), and FINISHED.json comes only
//     with them.
//
// STREAMSQL_SOAK=1 runs the aggregation SIGKILL test with 104 kills, and
// the end-of-input test at every fault point against both brokers on both
// backends.
package exactlyonce

import (
	"os"
	"testing"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// TestMain runs a child's job when this process is one (crashtest), and
// otherwise the tests, with XDG_STATE_HOME in a temporary folder.
func TestMain(m *testing.M) {
	crashtest.Main(map[string]func() int{roleSQL: sqlChild})
	os.Exit(testkit.RunWithStateHome(m))
}
