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

// The pruned join crash test: a regular INNER join of an append-only
// Kafka topic of orders (id, cust, amount, ts, with an event-time
// watermark) with a 2-second tumbling window aggregation of the same
// orders, bounded by the window (Nexmark q7's shape):
//
//	SELECT o.id, o.amount, w.mx, w.we FROM orders o
//	JOIN (SELECT cust, MAX(amount) AS mx, window_end AS we
//	      FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '2' SECOND))
//	      GROUP BY cust, window_start, window_end) w
//	ON o.cust = w.cust
//	WHERE o.ts >= w.we - INTERVAL '2' SECOND AND o.ts < w.we
//
// The planner lets the join drop the left rows no window still to come
// can match (ops/join Prune), so its left state is swept as the
// watermark advances, across checkpoints and restores. Each partition is
// in time order and spans many windows, so no row is late and every
// order meets exactly its own window's row: the output is every order
// with its customer's largest amount in its window, exactly once. The job
// runs in a child process, is SIGKILLed at fault points and at random
// moments, then run to its end; two exactly-once Kafka sinks' committed
// output is read back with read_committed and compared with that batch
// result.

// prunedJoinWindow is the tumbling window of the pruned join job.
const prunedJoinWindow = 2 * time.Second

// prunedJoinInput generates per orders per partition of topic (order
// i·parts+p at 100 ms · i + p ms, for one of custs customers) and returns
// them with the batch result: "id" → "id|amount|max|window end".
func prunedJoinInput(topic string, rng *rand.Rand, per, custs int) (input, table) {
	in := input{topic: topic, parts: make([][]inRecord, intervalParts)}
	type window struct {
		cust int
		end  time.Time
	}
	type order struct {
		id, amount int
		w          window
	}
	largest := map[window]int{}
	var orders []order
	for p := range intervalParts {
		for i := range per {
			id := i*intervalParts + p
			at := intervalBase.Add(time.Duration(i)*100*time.Millisecond + time.Duration(p)*time.Millisecond)
			cust, amount := rng.IntN(custs), rng.IntN(1000)
			w := window{cust, at.Truncate(prunedJoinWindow).Add(prunedJoinWindow)}
			largest[w] = max(largest[w], amount)
			orders = append(orders, order{id, amount, w})
			in.parts[p] = append(in.parts[p], inRecord{value: fmt.Appendf(nil,
				`{"id":%d,"cust":%d,"amount":%d,"ts":"%s"}`, id, cust, amount, at.Format(tsLayout))})
		}
	}
	want := table{}
	for _, o := range orders {
		want[strconv.Itoa(o.id)] = fmt.Sprintf("%d|%d|%d|%s", o.id, o.amount, largest[o.w], o.w.end.Format(tsLayout))
	}
	return in, want
}

// prunedJoinJob is one configuration of the pruned join job.
type prunedJoinJob struct {
	b         kafkatest.Broker
	par       int
	backend   string
	dir, name string
	orders    string
	out, out2 string
}

// file returns the job file.
func (j prunedJoinJob) file(o input) jobFile {
	sink := func(topic, name string) string {
		return `'connector' = 'kafka', 'format' = 'json', ` + exactlyOnceSink(j.b, topic, j.name+"-"+name, j.par)
	}
	query := `SELECT o.id, o.amount, w.mx, w.we FROM orders o
  JOIN (SELECT cust, MAX(amount) AS mx, window_end AS we
    FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '2' SECOND))
    GROUP BY cust, window_start, window_end) w
  ON o.cust = w.cust
  WHERE o.ts >= w.we - INTERVAL '2' SECOND AND o.ts < w.we`
	text := `CREATE TABLE orders (id BIGINT, cust BIGINT, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (` + boundedSource(j.b, j.orders, o, j.par) + `);
CREATE TABLE largest (id BIGINT, amount BIGINT, mx BIGINT, we TIMESTAMP(3)) WITH (` + sink(j.out, "a") + `);
CREATE TABLE largest2 (id BIGINT, amount BIGINT, mx BIGINT, we TIMESTAMP(3)) WITH (` + sink(j.out2, "b") + `);
EXECUTE STATEMENT SET BEGIN
INSERT INTO largest ` + query + `;
INSERT INTO largest2 ` + query + `;
END;
`
	return stateJobFile(j.name, j.dir, text, j.par, j.backend)
}

// TestPrunedJoinCrash runs the pruned join job at parallelism 1 on the
// in-memory backend (its left side a list) and at parallelism 2 on
// rocksdb, SIGKILLs each at two fault points and twice at random moments,
// runs it to its end and checks both sinks against the batch result. With
// STREAMSQL_SOAK=1 it runs the other two configurations too, on both
// brokers, over three times the input, and kills at every fault point.
func TestPrunedJoinCrash(t *testing.T) {
	rng := crashtest.Rand(t, 307)
	configs := crashConfigs(t, []parBackend{{1, "hashmap"}, {2, "rocksdb"}}, []parBackend{{1, "rocksdb"}, {2, "hashmap"}})
	per, batch := 1500, 3
	if soak() {
		per, batch = 4500, 2
	}
	offset := rng.IntN(len(faultPoints))
	for i, c := range configs {
		points := faultPointsOf(offset, i)
		seed := rng.Uint64()
		t.Run(fmt.Sprintf("%s/p%d/%s", c.b.Name, c.par, c.backend), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			j := prunedJoinJob{b: c.b, par: c.par, backend: c.backend, dir: t.TempDir(), name: kafkatest.UniqueName(t),
				orders: c.b.Topic(t, intervalParts), out: c.b.Topic(t, 3), out2: c.b.Topic(t, 3)}
			o, want := prunedJoinInput(j.orders, rng, per, 30)
			produced := o.produce(t, c.b, batch, 10*time.Millisecond)
			jf := j.file(o)
			planned, err := job.Compile(context.Background(), "prunedjoin.sql", jf.text, job.Options{Set: jf.set})
			if err != nil {
				t.Fatal(err)
			}
			var ex strings.Builder
			if err := planned.Explain(&ex); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(ex.String(), "kept until the watermark passes") {
				t.Fatalf("EXPLAIN does not show the join's left rows pruned by the watermark:\n%s", ex.String())
			}
			killAtFaults(t, jf, points, rng)
			killAtRandom(t, jf, points, rng)
			produced()
			jf.finish(t)
			for _, out := range []string{j.out, j.out2} {
				got, err := applyInserts(committed(t, c.b, out), []string{"id", "amount", "mx", "we"}, 1)
				checkTable(t, "the exactly-once json sink "+out, got, err, want)
			}
		})
	}
}
