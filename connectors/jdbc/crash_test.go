package jdbc_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connectors/jdbc"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"

	_ "github.com/streamsql/streamsql/connectors/kafka"
	_ "github.com/streamsql/streamsql/formats"
)

// Crash tests (internal/testrig/crashtest): the test binary re-executes
// itself as the child role "crash" (crashChild), its settings in the
// environment variables below. The child runs the
// job Kafka (bounded, json records {id, k, v}) → two jdbc sinks: an
// exactly-once append table and an at-least-once upsert table keyed by k,
// with checkpoints in a directory and the faults of testkit.FaultsEnv. The
// parent SIGKILLs it (by a fault rule or a timer), restarts it until it
// finishes, and checks both tables with its own SQL queries.
const (
	crashEnv       = "STREAMSQL_JDBC_CRASH_DIR"
	crashURLEnv    = "STREAMSQL_JDBC_CRASH_URL"
	crashUserEnv   = "STREAMSQL_JDBC_CRASH_USER"
	crashPassEnv   = "STREAMSQL_JDBC_CRASH_PASSWORD"
	crashTopicEnv  = "STREAMSQL_JDBC_CRASH_TOPIC"
	crashKafkaEnv  = "STREAMSQL_JDBC_CRASH_KAFKA"
	crashTablesEnv = "STREAMSQL_JDBC_CRASH_TABLES"
)

// crashKeys is the number of distinct keys k of the upsert table.
const crashKeys = 40

var crashColumns = []factory.Column{{Name: "id", Type: types.BigInt()}, {Name: "k", Type: types.BigInt()}, {Name: "v", Type: types.BigInt()}}

// crashJob is the job's name; the exactly-once sink's prepared
// transactions are named after it.
const crashJob = "jdbccrash"

