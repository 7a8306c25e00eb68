package exactlyonce

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// The join crash test (issue 28's exactly-once item for regular joins): a
// LEFT JOIN of an append-only Kafka topic of orders (id, cust, amount)
// with an upsert-kafka table of customers (id, name), whose names change
// and whose rows are deleted while the job runs:
//
//	SELECT o.id, o.cust, c.name FROM orders o LEFT JOIN customers c ON o.cust = c.id
//
// into upsert-kafka keyed by the order (through the upsert materializer:
// the join's rows are keyed by the customer) and into the exactly-once
// Kafka sink with debezium-json, whose changelog shows every padded row the
// join emits and takes back. The job runs in a child process, on both
// state backends, at parallelism 1 and 4, is SIGKILLed at fault points
// and at random moments, then run to its end. Each sink's committed output
// must equal the batch LEFT JOIN of the orders with the customers' final
// rows, and the changelog must be well-formed (no retraction of a row it
// does not hold, no second row of an order).

// joinParts is the number of partitions of each input topic.
const joinParts = 4

// joinInput generates per orders and perCust customer changes per
// partition: orders of ids i·joinParts+p for customers in [0, custs);
// the changes of customer c go to partition c mod joinParts, in order:
// a new name, or (one in ten) a delete. It returns the final name of each
// customer that has one.
func joinInput(orders, customers string, rng *rand.Rand, per, perCust, custs int) (input, input, map[int64]int64, map[int64]string) {
	o := input{topic: orders, parts: make([][]inRecord, joinParts)}
	c := input{topic: customers, parts: make([][]inRecord, joinParts)}
	custOf := map[int64]int64{}
	for p := range joinParts {
		for i := range per {
			id := int64(i*joinParts + p)
			cust := int64(rng.IntN(custs))
			custOf[id] = cust
			o.parts[p] = append(o.parts[p], inRecord{key: fmt.Appendf(nil, `{"id":%d}`, id),
				value: fmt.Appendf(nil, `{"id":%d,"cust":%d,"amount":%d}`, id, cust, rng.IntN(100))})
		}
	}
	final := map[int64]string{}
	for p := range joinParts {
		for v := range perCust {
			id := int64(rng.IntN(custs/joinParts)*joinParts + p)
			key := fmt.Appendf(nil, `{"id":%d}`, id)
			if rng.IntN(10) == 0 {
				c.parts[p] = append(c.parts[p], inRecord{key: key}) // a tombstone
				delete(final, id)
				continue
			}
			name := fmt.Sprintf("n%d-%d", id, v)
			c.parts[p] = append(c.parts[p], inRecord{key: key, value: fmt.Appendf(nil, `{"id":%d,"name":"%s"}`, id, name)})
			final[id] = name
		}
	}
	return o, c, custOf, final
}

// leftJoinOracle is the batch LEFT JOIN of the orders with the customers'
// final names, keyed by the order.
func leftJoinOracle(custOf map[int64]int64, names map[int64]string) table {
	out := table{}
	for id, cust := range custOf {
		name, ok := names[cust]
		if !ok {
			name = "null"
		}
		out[strconv.FormatInt(id, 10)] = fmt.Sprintf("%d|%d|%s", id, cust, name)
	}
	return out
}

// joinJob is one configuration of the join job.
type joinJob struct {
	b                 kafkatest.Broker
	par               int
	backend           string
	dir, name         string
	orders, customers string
	cdc, upsert       string
}

var joinCols = []string{"id", "cust", "name"}

