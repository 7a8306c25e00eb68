package exactlyonce

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// The OVER crash test: two OVER aggregates of one append-only Kafka topic
// that is still being written, in one statement set.
//
//   - An event-time OVER, as Flink runs it: each row with the sum of its
//     key's last three values in time order,
//
//     SELECT id, k, SUM(v) OVER (PARTITION BY k ORDER BY ts
//     ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM src
//
//     into the exactly-once Kafka sink with json (insert-only: each row
//     is emitted once, when the watermark passes it).
//   - An OVER over an updating input, which Flink cannot run
//     (FLINK-19059): a running sum, by k, of a GROUP BY's counts,
//
//     SELECT g, k, n, SUM(n) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN
//     UNBOUNDED PRECEDING AND CURRENT ROW) FROM (SELECT MOD(k, 4) AS g, k,
//     COUNT(*) AS n FROM src GROUP BY k)
//
//     into the exactly-once Kafka sink with debezium-json: every count
//     change moves the sums of the keys after it (-U/+U pairs).
//   - A temporal sort, SELECT id, k FROM src ORDER BY ts, into the
//     exactly-once Kafka sink with json: rows wait in state until the
//     watermark passes them, and the last time sent is state too.
//
// Each input partition is in time order, so no row is late. The job runs
// in a child process, on both state backends, is SIGKILLed at fault points
// and at random moments, then run to its end; the json sink must hold
// each row of the batch OVER once, the sorted sink each input row once,
// and the debezium changelog must be well-formed and end as the batch
// result.

// overParts is the number of partitions of the input topic.
const overParts = 4

// overInput generates per records per partition, {"k","v","id","ts"} with
// keys in [0, keys), values in [0, 100), unique ids and times (record i of
// partition p at 200 ms · i + p ms), and returns the input and the two
// batch oracles: "id" → "id|k|s" and "g|k" → "g|k|n|cum".
func overInput(topic string, rng *rand.Rand, per, keys int) (input, table, table) {
	in := input{topic: topic, parts: make([][]inRecord, overParts)}
	type rec struct {
		k, v, id int64
		at       time.Time
	}
	byKey := map[int64][]rec{}
	for p := range overParts {
		for i := range per {
			r := rec{int64(rng.IntN(keys)), int64(rng.IntN(100)), int64(i*overParts + p),
				intervalBase.Add(time.Duration(i)*200*time.Millisecond + time.Duration(p)*time.Millisecond)}
			byKey[r.k] = append(byKey[r.k], r)
			in.parts[p] = append(in.parts[p], inRecord{value: fmt.Appendf(nil, `{"k":%d,"v":%d,"id":%d,"ts":"%s"}`,
				r.k, r.v, r.id, r.at.Format(tsLayout))})
		}
	}
	windowed := table{}
	counts := map[int64][]int64{} // g → keys, ascending
	for k, rs := range byKey {
		slices.SortFunc(rs, func(a, b rec) int { return a.at.Compare(b.at) })
		for i, r := range rs {
			s := int64(0)
			for _, f := range rs[max(0, i-2) : i+1] {
				s += f.v
			}
			windowed[strconv.FormatInt(r.id, 10)] = fmt.Sprintf("%d|%d|%d", r.id, k, s)
		}
		counts[k%4] = append(counts[k%4], k)
	}
	running := table{}
	for g, ks := range counts {
		slices.Sort(ks)
		cum := 0
		for _, k := range ks {
			n := len(byKey[k])
			cum += n
			key := fmt.Sprintf("%d|%d", g, k)
			running[key] = fmt.Sprintf("%s|%d|%d", key, n, cum)
		}
	}
	return in, windowed, running
}

// overJob is one configuration of the OVER job.
type overJob struct {
	b                 kafkatest.Broker
	par               int
	backend           string
	dir, name         string
	in                string
	windowed, running string
	sorted            string
}

// file returns the job file.
func (j overJob) file(in input) jobFile {
	sink := func(name, topic string) string { return exactlyOnceSink(j.b, topic, j.name+"-"+name, j.par) }
	text := `CREATE TABLE src (k BIGINT, v BIGINT, id BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (` + boundedSource(j.b, j.in, in, j.par) + `);
CREATE TABLE windowed (id BIGINT, k BIGINT, s BIGINT) WITH ('connector' = 'kafka', 'format' = 'json', ` + sink("windowed", j.windowed) + `);
CREATE TABLE running (g BIGINT, k BIGINT, n BIGINT, cum BIGINT) WITH ('connector' = 'kafka',
  'key.format' = 'json', 'key.fields' = 'g', 'value.format' = 'debezium-json', ` + sink("running", j.running) + `);
CREATE TABLE sorted (id BIGINT, k BIGINT) WITH ('connector' = 'kafka', 'format' = 'json', ` + sink("sorted", j.sorted) + `);
EXECUTE STATEMENT SET BEGIN
INSERT INTO windowed SELECT id, k, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM src;
INSERT INTO running SELECT g, k, n, SUM(n) OVER (PARTITION BY g ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
  FROM (SELECT MOD(k, 4) AS g, k, COUNT(*) AS n FROM src GROUP BY k);
INSERT INTO sorted SELECT id, k FROM src ORDER BY ts;
END;
`
	return stateJobFile(j.name, j.dir, text, j.par, j.backend)
}

// TestOverCrash runs the OVER job on both state backends, at parallelism
// 1 and 4, SIGKILLs it at two fault points each and twice at random
// moments, runs it to its end and checks both sinks against the batch
// oracles. With STREAMSQL_SOAK=1 it runs on both brokers and kills each
// configuration at every fault point, over three times the input.
func TestOverCrash(t *testing.T) {
	rng := crashtest.Rand(t, 285)
	configs := crashConfigs(t, []parBackend{{1, "rocksdb"}, {4, "hashmap"}}, []parBackend{{1, "hashmap"}, {4, "rocksdb"}})
	per, batch := 1000, 3
	if soak() {
		per, batch = 3000, 2
	}
	offset := rng.IntN(len(faultPoints))
	for i, c := range configs {
		points := faultPointsOf(offset, i)
		seed := rng.Uint64()
		t.Run(fmt.Sprintf("%s/p%d/%s", c.b.Name, c.par, c.backend), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 5))
			j := overJob{b: c.b, par: c.par, backend: c.backend, dir: t.TempDir(), name: kafkatest.UniqueName(t),
				in: c.b.Topic(t, overParts), windowed: c.b.Topic(t, 3), running: c.b.Topic(t, 3), sorted: c.b.Topic(t, 3)}
			in, windowed, running := overInput(j.in, rng, per, 40)
			produced := in.produce(t, c.b, batch, 10*time.Millisecond)
			jf := j.file(in)
			killAtFaults(t, jf, points, rng)
			killAtRandom(t, jf, points, rng)
			produced()
			jf.finish(t)
			got, err := applyInserts(committed(t, c.b, j.windowed), []string{"id", "k", "s"}, 1)
			checkTable(t, "windowed (event-time OVER, json)", got, err, windowed)
			got, err = applyDebezium(committed(t, c.b, j.running), []string{"g", "k", "n", "cum"}, 2)
			checkTable(t, "running (OVER over a GROUP BY, debezium-json changelog)", got, err, running)
			sorted := table{}
			for id, row := range windowed {
				sorted[id] = row[:strings.LastIndexByte(row, '|')] // id|k
			}
			got, err = applyInserts(committed(t, c.b, j.sorted), []string{"id", "k"}, 1)
			checkTable(t, "sorted (ORDER BY ts, json)", got, err, sorted)
		})
	}
}
