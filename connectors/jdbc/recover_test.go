package jdbc_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/jdbc"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/types"
)

// TestRecoverLeftovers checks, on both servers, what a restarted job does
// with the prepared transactions a killed run left: they hold the rows'
// locks (a write to the same row waits), recovery rolls back the job's own
// ones so that the new run writes the same rows at once, and a prepared
// transaction of another job is left alone.
func TestRecoverLeftovers(t *testing.T) {
	for _, srv := range dbtest.All(t) {
		t.Run(srv.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			db := srv.Open(t)
			mine, other := createTable(t, srv, db, true), createTable(t, srv, db, true)
			dbtest.Exec(t, db, "INSERT INTO "+mine+" (id, name) VALUES (1, 'before')")
			sinkOf := func(name, job string) connector.TwoPhaseSink {
				tbl := jdbcTable(srv, name, true, "sink.delivery-guarantee", "exactly-once")
				tbl.Job.Name = job
				s, _, err := factory.Default.CreateSink(ctx, tbl)
				if err != nil {
					t.Fatal(err)
				}
				return s.(connector.TwoPhaseSink)
			}
			// prepare runs a job that prepares one transaction writing
			// (1, value) and dies before committing it.
			prepare := func(s connector.TwoPhaseSink, job, value string) connector.Committable {
				c, err := s.Committer(ctx, job)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				w, err := s.Open(ctx, connector.TaskInfo{Job: job, Parallelism: 1})
				if err != nil {
					t.Fatal(err)
				}
				row := types.Row{Kind: types.UpdateAfter, Fields: []types.Value{types.Int64(1), types.Str(value)}}
				if err := w.Write(ctx, []types.Row{row}); err != nil {
					t.Fatal(err)
				}
				cs, err := w.PreCommit(ctx, 7)
				if err != nil || len(cs) != 1 {
					t.Fatalf("PreCommit: %v, %d committables", err, len(cs))
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				return cs[0]
			}
			prepare(sinkOf(mine, "job-a"), "job-a", "lost")
			otherSink := sinkOf(other, "job-b")
			otherC := prepare(otherSink, "job-b", "other job's")
			t.Cleanup(func() {
				if c, err := otherSink.Committer(context.Background(), "job-b"); err == nil {
					_ = c.Abort(context.Background(), otherC)
					c.Close()
				}
			})
			prefixA, prefixB := jdbc.GIDPrefix("job-a", "cat.db."+mine), jdbc.GIDPrefix("job-b", "cat.db."+other)
			if got := preparedOf(t, srv, db, prefixA); len(got) != 1 {
				t.Fatalf("job a's prepared transactions: %v, want one", got)
			}

			// The leftover holds the row's lock: a write waits for it.
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			setTimeout := "SET lock_timeout = '300ms'"
			if !srv.IsPostgreSQL() {
				setTimeout = "SET SESSION innodb_lock_wait_timeout = 1"
			}
			if _, err := conn.ExecContext(ctx, setTimeout); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, "UPDATE "+mine+" SET name = 'blocked' WHERE id = 1"); err == nil {
				t.Fatal("a write to the row of a prepared transaction did not wait for its lock: the test shows nothing")
			} else {
				t.Logf("before recovery, a write to the row waits: %v", err)
			}
			conn.Close()

			// The next run of job a recovers from no checkpoint: its
			// leftover is rolled back, job b's is not.
			s := sinkOf(mine, "job-a")
			c, err := s.Committer(ctx, "job-a")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Recover(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if got := preparedOf(t, srv, db, prefixA); len(got) != 0 {
				t.Errorf("job a's prepared transactions after its recovery: %v", got)
			}
			if got := preparedOf(t, srv, db, prefixB); len(got) != 1 {
				t.Errorf("job b's prepared transactions after job a's recovery: %v, want its one left alone", got)
			}
			w, err := s.Open(ctx, connector.TaskInfo{Job: "job-a", Parallelism: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			row := types.Row{Kind: types.UpdateAfter, Fields: []types.Value{types.Int64(1), types.Str("after")}}
			if err := w.Write(ctx, []types.Row{row}); err != nil {
				t.Fatal(err)
			}
			cs, err := w.PreCommit(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, cm := range cs {
				if err := c.Commit(ctx, cm); err != nil {
					t.Fatal(err)
				}
			}
			got := readTable(t, db, mine)
			want := []types.Row{{Fields: []types.Value{types.Int64(1), types.Str("after")}}}
			if !slices.EqualFunc(got, want, func(a, b types.Row) bool { return a.Fields[1].Str() == b.Fields[1].Str() }) || len(got) != 1 {
				t.Errorf("table after the new run: %v, want (1, after)", got)
			}
		})
	}
}

// TestNoPreparedTransactions starts a PostgreSQL server with
// max_prepared_transactions = 0 (the server's default) and checks that an
// exactly-once sink fails at start with an error that says what to set,
// while an at-least-once sink writes.
func TestNoPreparedTransactions(t *testing.T) {
	t.Parallel()
	srv := dbtest.StartPostgreSQL(t, "../..", "max_prepared_transactions=0")
	db := srv.Open(t)
	name := createTable(t, srv, db, true)
	ctx := context.Background()
	s, _, err := factory.Default.CreateSink(ctx, jdbcTable(srv, name, true, "sink.delivery-guarantee", "exactly-once"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.(connector.TwoPhaseSink).Committer(ctx, "job")
	if !errors.Is(err, jdbc.ErrNoPreparedTransactions) {
		t.Fatalf("Committer: %v, want ErrNoPreparedTransactions", err)
	}
	for _, w := range []string{"max_prepared_transactions = 0", "set max_prepared_transactions to at least", "'sink.delivery-guarantee' = 'at-least-once'"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	s, _, err = factory.Default.CreateSink(ctx, jdbcTable(srv, name, true))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Open(ctx, connector.TaskInfo{Job: "job"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(ctx, []types.Row{{Fields: []types.Value{types.Int64(1), types.Str("x")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.PreCommit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := readTable(t, db, name); len(got) != 1 {
		t.Errorf("at-least-once sink wrote %v", got)
	}
}
