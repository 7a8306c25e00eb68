package blackhole

import (
	"context"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

func TestDiscardsAndCounts(t *testing.T) {
	s := New()
	ctx := context.Background()
	for i := range 2 {
		w, err := s.Open(ctx, connector.TaskInfo{Index: i, Parallelism: 2})
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := w.(connector.RowForgetter); !ok || !f.ForgetsRows() {
			t.Fatal("the writer does not say it forgets rows (connector.RowForgetter)")
		}
		if err := w.Write(ctx, make([]types.Row, 3)); err != nil {
			t.Fatal(err)
		}
		if cs, err := w.PreCommit(ctx, 1); err != nil || len(cs) != 0 {
			t.Fatalf("PreCommit = %v, %v", cs, err)
		}
	}
	if got := s.Rows(); got != 6 {
		t.Fatalf("Rows() = %d, want 6", got)
	}
}