func crashChild(dir string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	faults, err := testkit.FaultsFromEnv()
	if err != nil {
		return fail(err)
	}
	var tables [3]string
	if _, err := fmt.Sscan(os.Getenv(crashTablesEnv), &tables[0], &tables[1], &tables[2]); err != nil {
		return fail(err)
	}
	ctx := context.Background()
	reg := factory.Default.Clone()
	src, _, err := reg.CreateSource(ctx, factory.Table{Name: "in", Schema: factory.Schema{Columns: crashColumns},
		Options: map[string]string{"connector": "kafka", "topic": os.Getenv(crashTopicEnv),
			"properties.bootstrap.servers": os.Getenv(crashKafkaEnv), "format": "json",
			"scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset"}})
	if err != nil {
		return fail(err)
	}
	jdbcOpts := func(table string, extra ...string) map[string]string {
		o := map[string]string{"connector": "jdbc", "url": os.Getenv(crashURLEnv), "table-name": table,
			"username": os.Getenv(crashUserEnv), "password": os.Getenv(crashPassEnv), "sink.buffer-flush.max-rows": "37"}
		for i := 0; i+1 < len(extra); i += 2 {
			o[extra[i]] = extra[i+1]
		}
		return o
	}
	eo, _, err := reg.CreateSink(ctx, factory.Table{Name: "out_eo", Schema: factory.Schema{Columns: crashColumns},
		Options: jdbcOpts(tables[0], "sink.delivery-guarantee", "exactly-once"), Job: factory.JobContext{Name: crashJob}})
	if err != nil {
		return fail(err)
	}
	// A second exactly-once sink, so that a checkpoint's commits can be
	// cut between sinks.
	eo2, _, err := reg.CreateSink(ctx, factory.Table{Name: "out_eo2", Schema: factory.Schema{Columns: crashColumns},
		Options: jdbcOpts(tables[2], "sink.delivery-guarantee", "exactly-once"), Job: factory.JobContext{Name: crashJob}})
	if err != nil {
		return fail(err)
	}
	up, _, err := reg.CreateSink(ctx, factory.Table{Name: "out_up", Schema: factory.Schema{Columns: crashColumns, PrimaryKey: []string{"k"}},
		Options: jdbcOpts(tables[1], "sink.buffer-flush.interval", "5ms"), Job: factory.JobContext{Name: crashJob}})
	if err != nil {
		return fail(err)
	}
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 20 * time.Millisecond
	cfg.Checkpoint.Dir = filepath.Join(dir, "checkpoints")
	cfg.Checkpoint.Retention = jobconfig.RetainOnCancellation
	cfg.Restart.Strategy = jobconfig.RestartNone
	var n atomic.Int64
	spec := runtime.JobSpec{
		Name:   crashJob,
		Config: cfg,
		Pipelines: []runtime.Pipeline{{
			Name:    "main",
			Sources: []runtime.SourceSpec{{Name: "in", Source: src, Parallelism: 2}},
			// Slow the job down a little, so that it lives through
			// several checkpoints (and the faults' hits).
			Transform: func(in types.Row, out []types.Row) ([]types.Row, error) {
				if n.Add(1)%4 == 0 {
					time.Sleep(time.Millisecond)
				}
				return append(out, in), nil
			},
			Sinks: []runtime.SinkSpec{{Name: "out_eo", Sink: eo, Parallelism: 2}, {Name: "out_eo2", Sink: eo2, Parallelism: 1},
				{Name: "out_up", Sink: up, Parallelism: 2}},
		}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if faults != nil {
		spec.Faults = faults
	}
	j, err := runtime.NewJob(spec)
	if err != nil {
		return fail(err)
	}
	runCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := j.Run(runCtx); err != nil {
		return fail(err)
	}
	return 0
}

// crashRig runs the crash job in child processes.
type crashRig struct {
	srv    dbtest.Server
	db     *sql.DB
	broker kafkatest.Broker
	dir    string
	topic  string
	tables [3]string // exactly-once, upsert, exactly-once
	rows   int
}

// newCrashRig creates the topic with rows records (key k = id % crashKeys,
// in partition k % 2, so that each key's records are in order in one
// partition, and one sink task writes them) and the two tables.
func newCrashRig(t *testing.T, srv dbtest.Server, rows int) *crashRig {
	b := kafkatest.Require(t)
	r := &crashRig{srv: srv, db: srv.Open(t), broker: b, dir: t.TempDir(), topic: b.Topic(t, 2), rows: rows}
	cl := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var recs []*kgo.Record
	for i := range rows {
		k := i % crashKeys
		recs = append(recs, &kgo.Record{Topic: r.topic, Partition: int32(k % 2),
			Value: fmt.Appendf(nil, `{"id":%d,"k":%d,"v":%d}`, i, k, i)})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("producing the input: %v", err)
	}
	r.tables = [3]string{dbtest.Table("crash_eo"), dbtest.Table("crash_up"), dbtest.Table("crash_eo2")}
	dbtest.Exec(t, r.db, "CREATE TABLE "+r.tables[0]+" (id BIGINT, k BIGINT, v BIGINT)",
		"CREATE TABLE "+r.tables[1]+" (id BIGINT, k BIGINT PRIMARY KEY, v BIGINT)",
		"CREATE TABLE "+r.tables[2]+" (id BIGINT, k BIGINT, v BIGINT)")
	t.Cleanup(func() {
		for _, tb := range r.tables {
			_, _ = r.db.Exec("DROP TABLE IF EXISTS " + tb)
		}
	})
	return r
}

// run runs the job in a child process, SIGKILLing it killAfter after it
// committed its first rows when killAfter is positive. It reports whether the child died of SIGKILL.
func (r *crashRig) run(t *testing.T, faults string, killAfter time.Duration) (killed bool) {
	t.Helper()
	c := crashtest.Start(t, crashtest.Spec{Role: "crash", Env: []string{crashEnv + "=" + r.dir, crashURLEnv + "=" + r.srv.URL,
		crashUserEnv + "=" + r.srv.User, crashPassEnv + "=" + r.srv.Password, crashTopicEnv + "=" + r.topic,
		crashKafkaEnv + "=" + r.broker.Addr, crashTablesEnv + "=" + r.tables[0] + " " + r.tables[1] + " " + r.tables[2],
		testkit.FaultsEnv + "=" + faults}})
	if killAfter > 0 {
		// The kill falls killAfter after this run committed its first
		// rows (a slow start would otherwise eat every kill window).
		before := r.committed()
	wait:
		for r.committed() <= before {
			select {
			case <-c.Done():
				break wait
			case <-time.After(10 * time.Millisecond):
			}
		}
		select {
		case <-c.Done():
		case <-time.After(killAfter):
			c.Signal(syscall.SIGKILL)
		}
	}
	killed, err := c.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return killed
}

// committed returns the number of rows in the exactly-once table, -1 on
// error.
func (r *crashRig) committed() int {
	var n int
	if err := r.db.QueryRow("SELECT COUNT(*) FROM " + r.tables[0]).Scan(&n); err != nil {
		return -1
	}
	return n
}

// finish runs the job without faults until it ends; it must not wait for
// leftovers of the killed runs longer than its recovery takes (the
// child's own deadline catches a hang).
func (r *crashRig) finish(t *testing.T) {
	t.Helper()
	start := time.Now()
	if r.run(t, "", 0) {
		t.Fatal("child killed without a fault")
	}
	t.Logf("the last run took %v", time.Since(start).Round(time.Millisecond))
}

// verify checks, with its own queries: the exactly-once table holds every
// id once; the upsert table holds, for each key, the last record's value;
// no prepared transaction of the job is left.
func (r *crashRig) verify(t *testing.T) {
	t.Helper()
	r.verifyOnce(t, r.tables[0])
	r.verifyOnce(t, r.tables[2])
	r.verifyUpsert(t)
	for _, sink := range []string{"out_eo", "out_eo2"} {
		if left := preparedOf(t, r.srv, r.db, jdbc.GIDPrefix(crashJob, sink)); len(left) > 0 {
			t.Errorf("prepared transactions of %s left after the job finished: %v", sink, left)
		}
	}
}

// verifyOnce checks that an exactly-once table holds every id once.
func (r *crashRig) verifyOnce(t *testing.T, table string) {
	t.Helper()
	rows, err := r.db.Query("SELECT id, COUNT(*) FROM " + table + " GROUP BY id")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]int64{}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		seen[id] = n
	}
	rows.Close()
	var missing, dup []int64
	for i := range int64(r.rows) {
		switch n := seen[i]; {
		case n == 0:
			missing = append(missing, i)
		case n > 1:
			dup = append(dup, i)
		}
		delete(seen, i)
	}
	if len(missing) > 0 || len(dup) > 0 || len(seen) > 0 {
		t.Errorf("exactly-once table %s: %d ids missing (first %v), %d duplicated (first %v), %d unexpected",
			table, len(missing), missing[:min(3, len(missing))], len(dup), dup[:min(3, len(dup))], len(seen))
	}
}

