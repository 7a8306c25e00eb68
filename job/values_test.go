package job

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// TestValuesSource reads a VALUES source once, resumes as finished from
// its snapshot, and widens each literal to the column's common type.
func TestValuesSource(t *testing.T) {
	src := &planner.Source{
		Values:   [][]expr.Expr{{expr.Lit(types.Int().NotNullable(), types.Int64(1))}, {expr.Lit(types.BigInt().NotNullable(), types.Int64(1<<40))}},
		RowTypes: []types.Type{types.BigInt().NotNullable()},
	}
	vs, err := newValuesSource(src, expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	splits, err := vs.Splits(ctx)
	if err != nil || len(splits) != 1 || !vs.Bounded() {
		t.Fatalf("splits %v, %v", splits, err)
	}
	r, err := vs.Open(ctx, connector.TaskInfo{}, []connector.SplitState{{ID: splits[0].ID}})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Read(ctx)
	if err != nil || len(rows) != 2 || rows[0].Fields[0].Int64() != 1 || rows[1].Fields[0].Int64() != 1<<40 {
		t.Fatalf("rows %v, %v", rows, err)
	}
	if _, err := r.Read(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("second read: %v, want io.EOF", err)
	}
	snap, err := r.Snapshot(1)
	if err != nil || len(snap) != 1 {
		t.Fatalf("snapshot %v, %v", snap, err)
	}
	r2, _ := vs.Open(ctx, connector.TaskInfo{}, snap)
	if _, err := r2.Read(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("restored read: %v, want io.EOF (the rows were read before the checkpoint)", err)
	}
	idle, _ := vs.Open(ctx, connector.TaskInfo{}, nil)
	if _, err := idle.Read(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("reader without splits: %v, want io.EOF", err)
	}
}
