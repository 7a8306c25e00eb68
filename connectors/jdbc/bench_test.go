package jdbc_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/types"
)

// TestThroughput measures rows/s into each database, in one run: a
// hand-written baseline (multi-row INSERTs of 1,000 rows, one transaction
// each, with the same driver and table), the sink's at-least-once upsert
// and its exactly-once mode (a checkpoint — PreCommit, then Commit — every
// 2,000 rows), with the p50/p99 of the exactly-once commit latency
// (PreCommit's prepare plus Commit). In CI it is a smoke test of 4,000
// rows that checks the counts, never the speed; STREAMSQL_JDBC_BENCH=1
// measures 200,000 rows and prints the table of BENCHMARKS.md.
func TestThroughput(t *testing.T) {
	n := 4000
	if os.Getenv("STREAMSQL_JDBC_BENCH") == "1" {
		n = 200000
	}
	const every = 2000
	rows := make([]types.Row, n)
	for i := range rows {
		rows[i] = types.Row{Fields: []types.Value{types.Int64(int64(i)), types.Str("customer-" + strconv.Itoa(i%5000)),
			types.DecimalValue(types.NewDecimal(int64(i)*7%100000, 2)), types.TimestampValue(types.Timestamp{Millis: 1700000000000 + int64(i)})}}
	}
	var report []string
	for _, srv := range dbtest.All(t) {
		db := srv.Open(t)
		newTable := func() string {
			name := dbtest.Table("bench")
			ts := "TIMESTAMP(3)"
			if !srv.IsPostgreSQL() {
				ts = "DATETIME(3)"
			}
			dbtest.Exec(t, db, "CREATE TABLE "+name+" (id BIGINT PRIMARY KEY, name VARCHAR(40), amount DECIMAL(10, 2), ts "+ts+")")
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE " + name) })
			return name
		}
		count := func(name string) {
			var c int
			if err := db.QueryRow("SELECT COUNT(*) FROM " + name).Scan(&c); err != nil {
				t.Fatal(err)
			}
			if c != n {
				t.Fatalf("%s: %s holds %d rows, want %d", srv.Name, name, c, n)
			}
		}

		name := newTable()
		start := time.Now()
		baseline(t, srv, db, name, rows, false)
		base := time.Since(start)
		count(name)

		name = newTable()
		start = time.Now()
		baseline(t, srv, db, name, rows, true)
		baseUp := time.Since(start)
		count(name)

		name = newTable()
		up, _ := sinkRun(t, srv, name, rows, "at-least-once", every)
		count(name)

		name = newTable()
		eo, lat := sinkRun(t, srv, name, rows, "exactly-once", every)
		count(name)
		slices.Sort(lat)
		rate := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(n)/d.Seconds()) }
		report = append(report, fmt.Sprintf("| %s | %s | %s | %s (%.2fx, %.2fx) | %s (%.2fx) | %v / %v |", srv.Name, rate(base), rate(baseUp),
			rate(up), base.Seconds()/up.Seconds(), baseUp.Seconds()/up.Seconds(), rate(eo), base.Seconds()/eo.Seconds(),
			lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*99/100].Round(10*time.Microsecond)))
	}
	t.Logf("%d rows, one task, a checkpoint every %d rows:\n| database | baseline INSERT rows/s | baseline upsert rows/s | sink upsert rows/s (vs INSERT, vs upsert) | sink exactly-once rows/s (vs INSERT) | commit p50 / p99 |\n|---|---|---|---|---|---|\n%s",
		n, every, strings.Join(report, "\n"))
}

// baseline writes rows with hand-written multi-row INSERTs of 1,000 rows,
// each in its own transaction, through the driver directly.
func baseline(t *testing.T, srv dbtest.Server, db *sql.DB, name string, rows []types.Row, upsert bool) {
	ctx := context.Background()
	for len(rows) > 0 {
		k := min(1000, len(rows))
		var b strings.Builder
		args := make([]any, 0, 4*k)
		b.WriteString("INSERT INTO " + name + " (id, name, amount, ts) VALUES ")
		for i, r := range rows[:k] {
			if i > 0 {
				b.WriteString(", ")
			}
			if srv.IsPostgreSQL() {
				fmt.Fprintf(&b, "($%d, $%d, $%d, $%d)", 4*i+1, 4*i+2, 4*i+3, 4*i+4)
			} else {
				b.WriteString("(?, ?, ?, ?)")
			}
			args = append(args, r.Fields[0].Int64(), r.Fields[1].Str(), r.Fields[2].Decimal().String(), r.Fields[3].Timestamp().Time())
		}
		switch {
		case upsert && srv.IsPostgreSQL():
			b.WriteString(" ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, amount = EXCLUDED.amount, ts = EXCLUDED.ts")
		case upsert:
			b.WriteString(" ON DUPLICATE KEY UPDATE name = VALUES(name), amount = VALUES(amount), ts = VALUES(ts)")
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		rows = rows[k:]
	}
}

// sinkRun writes rows through the factory-created sink in batches of 500,
// with a checkpoint every `every` rows, and returns the time taken and,
// for exactly-once, each checkpoint's prepare-and-commit latency.
func sinkRun(t *testing.T, srv dbtest.Server, name string, rows []types.Row, delivery string, every int) (time.Duration, []time.Duration) {
	ctx := context.Background()
	tbl := jdbcTable(srv, name, true, "sink.delivery-guarantee", delivery, "sink.buffer-flush.max-rows", "1000",
		"sink.buffer-flush.interval", "0")
	tbl.Schema = factory.Schema{Columns: []factory.Column{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.VarChar(40)},
		{Name: "amount", Type: types.DecimalType(10, 2)}, {Name: "ts", Type: types.TimestampType(3)}}, PrimaryKey: []string{"id"}}
	sink, _, err := factory.Default.CreateSink(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	var c connector.Committer
	if tp, ok := sink.(connector.TwoPhaseSink); ok {
		if c, err = tp.Committer(ctx, "bench"); err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Recover(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	w, err := sink.Open(ctx, connector.TaskInfo{Job: "bench", Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var lat []time.Duration
	start := time.Now()
	cp := int64(0)
	checkpoint := func() {
		cp++
		t0 := time.Now()
		cs, err := w.PreCommit(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		for _, cm := range cs {
			if err := c.Commit(ctx, cm); err != nil {
				t.Fatal(err)
			}
		}
		if c != nil {
			lat = append(lat, time.Since(t0))
		}
	}
	for i := 0; i < len(rows); i += 500 {
		if err := w.Write(ctx, rows[i:min(i+500, len(rows))]); err != nil {
			t.Fatal(err)
		}
		if (i+500)%every == 0 {
			checkpoint()
		}
	}
	checkpoint()
	return time.Since(start), lat
}