// file returns the job file.
func (j joinJob) file(o, c input) jobFile {
	sink := func(name, topic string) string {
		return `'topic' = '` + topic + `', 'properties.bootstrap.servers' = '` + j.b.Addr + `',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + j.name + `-` + name + `',
  'sink.parallelism' = '` + strconv.Itoa(j.par) + `'`
	}
	source := func(topic string, in input) string {
		return `'topic' = '` + topic + `', 'properties.bootstrap.servers' = '` + j.b.Addr + `',
  'properties.isolation.level' = 'read_committed', 'properties.max.poll.records' = '64',
  'scan.bounded.mode' = 'specific-offsets', 'scan.bounded.specific-offsets' = '` + in.specificOffsets() + `',
  'scan.parallelism' = '` + strconv.Itoa(j.par) + `'`
	}
	text := `CREATE TABLE orders (id BIGINT, cust BIGINT, amount BIGINT) WITH ('connector' = 'kafka',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json', ` + source(j.orders, o) + `);
CREATE TABLE customers (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'key.format' = 'json', 'value.format' = 'json', ` + source(j.customers, c) + `);
CREATE TABLE enriched_cdc (id BIGINT, cust BIGINT, name STRING) WITH ('connector' = 'kafka',
  'key.format' = 'json', 'key.fields' = 'id', 'value.format' = 'debezium-json', ` + sink("cdc", j.cdc) + `);
CREATE TABLE enriched (id BIGINT, cust BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'key.format' = 'json', 'value.format' = 'json', ` + sink("upsert", j.upsert) + `);
EXECUTE STATEMENT SET BEGIN
INSERT INTO enriched_cdc SELECT o.id, o.cust, c.name FROM orders o LEFT JOIN customers c ON o.cust = c.id;
INSERT INTO enriched SELECT o.id, o.cust, c.name FROM orders o LEFT JOIN customers c ON o.cust = c.id;
END;
`
	return stateJobFile(j.name, j.dir, text, j.par, j.backend)
}

// verify checks every sink's committed output against the oracle.
func (j joinJob) verify(t *testing.T, want table) {
	t.Helper()
	got, err := applyDebezium(committed(t, j.b, j.cdc), joinCols, 1)
	checkTable(t, "enriched_cdc (debezium-json changelog)", got, err, want)
	got, err = applyUpsert(committed(t, j.b, j.upsert), joinCols, 1, false)
	checkTable(t, "enriched (upsert-kafka)", got, err, want)
}

// TestJoinCrash runs the LEFT JOIN job on both state backends, at
// parallelism 1 and 4, SIGKILLs it at two fault points (together the
// configurations try four) and twice at random moments, runs it to its end
// and checks both sinks. With STREAMSQL_SOAK=1 it runs on both brokers
// and kills each configuration at every fault point, over four times the
// input.
func TestJoinCrash(t *testing.T) {
	rng := crashtest.Rand(t, 28)
	configs := crashConfigs(t, []parBackend{{1, "hashmap"}, {4, "rocksdb"}}, []parBackend{{1, "rocksdb"}, {4, "hashmap"}})
	per, perCust, batch := 1500, 500, 3
	if soak() {
		per, perCust, batch = 4000, 1200, 2
	}
	offset := rng.IntN(len(faultPoints))
	for i, c := range configs {
		points := faultPointsOf(offset, i)
		seed := rng.Uint64()
		t.Run(fmt.Sprintf("%s/p%d/%s", c.b.Name, c.par, c.backend), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 2))
			j := joinJob{b: c.b, par: c.par, backend: c.backend, dir: t.TempDir(), name: kafkatest.UniqueName(t),
				orders: c.b.Topic(t, joinParts), customers: c.b.Topic(t, joinParts), cdc: c.b.Topic(t, 3), upsert: c.b.Topic(t, 3)}
			o, cu, custOf, names := joinInput(j.orders, j.customers, rng, per, perCust, 80)
			producedO := o.produce(t, c.b, batch, 10*time.Millisecond)
			producedC := cu.produce(t, c.b, 1, 10*time.Millisecond)
			jf := j.file(o, cu)
			killAtFaults(t, jf, points, rng)
			killAtRandom(t, jf, points, rng)
			producedO()
			producedC()
			jf.finish(t)
			j.verify(t, leftJoinOracle(custOf, names))
		})
	}
}
