package jdbc_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connector/connectortest"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/types"

	_ "github.com/streamsql/streamsql/connectors/jdbc"
)

// createTable creates a table of connectortest.Fields (id, name) in the
// server, with a primary key on id when pk is set, and drops it when the
// test ends.
func createTable(t testing.TB, srv dbtest.Server, db *sql.DB, pk bool) string {
	t.Helper()
	name := dbtest.Table("conf")
	key := ""
	if pk {
		key = " PRIMARY KEY"
	}
	text := "TEXT"
	if !srv.IsPostgreSQL() {
		text = "VARCHAR(200)"
	}
	dbtest.Exec(t, db, fmt.Sprintf("CREATE TABLE %s (id BIGINT%s, name %s)", name, key, text))
	t.Cleanup(func() {
		_, _ = db.Exec("DROP TABLE IF EXISTS " + name)
	})
	return name
}

// jdbcTable is the Flink table of a jdbc table in srv.
func jdbcTable(srv dbtest.Server, name string, pk bool, extra ...string) factory.Table {
	opts := map[string]string{"connector": "jdbc", "url": srv.URL, "table-name": name,
		"username": srv.User, "password": srv.Password}
	for i := 0; i+1 < len(extra); i += 2 {
		opts[extra[i]] = extra[i+1]
	}
	schema := factory.PhysicalSchema(connectortest.Fields())
	if pk {
		schema.PrimaryKey = []string{"id"}
	}
	return factory.Table{Name: "cat.db." + name, Schema: schema, Options: opts,
		Job: factory.JobContext{Name: "conformance"}}
}

// readTable reads id, name from the table with the driver directly.
func readTable(t testing.TB, db *sql.DB, name string) []types.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SELECT id, name FROM "+name)
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	defer rows.Close()
	var out []types.Row
	for rows.Next() {
		var id int64
		var s string
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, types.Row{Fields: []types.Value{types.Int64(id), types.Str(s)}})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestConformance runs the connector conformance suite on the jdbc source
// and on the sink (append and upsert, at-least-once and exactly-once)
// against both real servers.
func TestConformance(t *testing.T) {
	for _, srv := range dbtest.All(t) {
		t.Run(srv.Name, func(t *testing.T) {
			db := srv.Open(t)
			t.Run("source", func(t *testing.T) {
				connectortest.RunSource(t, connectortest.SourceHarness{N: 500,
					Input: func(t testing.TB, rows []types.Row) func() (connector.Source, error) {
						name := createTable(t, srv, db, true)
						insertRows(t, db, srv, name, rows)
						tbl := jdbcTable(srv, name, true, "scan.partition.column", "id", "scan.partition.num", "3",
							"scan.partition.lower-bound", "0", "scan.partition.upper-bound", "499", "scan.fetch-size", "37")
						return func() (connector.Source, error) {
							src, _, err := factory.Default.CreateSource(context.Background(), tbl)
							return src, err
						}
					}})
			})
			for _, c := range []struct {
				name     string
				pk       bool
				delivery string
			}{{"sink-append", false, "at-least-once"}, {"sink-upsert", true, "at-least-once"},
				{"sink-exactly-once", true, "exactly-once"}, {"sink-exactly-once-append", false, "exactly-once"}} {
				t.Run(c.name, func(t *testing.T) {
					connectortest.RunSink(t, connectortest.SinkHarness{N: 300,
						New: func(t testing.TB) connectortest.SinkFixture {
							name := createTable(t, srv, db, c.pk)
							tbl := jdbcTable(srv, name, c.pk, "sink.delivery-guarantee", c.delivery, "sink.buffer-flush.max-rows", "50")
							return connectortest.SinkFixture{
								NewSink: func() (connector.Sink, error) {
									s, _, err := factory.Default.CreateSink(context.Background(), tbl)
									return s, err
								},
								Committed: func(t testing.TB, _ int) []types.Row { return readTable(t, db, name) },
								Break: func(t testing.TB) {
									dbtest.Exec(t, db, "DROP TABLE "+name)
								},
							}
						}})
				})
			}
		})
	}
}

// insertRows writes rows of connectortest.Fields into the table with the
// driver directly.
func insertRows(t testing.TB, db *sql.DB, srv dbtest.Server, name string, rows []types.Row) {
	t.Helper()
	for len(rows) > 0 {
		n := min(len(rows), 200)
		var b strings.Builder
		var args []any
		b.WriteString("INSERT INTO " + name + " (id, name) VALUES ")
		for i, r := range rows[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			if srv.IsPostgreSQL() {
				fmt.Fprintf(&b, "($%d, $%d)", 2*i+1, 2*i+2)
			} else {
				b.WriteString("(?, ?)")
			}
			args = append(args, r.Fields[0].Int64(), r.Fields[1].Str())
		}
		if _, err := db.Exec(b.String(), args...); err != nil {
			t.Fatalf("inserting input rows: %v", err)
		}
		rows = rows[n:]
	}
}
