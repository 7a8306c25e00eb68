package exactlyonce

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// The retraction test (retractions through two aggregation levels, into
// upsert sinks). A debezium-json Kafka topic carries creates, updates
// (which move a row to another k) and deletes of rows (id, k); the job
// counts rows per k, then keys per count:
//
//	SELECT cnt, COUNT(*) AS n FROM (SELECT k, COUNT(*) AS cnt FROM src GROUP BY k) GROUP BY cnt
//
// into three sinks at once (a statement set): upsert-kafka and jdbc
// (PostgreSQL), both keyed by cnt, and the exactly-once Kafka sink with
// debezium-json, whose changelog shows every -U and -D that reaches a
// sink. The job runs in this process at parallelism P1 until a few
// checkpoints completed, is stopped, and runs again at parallelism P2
// from its checkpoint to the end of the input (1/1, 4/4, 4/2).
//
// After every completed checkpoint each sink must hold exactly the oracle
// over the input prefix the checkpoint's source positions name (each
// pipeline has its own source, so its own positions):
//
//   - jdbc: checked in the database while the commits of the next
//     checkpoint wait (the fault point commit-delay: every earlier commit
//     is done, none later), and after each run;
//   - Kafka: a committed record belongs to the transaction its producer
//     id and epoch name, which a checkpoint's committable lists; the
//     records of the checkpoints up to N, applied in offset order, must
//     give the oracle at N (for every completed N), and the changelog
//     must be well-formed at every step.

// retractParts is the number of partitions of the input topic.
const retractParts = 4

// cdcEvent is one change of the input: a row (id, k) created (before <
// 0), moved from k before to k after, or deleted (after < 0).
type cdcEvent struct {
	id, before, after int64
}

// retractInput generates per events per partition over ids of that
// partition (id mod retractParts), among keys values of k.
func retractInput(topic string, rng *rand.Rand, per, ids, keys int) (input, [][]cdcEvent) {
	in := input{topic: topic, parts: make([][]inRecord, retractParts)}
	evs := make([][]cdcEvent, retractParts)
	row := func(id, k int64) string {
		if k < 0 {
			return "null"
		}
		return fmt.Sprintf(`{"id":%d,"k":%d}`, id, k)
	}
	for p := range retractParts {
		live := map[int64]int64{}
		for range per {
			id := int64(rng.IntN(ids)*retractParts + p)
			e := cdcEvent{id: id, before: -1, after: -1}
			op := "c"
			if k, ok := live[id]; ok {
				e.before = k
				if rng.IntN(10) < 6 {
					op = "u"
					e.after = (k + 1 + int64(rng.IntN(keys-1))) % int64(keys)
				} else {
					op = "d"
				}
			} else {
				e.after = int64(rng.IntN(keys))
			}
			if e.after >= 0 {
				live[id] = e.after
			} else {
				delete(live, id)
			}
			evs[p] = append(evs[p], e)
			in.parts[p] = append(in.parts[p], inRecord{key: fmt.Appendf(nil, `{"id":%d}`, id),
				value: fmt.Appendf(nil, `{"before":%s,"after":%s,"op":"%s"}`, row(id, e.before), row(id, e.after), op)})
		}
	}
	return in, evs
}

// twoLevelOracle is the table of the two-level query over the first
// pos[p] events of each partition p, keyed by cnt.
func twoLevelOracle(evs [][]cdcEvent, pos map[int32]int64) table {
	live := map[int64]int64{}
	for p, es := range evs {
		for _, e := range es[:pos[int32(p)]] {
			if e.after >= 0 {
				live[e.id] = e.after
			} else {
				delete(live, e.id)
			}
		}
	}
	cnt := map[int64]int64{}
	for _, k := range live {
		cnt[k]++
	}
	n := map[int64]int64{}
	for _, c := range cnt {
		n[c]++
	}
	out := table{}
	for c, m := range n {
		out[strconv.FormatInt(c, 10)] = fmt.Sprintf("%d|%d", c, m)
	}
	return out
}

var twoLevelCols = []string{"cnt", "n"}

// retractJob is the job of one case.
type retractJob struct {
	b                     kafkatest.Broker
	pg                    dbtest.Server
	dir, name, in         string
	upsert, cdc, jdbcName string
}

// The sinks' ids (pipeline/table).
const (
	sinkUpsert = "out_upsert/out_upsert"
	sinkCDC    = "out_cdc/out_cdc"
	sinkJDBC   = "out_jdbc/out_jdbc"
)

