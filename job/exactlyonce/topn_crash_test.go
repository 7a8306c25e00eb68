package exactlyonce

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// The Top-N crash test (issue 28's exactly-once item for Top-N, at the
// stateful core's fault points): the three highest values of each key of
// an append-only Kafka topic that is still being written,
//
//	SELECT k, rn, v, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k
//	ORDER BY v DESC, id) AS rn FROM src) WHERE rn <= 3
//
// with the row number, so that every rank change is an UPDATE_BEFORE /
// UPDATE_AFTER pair, into the exactly-once Kafka sink with debezium-json
// and into upsert-kafka keyed by (k, rn). The job runs in a child process,
// on both state backends, at parallelism 1 and 4, is SIGKILLed at fault
// points and at random moments, then run to its end. Each sink must end as
// the top three of each key over the whole input, and the debezium
// changelog must be well-formed (no retraction of a row it does not hold,
// no second row at a rank). cmd/streamsql's TestTopNExactlyOnceAcrossKills
// kills the same kind of job at random moments over an input written
// before it starts.

// topNParts is the number of partitions of the input topic.
const topNParts = 4

// topNInput generates per records per partition, {"k":..,"v":..,"id":..}
// with keys in [0, keys), values in [0, 10000) and unique ids, and returns
// the input and the batch oracle: "k|rn" → "k|rn|v|id" for the three
// highest values of each key (of equal values the smaller id first).
func topNInput(topic string, rng *rand.Rand, per, keys int) (input, table) {
	in := input{topic: topic, parts: make([][]inRecord, topNParts)}
	type rec struct{ k, v, id int64 }
	byKey := map[int64][]rec{}
	for p := range topNParts {
		for i := range per {
			r := rec{int64(rng.IntN(keys)), int64(rng.IntN(10000)), int64(i*topNParts + p)}
			byKey[r.k] = append(byKey[r.k], r)
			in.parts[p] = append(in.parts[p], inRecord{value: fmt.Appendf(nil, `{"k":%d,"v":%d,"id":%d}`, r.k, r.v, r.id)})
		}
	}
	want := table{}
	for k, rs := range byKey {
		slices.SortFunc(rs, func(a, b rec) int { return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(a.id, b.id)) })
		for i, r := range rs[:min(3, len(rs))] {
			key := fmt.Sprintf("%d|%d", k, i+1)
			want[key] = fmt.Sprintf("%s|%d|%d", key, r.v, r.id)
		}
	}
	return in, want
}

// topNJob is one configuration of the Top-N job.
type topNJob struct {
	b           kafkatest.Broker
	par         int
	backend     string
	dir, name   string
	in          string
	cdc, upsert string
}

var topNCols = []string{"k", "rn", "v", "id"}

// file returns the job file.
func (j topNJob) file(in input) jobFile {
	sink := func(name, topic string) string { return exactlyOnceSink(j.b, topic, j.name+"-"+name, j.par) }
	text := `CREATE TABLE src (k BIGINT, v BIGINT, id BIGINT) WITH (` + boundedSource(j.b, j.in, in, j.par) + `);
CREATE TABLE top3_cdc (k BIGINT, rn BIGINT, v BIGINT, id BIGINT) WITH ('connector' = 'kafka',
  'key.format' = 'json', 'key.fields' = 'k', 'value.format' = 'debezium-json', ` + sink("cdc", j.cdc) + `);
CREATE TABLE top3 (k BIGINT, rn BIGINT, v BIGINT, id BIGINT, PRIMARY KEY (k, rn) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'key.format' = 'json', 'value.format' = 'json', ` + sink("upsert", j.upsert) + `);
EXECUTE STATEMENT SET BEGIN
INSERT INTO top3_cdc SELECT k, rn, v, id FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn FROM src) WHERE rn <= 3;
INSERT INTO top3 SELECT k, rn, v, id FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn FROM src) WHERE rn <= 3;
END;
`
	return stateJobFile(j.name, j.dir, text, j.par, j.backend)
}

// TestTopNCrash runs the Top-N job on both state backends, at parallelism
// 1 and 4, SIGKILLs it at two fault points each and twice at random
// moments, runs it to its end and checks both sinks against the batch
// oracle. With STREAMSQL_SOAK=1 it runs on both brokers and kills each
// configuration at every fault point, over three times the input.
func TestTopNCrash(t *testing.T) {
	rng := crashtest.Rand(t, 282)
	configs := crashConfigs(t, []parBackend{{1, "hashmap"}, {4, "rocksdb"}}, []parBackend{{1, "rocksdb"}, {4, "hashmap"}})
	per, batch := 1500, 3
	if soak() {
		per, batch = 4500, 2
	}
	offset := rng.IntN(len(faultPoints))
	for i, c := range configs {
		points := faultPointsOf(offset, i)
		seed := rng.Uint64()
		t.Run(fmt.Sprintf("%s/p%d/%s", c.b.Name, c.par, c.backend), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 4))
			j := topNJob{b: c.b, par: c.par, backend: c.backend, dir: t.TempDir(), name: kafkatest.UniqueName(t),
				in: c.b.Topic(t, topNParts), cdc: c.b.Topic(t, 3), upsert: c.b.Topic(t, 3)}
			in, want := topNInput(j.in, rng, per, 60)
			produced := in.produce(t, c.b, batch, 10*time.Millisecond)
			jf := j.file(in)
			killAtFaults(t, jf, points, rng)
			killAtRandom(t, jf, points, rng)
			produced()
			jf.finish(t)
			got, err := applyDebezium(committed(t, c.b, j.cdc), topNCols, 2)
			checkTable(t, "top3_cdc (debezium-json changelog)", got, err, want)
			got, err = applyUpsert(committed(t, c.b, j.upsert), topNCols, 2, false)
			checkTable(t, "top3 (upsert-kafka)", got, err, want)
		})
	}
}
