package job_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/job"
)

// TestLookupJoinEndToEnd runs lookup joins as a user writes them, against
// the real PostgreSQL and MariaDB: orders (VALUES with a processing-time
// attribute) look their customers up in a jdbc table, INNER and LEFT,
// with a key that needs a cast, a condition on the looked-up row, a
// PARTIAL cache and several lookups in flight; the printed rows are the
// batch join of the orders with the table.
func TestLookupJoinEndToEnd(t *testing.T) {
	for _, srv := range dbtest.All(t) {
		t.Run(srv.Name, func(t *testing.T) {
			db := srv.Open(t)
			name := dbtest.Table("customers")
			text := "TEXT"
			if !srv.IsPostgreSQL() {
				text = "VARCHAR(100)"
			}
			dbtest.Exec(t, db, fmt.Sprintf("CREATE TABLE %s (id BIGINT PRIMARY KEY, name %s, country %s)", name, text, text),
				"INSERT INTO "+name+" VALUES (1, 'ada', 'NL'), (2, 'bob', 'DE'), (3, 'cy', 'NL')")
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + name) })
			sql := fmt.Sprintf(`
SET 'table.exec.async-lookup.buffer-capacity' = '4';
CREATE TABLE customers (id BIGINT, name STRING, country STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '%s', 'table-name' = '%s', 'username' = '%s', 'password' = '%s',
  'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100');
CREATE VIEW orders AS SELECT *, PROCTIME() AS p FROM (VALUES (10, 1, 5), (11, 2, 7), (12, 9, 1), (13, 1, 2), (14, CAST(NULL AS INT), 3)) AS t (oid, customer, amount);
SELECT o.oid, c.name, o.amount FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON o.customer = c.id;
SELECT o.oid, c.name FROM orders o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON c.id = o.customer AND c.country = 'NL';
`, srv.URL, name, srv.User, srv.Password)
			var out bytes.Buffer
			j, err := job.Compile(context.Background(), "lookup.sql", sql, job.Options{Output: &out, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := j.Run(ctx); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSpace(out.String()), "\n")
			slices.Sort(got)
			want := []string{
				// Query 1, INNER: orders 12 (no customer 9) and 14 (NULL) drop.
				"1> +I[10, ada, 5]", "1> +I[11, bob, 7]", "1> +I[13, ada, 2]",
				// Query 2, LEFT, with country = 'NL': bob's row fails it.
				"2> +I[10, ada]", "2> +I[11, null]", "2> +I[12, null]", "2> +I[13, ada]", "2> +I[14, null]",
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("printed\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// TestLookupHintRetriesMiss runs a lookup join with Flink's LOOKUP hint
// retrying a miss (real PostgreSQL and MariaDB): the customer of the only
// order is inserted after the job starts, while its lookup waits between
// attempts, and the INNER join still emits the joined row. Without the
// hint's retry the first lookup misses and the row is dropped.
func TestLookupHintRetriesMiss(t *testing.T) {
	for _, srv := range dbtest.All(t) {
		t.Run(srv.Name, func(t *testing.T) {
			db := srv.Open(t)
			name := dbtest.Table("late_customers")
			text := "TEXT"
			if !srv.IsPostgreSQL() {
				text = "VARCHAR(100)"
			}
			dbtest.Exec(t, db, fmt.Sprintf("CREATE TABLE %s (id BIGINT PRIMARY KEY, name %s)", name, text))
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + name) })
			sql := fmt.Sprintf(`
CREATE TABLE customers (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '%s', 'table-name' = '%s', 'username' = '%s', 'password' = '%s');
CREATE VIEW orders AS SELECT *, PROCTIME() AS p FROM (VALUES (10, 7)) AS t (oid, customer);
SELECT /*+ LOOKUP('table' = 'c', 'retry-predicate' = 'lookup_miss', 'retry-strategy' = 'fixed_delay',
  'fixed-delay' = '100ms', 'max-attempts' = '100') */ o.oid, c.name
FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.p AS c ON o.customer = c.id;
`, srv.URL, name, srv.User, srv.Password)
			var out bytes.Buffer
			j, err := job.Compile(context.Background(), "lookup_hint.sql", sql, job.Options{Output: &out, Logger: quiet,
				Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}})
			if err != nil {
				t.Fatal(err)
			}
			var plan strings.Builder
			if err := j.Explain(&plan); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plan.String(), "looked up again up to 100 times, 100 ms apart (LOOKUP hint)") {
				t.Fatalf("EXPLAIN does not show the hint's retry:\n%s", plan.String())
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			inserted := make(chan error, 1)
			go func() {
				time.Sleep(500 * time.Millisecond) // several misses first
				_, err := db.ExecContext(ctx, "INSERT INTO "+name+" VALUES (7, 'late')")
				inserted <- err
			}()
			if err := j.Run(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-inserted; err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(out.String()); got != "+I[10, late]" {
				t.Fatalf("printed %q, want +I[10, late]", got)
			}
		})
	}
}