// sourceOf returns the id of the scan that feeds sink: the statement
// set's INSERTs share one scan of src (and its aggregations), which keeps
// the id of the set's first INSERT (docs/stateful.md, "Statement sets").
func sourceOf(string) string { return "out_upsert/src" }

// file returns the job file at parallelism par.
func (j retractJob) file(in input, par int) string {
	p := strconv.Itoa(par)
	kafkaSink := func(name, topic string) string {
		return `'topic' = '` + topic + `', 'properties.bootstrap.servers' = '` + j.b.Addr + `',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + j.name + `-` + name + `', 'sink.parallelism' = '` + p + `'`
	}
	query := `SELECT cnt, COUNT(*) AS n FROM (SELECT k, COUNT(*) AS cnt FROM src GROUP BY k) GROUP BY cnt`
	return `SET 'parallelism.default' = '` + p + `';
CREATE TABLE src (id BIGINT, k BIGINT) WITH (
  'connector' = 'kafka', 'topic' = '` + j.in + `', 'properties.bootstrap.servers' = '` + j.b.Addr + `',
  'properties.isolation.level' = 'read_committed', 'properties.max.poll.records' = '32',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'specific-offsets',
  'scan.bounded.specific-offsets' = '` + in.specificOffsets() + `',
  'format' = 'debezium-json', 'scan.parallelism' = '` + p + `');
CREATE TABLE out_upsert (cnt BIGINT, n BIGINT, PRIMARY KEY (cnt) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'key.format' = 'json', 'value.format' = 'json', ` + kafkaSink("upsert", j.upsert) + `);
CREATE TABLE out_cdc (cnt BIGINT, n BIGINT) WITH ('connector' = 'kafka',
  'key.format' = 'json', 'key.fields' = 'cnt', 'value.format' = 'debezium-json', ` + kafkaSink("cdc", j.cdc) + `);
CREATE TABLE out_jdbc (cnt BIGINT, n BIGINT, PRIMARY KEY (cnt) NOT ENFORCED) WITH ('connector' = 'jdbc',
  'url' = '${PG_URL}', 'table-name' = '` + j.jdbcName + `', 'username' = '${PG_USER}', 'password' = '${PG_PASSWORD}',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.parallelism' = '` + p + `');
EXECUTE STATEMENT SET BEGIN
INSERT INTO out_upsert ` + query + `;
INSERT INTO out_cdc ` + query + `;
INSERT INTO out_jdbc ` + query + `;
END;
`
}

// checkpoints records every checkpoint the job completes (at the fault
// point after-checkpoint-written, from the checkpoint's file) and checks
// the jdbc table whenever the commits of a checkpoint are about to start
// (commit-delay). It is the job's fault injector.
type checkpoints struct {
	store *checkpoint.Dir
	// check checks the database against the completed checkpoint md.
	check func(md *checkpoint.Metadata)

	mu      sync.Mutex
	done    []*checkpoint.Metadata // in completion order
	checked int                    // checks made by commit-delay
	// stopAfter, when positive, cancels the run (stop) once that many
	// checkpoints completed in it; run counts them.
	stopAfter, run int
	stop           context.CancelFunc
}

var _ runtime.FaultInjector = (*checkpoints)(nil)

// Hit implements runtime.FaultInjector.
func (c *checkpoints) Hit(_ context.Context, p runtime.FaultPoint, info runtime.FaultInfo) error {
	switch p {
	case runtime.AfterCheckpointWritten:
		refs, err := c.store.List()
		if err != nil {
			return fmt.Errorf("listing checkpoints: %w", err)
		}
		var md *checkpoint.Metadata
		for _, r := range refs {
			if r.ID == info.Checkpoint && r.Revision == 0 {
				if md, err = c.store.Read(r); err != nil {
					return err
				}
			}
		}
		if md == nil {
			return fmt.Errorf("checkpoint %d is complete but not listed: %v", info.Checkpoint, refs)
		}
		c.mu.Lock()
		c.done = append(c.done, md)
		if c.run++; c.stopAfter > 0 && c.run == c.stopAfter {
			c.stop()
		}
		c.mu.Unlock()
	case runtime.CommitDelay:
		// Every earlier commit is done and none of this checkpoint's: the
		// database holds what the latest checkpoint before it committed.
		c.mu.Lock()
		var last *checkpoint.Metadata
		for _, md := range c.done {
			if md.ID < info.Checkpoint {
				last = md
			}
		}
		if last != nil {
			c.checked++
		}
		c.mu.Unlock()
		if last != nil {
			c.check(last)
		}
	}
	return nil
}