// verifyUpsert checks that the upsert table holds each key's last value.
func (r *crashRig) verifyUpsert(t *testing.T) {
	t.Helper()
	rows, err := r.db.Query("SELECT k, v FROM " + r.tables[1])
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]int64{}
	for rows.Next() {
		var k, v int64
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		got[k] = v
	}
	rows.Close()
	for k := range int64(crashKeys) {
		last := k + int64((r.rows-1-int(k))/crashKeys)*crashKeys
		if got[k] != last {
			t.Errorf("upsert table: key %d has value %d, want the last one %d", k, got[k], last)
		}
	}
	if len(got) != crashKeys {
		t.Errorf("upsert table: %d keys, want %d", len(got), crashKeys)
	}
}

// preparedOf lists the prepared transactions with prefix, by the
// server's own catalog.
func preparedOf(t testing.TB, srv dbtest.Server, db *sql.DB, prefix string) []string {
	t.Helper()
	var out []string
	if srv.IsPostgreSQL() {
		rows, err := db.Query("SELECT gid FROM pg_prepared_xacts WHERE gid LIKE $1", prefix+"-%")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var g string
			if err := rows.Scan(&g); err != nil {
				t.Fatal(err)
			}
			out = append(out, g)
		}
		return out
	}
	rows, err := db.Query("XA RECOVER")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var f, g, b int64
		var data string
		if err := rows.Scan(&f, &g, &b, &data); err != nil {
			t.Fatal(err)
		}
		if len(data) > len(prefix) && data[:len(prefix)+1] == prefix+"-" {
			out = append(out, data)
		}
	}
	return out
}

