package jdbc_test

import (
	"context"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/types"
)

// TestExactlyOnceDeleteOfUncommittedInsert: an exactly-once writer
// inserts a key in the transaction of checkpoint 1, which is prepared but
// not committed yet (its checkpoint is still completing), and deletes the
// key in the transaction of checkpoint 2, as a GROUP BY whose group
// vanishes does. Once both are committed, in order, the key must be gone.
// On PostgreSQL a DELETE does not see a row that a transaction still in
// progress (prepared) inserted, and deletes nothing.
func TestExactlyOnceDeleteOfUncommittedInsert(t *testing.T) {
	for _, srv := range dbtest.All(t) {
		t.Run(srv.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			db := srv.Open(t)
			name := createTable(t, srv, db, true)
			s, _, err := factory.Default.CreateSink(ctx, jdbcTable(srv, name, true, "sink.delivery-guarantee", "exactly-once"))
			if err != nil {
				t.Fatal(err)
			}
			tps := s.(connector.TwoPhaseSink)
			c, err := tps.Committer(ctx, "conformance")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			w, err := tps.Open(ctx, connector.TaskInfo{Job: "conformance", Parallelism: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			row := func(kind types.RowKind) types.Row {
				return types.Row{Kind: kind, Fields: []types.Value{types.Int64(1), types.Str("a")}}
			}
			preCommit := func(id int64, kind types.RowKind) connector.Committable {
				t.Helper()
				if err := w.Write(ctx, []types.Row{row(kind)}); err != nil {
					t.Fatal(err)
				}
				cs, err := w.PreCommit(ctx, id)
				if err != nil || len(cs) != 1 {
					t.Fatalf("PreCommit(%d): %v, %d committables", id, err, len(cs))
				}
				return cs[0]
			}
			c1 := preCommit(1, types.Insert)
			// Checkpoint 1 completes and commits a moment after the writer
			// went on with checkpoint 2.
			committed := make(chan error, 1)
			go func() {
				time.Sleep(300 * time.Millisecond)
				committed <- c.Commit(ctx, c1)
			}()
			c2 := preCommit(2, types.Delete)
			if err := <-committed; err != nil {
				t.Fatal(err)
			}
			if err := c.Commit(ctx, c2); err != nil {
				t.Fatal(err)
			}
			if got := readTable(t, db, name); len(got) != 0 {
				t.Fatalf("the table holds %v after the insert and the delete were committed, want nothing", got)
			}
		})
	}
}