// last returns the latest completed checkpoint.
func (c *checkpoints) last() *checkpoint.Metadata {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.done) == 0 {
		return nil
	}
	return c.done[len(c.done)-1]
}

// positions returns the next offsets of source's splits in md, by
// partition.
func positions(md *checkpoint.Metadata, source string) (map[int32]int64, error) {
	out := map[int32]int64{}
	for _, s := range md.Sources[source] {
		_, ps, _ := strings.Cut(s.ID, ":")
		p, err1 := strconv.ParseInt(ps, 10, 32)
		next, _, _ := strings.Cut(string(s.State), "/")
		n, err2 := strconv.ParseInt(next, 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("checkpoint %d: source %s: split %q state %q", md.ID, source, s.ID, s.State)
		}
		out[int32(p)] = n
	}
	if len(out) != retractParts {
		return nil, fmt.Errorf("checkpoint %d: source %s has positions of %d partitions, want %d (sources %v)", md.ID, source, len(out), retractParts, slices.Sorted(maps.Keys(md.Sources)))
	}
	return out, nil
}

// oracleAt returns the two-level oracle at the positions of sink's source
// in md.
func oracleAt(evs [][]cdcEvent, md *checkpoint.Metadata, sink string) (table, error) {
	pos, err := positions(md, sourceOf(sink))
	if err != nil {
		return nil, err
	}
	return twoLevelOracle(evs, pos), nil
}

