package exactlyonce

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// The interval join crash test (issue 28's exactly-once item for interval
// joins): a LEFT interval join of two append-only Kafka topics with
// event-time watermarks, orders (id, amount, ts) and shipments (id,
// order_id, ts):
//
//	SELECT o.id, s.id, o.amount FROM orders o LEFT JOIN shipments s
//	ON o.id = s.order_id AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '10' SECOND
//
// into two exactly-once Kafka sinks (json: the join is insert-only; two,
// so that the fault point between two sinks' commits is hit too). Each
// input partition is in time order, so no row is late and the streaming
// join must equal the batch one: every order with each shipment within
// ten seconds after it, an order without one padded with NULL (emitted
// when the watermark passes its interval, MaxWatermark at the end of the
// bounded input for the last ones). The job runs in a child process, on
// both state backends, at parallelism 1 and 4, is SIGKILLed at fault
// points and at random moments, then run to its end; the committed output
// must hold each row of the batch join exactly once.

// intervalParts is the number of partitions of each input topic.
const intervalParts = 4

// intervalBase is the time of the first order.
var intervalBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// intervalInput generates per orders per partition (order i·parts+p at
// 200 ms · i + p ms) and, for each, zero to two shipments up to 15 s
// after it (so some fall outside the interval), in the partition of their
// order, each partition sorted by time. It returns the inputs and the
// batch join: "oid|sid" → "oid|sid|amount".
func intervalInput(orders, shipments string, rng *rand.Rand, per int) (input, input, table) {
	o := input{topic: orders, parts: make([][]inRecord, intervalParts)}
	s := input{topic: shipments, parts: make([][]inRecord, intervalParts)}
	want := table{}
	ts := func(t time.Time) string { return t.Format(tsLayout) }
	sid := int64(0)
	for p := range intervalParts {
		type ship struct {
			at          time.Time
			id, orderID int64
		}
		var ships []ship
		for i := range per {
			id := int64(i*intervalParts + p)
			at := intervalBase.Add(time.Duration(i)*200*time.Millisecond + time.Duration(p)*time.Millisecond)
			amount := rng.IntN(1000)
			o.parts[p] = append(o.parts[p], inRecord{value: fmt.Appendf(nil, `{"id":%d,"amount":%d,"ts":"%s"}`, id, amount, ts(at))})
			matched := false
			for range rng.IntN(3) {
				sid++
				after := time.Duration(rng.IntN(15_000)) * time.Millisecond
				ships = append(ships, ship{at.Add(after), sid, id})
				if after <= 10*time.Second {
					matched = true
					k := fmt.Sprintf("%d|%d", id, sid)
					want[k] = fmt.Sprintf("%s|%d", k, amount)
				}
			}
			if !matched {
				k := fmt.Sprintf("%d|null", id)
				want[k] = fmt.Sprintf("%s|%d", k, amount)
			}
		}
		slices.SortStableFunc(ships, func(a, b ship) int { return a.at.Compare(b.at) })
		for _, sh := range ships {
			s.parts[p] = append(s.parts[p], inRecord{value: fmt.Appendf(nil, `{"id":%d,"order_id":%d,"ts":"%s"}`, sh.id, sh.orderID, ts(sh.at))})
		}
	}
	return o, s, want
}

// applyInserts reads the committed records of an append-only topic
// (values with the columns cols) as a table keyed by the first keyCols
// columns; a key written twice is a duplicate, an error.
func applyInserts(recs map[int32][]*kgo.Record, cols []string, keyCols int) (table, error) {
	t := table{}
	for _, p := range slices.Sorted(maps.Keys(recs)) {
		for _, rec := range recs[p] {
			r, err := rowOf(rec.Value, cols)
			if err != nil {
				return nil, fmt.Errorf("partition %d offset %d: %w", p, rec.Offset, err)
			}
			k := keyOf(r, keyCols)
			if old, ok := t[k]; ok {
				return nil, fmt.Errorf("partition %d offset %d: %s written again (first %s): a duplicate", p, rec.Offset, r, old)
			}
			t[k] = r
		}
	}
	return t, nil
}

// intervalJob is one configuration of the interval join job.
type intervalJob struct {
	b                 kafkatest.Broker
	par               int
	backend           string
	dir, name         string
	orders, shipments string
	out, out2         string
}

// file returns the job file.
func (j intervalJob) file(o, s input) jobFile {
	source := func(topic string, in input) string { return boundedSource(j.b, topic, in, j.par) }
	sink := func(topic, name string) string {
		return `'connector' = 'kafka', 'format' = 'json', ` + exactlyOnceSink(j.b, topic, j.name+"-"+name, j.par)
	}
	text := `CREATE TABLE orders (id BIGINT, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (` + source(j.orders, o) + `);
CREATE TABLE shipments (id BIGINT, order_id BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (` + source(j.shipments, s) + `);
CREATE TABLE shipped (oid BIGINT, sid BIGINT, amount BIGINT) WITH (` + sink(j.out, "a") + `);
CREATE TABLE shipped2 (oid BIGINT, sid BIGINT, amount BIGINT) WITH (` + sink(j.out2, "b") + `);
EXECUTE STATEMENT SET BEGIN
INSERT INTO shipped SELECT o.id, s.id, o.amount FROM orders o LEFT JOIN shipments s
  ON o.id = s.order_id AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '10' SECOND;
INSERT INTO shipped2 SELECT o.id, s.id, o.amount FROM orders o LEFT JOIN shipments s
  ON o.id = s.order_id AND s.ts BETWEEN o.ts AND o.ts + INTERVAL '10' SECOND;
END;
`
	return stateJobFile(j.name, j.dir, text, j.par, j.backend)
}

// TestIntervalJoinCrash runs the interval join job on both state
// backends, at parallelism 1 and 4, SIGKILLs it at two fault points each
// and twice at random moments, runs it to its end and checks the
// committed output against the batch join. With STREAMSQL_SOAK=1 it runs
// on both brokers and kills each configuration at every fault point, over
// three times the input.
func TestIntervalJoinCrash(t *testing.T) {
	rng := crashtest.Rand(t, 281)
	configs := crashConfigs(t, []parBackend{{1, "rocksdb"}, {4, "hashmap"}}, []parBackend{{1, "hashmap"}, {4, "rocksdb"}})
	per, batch := 1500, 3
	if soak() {
		per, batch = 4500, 2
	}
	offset := rng.IntN(len(faultPoints))
	for i, c := range configs {
		points := faultPointsOf(offset, i)
		seed := rng.Uint64()
		t.Run(fmt.Sprintf("%s/p%d/%s", c.b.Name, c.par, c.backend), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 3))
			j := intervalJob{b: c.b, par: c.par, backend: c.backend, dir: t.TempDir(), name: kafkatest.UniqueName(t),
				orders: c.b.Topic(t, intervalParts), shipments: c.b.Topic(t, intervalParts), out: c.b.Topic(t, 3), out2: c.b.Topic(t, 3)}
			o, s, want := intervalInput(j.orders, j.shipments, rng, per)
			producedO := o.produce(t, c.b, batch, 10*time.Millisecond)
			producedS := s.produce(t, c.b, batch, 10*time.Millisecond)
			jf := j.file(o, s)
			killAtFaults(t, jf, points, rng)
			killAtRandom(t, jf, points, rng)
			producedO()
			producedS()
			jf.finish(t)
			for _, out := range []string{j.out, j.out2} {
				got, err := applyInserts(committed(t, c.b, out), []string{"oid", "sid", "amount"}, 2)
				checkTable(t, "the exactly-once json sink "+out, got, err, want)
			}
		})
	}
}
