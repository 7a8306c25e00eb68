package exactlyonce

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// The window join crash test: a LEFT window join of two append-only Kafka
// topics with event-time watermarks, orders (id, amount, ts) and
// shipments (id, order_id, ts), over 5-second tumbling windows:
//
//	SELECT o.id, s.id, o.amount, o.window_start
//	FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND)) o
//	LEFT JOIN TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND)) s
//	ON o.id = s.order_id AND o.window_start = s.window_start AND o.window_end = s.window_end
//
// into two exactly-once Kafka sinks with json (the window join is
// insert-only: it emits when the watermark passes a window's end). Each
// input partition is in time order, so no row is late and the streaming
// join equals the batch one: every order with each shipment in its
// window, an order without one padded with NULL. The window join buffers
// its rows in memory between checkpoints (ops/join), which a kill must
// neither lose nor count twice. The job runs in a child process, on both
// state backends, at parallelism 1 and 4, is SIGKILLed at fault points
// and at random moments, then run to its end; the committed output must
// hold each row of the batch join exactly once.

// windowJoinInput generates the orders and shipments of intervalInput's
// shape (shipments up to 15 s after their order) and returns the inputs
// and the batch window join: "oid|sid" → "oid|sid|amount|window start".
func windowJoinInput(orders, shipments string, rng *rand.Rand, per int) (input, input, table) {
	o := input{topic: orders, parts: make([][]inRecord, intervalParts)}
	s := input{topic: shipments, parts: make([][]inRecord, intervalParts)}
	want := table{}
	ts := func(t time.Time) string { return t.Format(tsLayout) }
	window := func(t time.Time) time.Time { return t.Truncate(5 * time.Second) }
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
				sat := at.Add(time.Duration(rng.IntN(15_000)) * time.Millisecond)
				ships = append(ships, ship{sat, sid, id})
				if window(sat).Equal(window(at)) {
					matched = true
					k := fmt.Sprintf("%d|%d", id, sid)
					want[k] = fmt.Sprintf("%s|%d|%s", k, amount, ts(window(at)))
				}
			}
			if !matched {
				k := fmt.Sprintf("%d|null", id)
				want[k] = fmt.Sprintf("%s|%d|%s", k, amount, ts(window(at)))
			}
		}
		slices.SortStableFunc(ships, func(a, b ship) int { return a.at.Compare(b.at) })
		for _, sh := range ships {
			s.parts[p] = append(s.parts[p], inRecord{value: fmt.Appendf(nil, `{"id":%d,"order_id":%d,"ts":"%s"}`, sh.id, sh.orderID, ts(sh.at))})
		}
	}
	return o, s, want
}

// windowJoinFile returns the window join job of j (intervalJob's
// configuration: topics, parallelism, backend).
func windowJoinFile(j intervalJob, o, s input) jobFile {
	source := func(topic string, in input) string { return boundedSource(j.b, topic, in, j.par) }
	sink := func(topic, name string) string {
		return `'connector' = 'kafka', 'format' = 'json', ` + exactlyOnceSink(j.b, topic, j.name+"-"+name, j.par)
	}
	query := `SELECT o.id, s.id, o.amount, o.window_start
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND)) o
  LEFT JOIN TABLE(TUMBLE(TABLE shipments, DESCRIPTOR(ts), INTERVAL '5' SECOND)) s
  ON o.id = s.order_id AND o.window_start = s.window_start AND o.window_end = s.window_end`
	text := `CREATE TABLE orders (id BIGINT, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (` + source(j.orders, o) + `);
CREATE TABLE shipments (id BIGINT, order_id BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (` + source(j.shipments, s) + `);
CREATE TABLE shipped (oid BIGINT, sid BIGINT, amount BIGINT, ws TIMESTAMP(3)) WITH (` + sink(j.out, "a") + `);
CREATE TABLE shipped2 (oid BIGINT, sid BIGINT, amount BIGINT, ws TIMESTAMP(3)) WITH (` + sink(j.out2, "b") + `);
EXECUTE STATEMENT SET BEGIN
INSERT INTO shipped ` + query + `;
INSERT INTO shipped2 ` + query + `;
END;
`
	return stateJobFile(j.name, j.dir, text, j.par, j.backend)
}

// TestWindowJoinCrash runs the window join job on both state backends,
// at parallelism 1 and 4, SIGKILLs it at two fault points each and twice
// at random moments, runs it to its end and checks the committed output
// of both sinks against the batch join. With STREAMSQL_SOAK=1 it runs on
// both brokers and kills each configuration at every fault point, over
// three times the input.
func TestWindowJoinCrash(t *testing.T) {
	rng := crashtest.Rand(t, 286)
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
			rng := rand.New(rand.NewPCG(seed, 6))
			j := intervalJob{b: c.b, par: c.par, backend: c.backend, dir: t.TempDir(), name: kafkatest.UniqueName(t),
				orders: c.b.Topic(t, intervalParts), shipments: c.b.Topic(t, intervalParts), out: c.b.Topic(t, 3), out2: c.b.Topic(t, 3)}
			o, s, want := windowJoinInput(j.orders, j.shipments, rng, per)
			producedO := o.produce(t, c.b, batch, 10*time.Millisecond)
			producedS := s.produce(t, c.b, batch, 10*time.Millisecond)
			jf := windowJoinFile(j, o, s)
			killAtFaults(t, jf, points, rng)
			killAtRandom(t, jf, points, rng)
			producedO()
			producedS()
			jf.finish(t)
			for _, out := range []string{j.out, j.out2} {
				got, err := applyInserts(committed(t, c.b, out), []string{"oid", "sid", "amount", "ws"}, 2)
				checkTable(t, "the exactly-once json sink "+out, got, err, want)
			}
		})
	}
}