// dbTable reads the jdbc table.
func dbTable(ctx context.Context, db *sql.DB, name string) (table, error) {
	rows, err := db.QueryContext(ctx, "SELECT cnt, n FROM "+name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := table{}
	for rows.Next() {
		var c, n int64
		if err := rows.Scan(&c, &n); err != nil {
			return nil, err
		}
		out[strconv.FormatInt(c, 10)] = fmt.Sprintf("%d|%d", c, n)
	}
	return out, rows.Err()
}

// txnOf maps a Kafka transaction (producer id, epoch) to the checkpoint
// whose committable it is.
type txnOf map[[2]int64]int64

// kafkaTxns returns the transactions of sink listed by the committables of
// the checkpoints mds.
func kafkaTxns(t *testing.T, mds []*checkpoint.Metadata, sink string) txnOf {
	t.Helper()
	out := txnOf{}
	for _, md := range mds {
		for _, c := range md.Pending {
			if c.Sink != sink {
				continue
			}
			var data struct {
				ProducerID int64 `json:"producerId"`
				Epoch      int64 `json:"epoch"`
			}
			if err := json.Unmarshal(c.Data, &data); err != nil {
				t.Fatalf("checkpoint %d: committable %s: %v", md.ID, c.Key, err)
			}
			out[[2]int64{data.ProducerID, data.Epoch}] = c.Checkpoint
		}
	}
	return out
}

// upTo returns the records of recs that the checkpoints up to id
// committed, in offset order per partition; every record must belong to a
// known transaction.
func (tx txnOf) upTo(t *testing.T, recs map[int32][]*kgo.Record, id int64) map[int32][]*kgo.Record {
	t.Helper()
	out := map[int32][]*kgo.Record{}
	for p, rs := range recs {
		for _, r := range rs {
			c, ok := tx[[2]int64{r.ProducerID, int64(r.ProducerEpoch)}]
			if !ok {
				t.Fatalf("partition %d offset %d: committed by producer %d epoch %d, a transaction no checkpoint lists", p, r.Offset, r.ProducerID, r.ProducerEpoch)
			}
			if c <= id {
				out[p] = append(out[p], r)
			}
		}
	}
	return out
}

// TestRetractionsTwoLevels runs the two-level job at parallelisms 1/1,
// 4/4 and 4/2 (stop, change the parallelism, restore) and checks every
// sink after every completed checkpoint.
func TestRetractionsTwoLevels(t *testing.T) {
	b := kafkatest.Require(t)
	pg := dbtest.PostgreSQL(t)
	db := pg.Open(t)
	rng := crashtest.Rand(t, 2)
	for _, pp := range [][2]int{{1, 1}, {4, 4}, {4, 2}} {
		seed := rng.Uint64()
		t.Run(fmt.Sprintf("p%d-p%d", pp[0], pp[1]), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 2))
			j := retractJob{b: b, pg: pg, dir: t.TempDir(), name: kafkatest.UniqueName(t), in: b.Topic(t, retractParts),
				upsert: b.Topic(t, 3), cdc: b.Topic(t, 3), jdbcName: dbtest.Table("two_level")}
			dbtest.Exec(t, db, "CREATE TABLE "+j.jdbcName+" (cnt BIGINT PRIMARY KEY, n BIGINT NOT NULL)")
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + j.jdbcName) })
			in, evs := retractInput(j.in, rng, 600, 50, 8)
			// The input arrives over about 3 s, while the job runs.
			produced := in.produce(t, b, 2, 10*time.Millisecond)
			store, err := checkpoint.OpenDir(filepath.Join(j.dir, "checkpoints"), j.name)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var failures []string
			cp := &checkpoints{store: store}
			cp.check = func(md *checkpoint.Metadata) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				var d string
				got, err := dbTable(ctx, db, j.jdbcName)
				want, werr := oracleAt(evs, md, sinkJDBC)
				switch {
				case err != nil:
					d = err.Error()
				case werr != nil:
					d = werr.Error()
				default:
					d = got.diff(want)
				}
				if d != "" {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("after checkpoint %d: %s", md.ID, d))
					mu.Unlock()
				}
			}
			runs := []struct{ par, stopAfter int }{{pp[0], 4}, {pp[1], 0}}
			for i, r := range runs {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				cp.mu.Lock()
				cp.run, cp.stopAfter, cp.stop, cp.checked = 0, r.stopAfter, cancel, 0
				cp.mu.Unlock()
				jb, err := job.Compile(ctx, "two_level.sql", j.file(in, r.par), job.Options{JobName: j.name,
					Vars: map[string]string{"PG_URL": pg.URL, "PG_USER": pg.User, "PG_PASSWORD": pg.Password},
					Set: map[string]string{"execution.checkpointing.interval": "100ms", "restart-strategy.type": "none",
						"execution.checkpointing.dir": filepath.Join(j.dir, "checkpoints")},
					Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
					Testing: job.Testing{Faults: cp}})
				if err != nil {
					cancel()
					t.Fatal(err)
				}
				err = jb.Run(ctx)
				stopped := ctx.Err() != nil
				cancel()
				if err != nil {
					t.Fatalf("run %d at parallelism %d: %v", i+1, r.par, err)
				}
				if r.stopAfter > 0 && !stopped {
					t.Fatalf("run %d ended before it was stopped: the input was read before %d checkpoints", i+1, r.stopAfter)
				}
				last := cp.last()
				if last == nil {
					t.Fatalf("run %d completed no checkpoint", i+1)
				}
				cp.check(last)
				t.Logf("run %d at parallelism %d: %d checkpoints, the database checked after %d of them and after the last (%d)", i+1, r.par, cp.run, cp.checked, last.ID)
				if i == 0 {
					produced()
				}
			}
			mu.Lock()
			for _, f := range failures {
				t.Errorf("jdbc %s", f)
			}
			mu.Unlock()
			if want, err := oracleAt(evs, cp.last(), sinkJDBC); err != nil || len(want) == 0 {
				t.Fatalf("the final oracle is empty (%v)", err)
			}
			j.verifyKafka(t, cp.done, evs)
		})
	}
}

// verifyKafka checks the Kafka sinks after every completed checkpoint.
func (j retractJob) verifyKafka(t *testing.T, done []*checkpoint.Metadata, evs [][]cdcEvent) {
	t.Helper()
	for _, s := range []struct {
		sink, topic string
		apply       func(map[int32][]*kgo.Record) (table, error)
	}{
		{sinkUpsert, j.upsert, func(r map[int32][]*kgo.Record) (table, error) { return applyUpsert(r, twoLevelCols, 1, false) }},
		{sinkCDC, j.cdc, func(r map[int32][]*kgo.Record) (table, error) { return applyDebezium(r, twoLevelCols, 1) }},
	} {
		recs := committed(t, j.b, s.topic)
		txns := kafkaTxns(t, done, s.sink)
		for _, md := range done {
			got, err := s.apply(txns.upTo(t, recs, md.ID))
			if err == nil {
				var want table
				if want, err = oracleAt(evs, md, s.sink); err == nil {
					if d := got.diff(want); d != "" {
						err = fmt.Errorf("%s", d)
					}
				}
			}
			if err != nil {
				t.Errorf("%s after checkpoint %d: %v", s.sink, md.ID, err)
				break
			}
		}
	}
}