// TestCrashAtFailurePoints SIGKILLs the Kafka → jdbc job at each failure
// point of the runtime, restarts it until it finishes, and checks the
// tables. In CI each point runs once (second hit; the commit delay at its
// first), on PostgreSQL and MariaDB in turn; STREAMSQL_SOAK=1 runs every
// point at its first to third hit on both servers.
func TestCrashAtFailurePoints(t *testing.T) {
	soak := os.Getenv("STREAMSQL_SOAK") == "1"
	hits := []int{2}
	if soak {
		hits = []int{1, 2, 3}
	}
	servers := dbtest.All(t)
	var points []runtime.FaultPoint
	for _, p := range runtime.FaultPoints() {
		if !p.OperatorState() { // the job has no stateful operator
			points = append(points, p)
		}
	}
	for i, p := range points {
		for j, srv := range servers {
			if !soak && i%len(servers) != j {
				continue
			}
			for _, at := range hits {
				t.Run(fmt.Sprintf("%s/%s@%d", srv.Name, p, at), func(t *testing.T) {
					r := newCrashRig(t, srv, 3000)
					rule := fmt.Sprintf("%s@%d:kill", p, at)
					switch p {
					case runtime.DuringRecovery:
						if !r.run(t, fmt.Sprintf("%s@%d:kill", runtime.AfterCheckpointWritten, at), 0) {
							t.Fatal("child was not killed after a checkpoint was written")
						}
						rule = fmt.Sprintf("%s@1:kill", p)
					case runtime.CommitDelay:
						// Its first hit: a slow (race-detector) run may
						// commit only a few times.
						hit := at
						if !soak {
							hit = 1
						}
						rule = fmt.Sprintf("%s@%d:kill:60ms", p, hit)
					}
					if !r.run(t, rule, 0) {
						t.Fatalf("child was not killed at %s", rule)
					}
					r.finish(t)
					r.verify(t)
				})
			}
		}
	}
}

// TestCrashAtRandomTimes SIGKILLs the job at random times, restarting it
// after each kill, then lets it finish and checks the tables.
// STREAMSQL_SOAK=1 makes it 50 kills over more rows.
func TestCrashAtRandomTimes(t *testing.T) {
	kills, rows := 3, 8000
	if os.Getenv("STREAMSQL_SOAK") == "1" {
		kills, rows = 50, 100000
	}
	for _, srv := range dbtest.All(t) {
		t.Run(srv.Name, func(t *testing.T) {
			r := newCrashRig(t, srv, rows)
			rng := crashtest.Rand(t, 1)
			got, runs := 0, 0
			for got < kills && runs < 3*kills {
				runs++
				if !r.run(t, "", time.Duration(rng.IntN(400))*time.Millisecond+time.Millisecond) {
					break // the job finished before the kill
				}
				got++
				var n int
				if err := r.db.QueryRow("SELECT COUNT(*) FROM " + r.tables[0]).Scan(&n); err != nil {
					t.Fatal(err)
				}
				t.Logf("kill %d: %d rows committed so far", got, n)
			}
			if got == 0 {
				t.Fatal("the job finished before the first kill: nothing was tested")
			}
			r.finish(t)
			r.verify(t)
			t.Logf("%d SIGKILLs in %d runs: every id once, every key's last value", got, runs)
		})
	}
}
