package exactlyonce

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
)

// The self-join crash test (sub-plan and source reuse across crashes): one
// append-only Kafka topic of orders (id, cust, amount), joined with two
// identical counts of its own rows per customer:
//
//	SELECT o.id, o.cust, CONCAT(CAST(c.n AS STRING), '-', CAST(d.n AS STRING))
//	FROM (SELECT id, cust, LPAD(CAST(id AS STRING), 400, 'x') AS note FROM orders) o
//	JOIN (SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust) c
//	  ON o.cust = c.cust AND o.note <> CAST(c.n AS STRING)
//	JOIN (SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust) d ON o.cust = d.cust
//
// Each order carries a 400-byte note that the first join's condition
// reads (always true; it makes the join keep the note): on hashmap the test forces those rows to
// spill to the task's working file (state.backend.hashmap.spill-threshold),
// so spilled chunks are probed, checkpointed and restored across the kills.
// The planner shares the three scans of orders (one reader, one set of
// positions) and the two counts (one GroupAggregate feeding both joins),
// and the two INSERTs of the statement set compute the join once, feeding
// it into upsert-kafka and the exactly-once Kafka sink with debezium-json. The
// job runs in a child process, is SIGKILLed at fault points and at random
// moments, then run to its end: each sink's committed output must be every
// order with its customer's final count twice, exactly once.

// selfJoinJob is one configuration of the self-join job.
type selfJoinJob struct {
	b           kafkatest.Broker
	par         int
	backend     string
	dir, name   string
	orders      string
	cdc, upsert string
}

func (j selfJoinJob) file(o input) jobFile {
	sink := func(name, topic string) string { return exactlyOnceSink(j.b, topic, j.name+"-"+name, j.par) }
	query := `SELECT o.id, o.cust, CONCAT(CAST(c.n AS STRING), '-', CAST(d.n AS STRING))
  FROM (SELECT id, cust, LPAD(CAST(id AS STRING), 400, 'x') AS note FROM orders) o
  JOIN (SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust) c ON o.cust = c.cust AND o.note <> CAST(c.n AS STRING)
  JOIN (SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust) d ON o.cust = d.cust`
	text := `CREATE TABLE orders (id BIGINT, cust BIGINT, amount BIGINT) WITH ('connector' = 'kafka',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json', 'topic' = '` + j.orders + `',
  'properties.bootstrap.servers' = '` + j.b.Addr + `', 'properties.group.id' = '` + j.name + `',
  'properties.isolation.level' = 'read_committed', 'properties.max.poll.records' = '64',
  'scan.bounded.mode' = 'specific-offsets', 'scan.bounded.specific-offsets' = '` + o.specificOffsets() + `',
  'scan.parallelism' = '` + strconv.Itoa(j.par) + `');
CREATE TABLE counted_cdc (id BIGINT, cust BIGINT, name STRING) WITH ('connector' = 'kafka',
  'key.format' = 'json', 'key.fields' = 'id', 'value.format' = 'debezium-json', ` + sink("cdc", j.cdc) + `);
CREATE TABLE counted (id BIGINT, cust BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'key.format' = 'json', 'value.format' = 'json', ` + sink("upsert", j.upsert) + `);
EXECUTE STATEMENT SET BEGIN
INSERT INTO counted_cdc ` + query + `;
INSERT INTO counted ` + query + `;
END;
`
	return stateJobFile(j.name, j.dir, text, j.par, j.backend)
}

// selfJoinOracle is every order with its customer's count of orders, twice.
func selfJoinOracle(custOf map[int64]int64) table {
	n := map[int64]int{}
	for _, c := range custOf {
		n[c]++
	}
	out := table{}
	for id, c := range custOf {
		out[strconv.FormatInt(id, 10)] = fmt.Sprintf("%d|%d|%d-%d", id, c, n[c], n[c])
	}
	return out
}

// TestSelfJoinCrash runs the self-join job at parallelism 2 (hashmap),
// SIGKILLs it at two fault points and twice at random moments, runs it to
// its end and checks both sinks. With STREAMSQL_SOAK=1 it also runs on
// rocksdb at parallelism 1 and 2, on both brokers, over more input, and
// kills at every fault point.
func TestSelfJoinCrash(t *testing.T) {
	rng := crashtest.Rand(t, 29)
	configs := crashConfigs(t, []parBackend{{2, "hashmap"}}, []parBackend{{1, "rocksdb"}, {2, "rocksdb"}})
	per, batch := 400, 3
	if soak() {
		per, batch = 3000, 2
	}
	offset := rng.IntN(len(faultPoints))
	for i, c := range configs {
		points := faultPointsOf(offset, i)
		seed := rng.Uint64()
		t.Run(fmt.Sprintf("%s/p%d/%s", c.b.Name, c.par, c.backend), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 3))
			j := selfJoinJob{b: c.b, par: c.par, backend: c.backend, dir: t.TempDir(), name: kafkatest.UniqueName(t),
				orders: c.b.Topic(t, joinParts), cdc: c.b.Topic(t, 3), upsert: c.b.Topic(t, 3)}
			o, _, custOf, _ := joinInput(j.orders, "unused", rng, per, 0, 40)
			produced := o.produce(t, c.b, batch, 10*time.Millisecond)
			jf := j.file(o)
			if c.backend == "hashmap" {
				// Every full chunk of the joins' order rows (each 400
				// bytes wide by its note, which the first join's
				// condition reads) goes to the task's spill file: one key
				// group a task, so that its ~300 KiB of rows fill chunks.
				jf.set["state.backend.hashmap.spill-threshold"] = "1b"
				jf.set["pipeline.max-parallelism"] = strconv.Itoa(c.par)
			}
			planned, err := job.Compile(context.Background(), "selfjoin.sql", jf.text, job.Options{Set: jf.set})
			if err != nil {
				t.Fatal(err)
			}
			var ex strings.Builder
			if err := planned.Explain(&ex); err != nil {
				t.Fatal(err)
			}
			// The first INSERT: the orders and the count's input share a
			// scan (the second count is the first, so its scan is not
			// read), and the second join's right input is the first
			// count. The second INSERT computes what the first does: the
			// statement set is planned as one, so it reads the first's
			// join.
			if c.backend == "hashmap" && !strings.Contains(ex.String(), "(rows appended, insert-only input)") {
				t.Fatalf("EXPLAIN shows no join keeping rows appended (a list table, which spills):\n%s", ex.String())
			}
			if got := strings.Count(ex.String(), ": reused, the "); got != 3 {
				t.Fatalf("EXPLAIN says reused %d times, want 3 (a scan and a count, then the whole join):\n%s", got, ex.String())
			}
			killAtFaults(t, jf, points, rng)
			killAtRandom(t, jf, points, rng)
			produced()
			jf.finish(t)
			want := selfJoinOracle(custOf)
			got, err := applyDebezium(committed(t, j.b, j.cdc), joinCols, 1)
			checkTable(t, "counted_cdc (debezium-json changelog)", got, err, want)
			got, err = applyUpsert(committed(t, j.b, j.upsert), joinCols, 1, false)
			checkTable(t, "counted (upsert-kafka)", got, err, want)
		})
	}
}
