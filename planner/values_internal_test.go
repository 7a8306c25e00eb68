package planner

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// TestValuesSource reads a VALUES source once, resumes as finished from
// its snapshot, and widens each literal to the column's common type.
func TestValuesSource(t *testing.T) {
	src := &Source{
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

func TestCommonTypeNeverTruncates(t *testing.T) {
	cases := []struct{ a, b, want types.Type }{
		{types.Char(14).NotNullable(), types.Char(16).NotNullable(), types.Char(16).NotNullable()},
		{types.Char(3), types.VarChar(2), types.VarChar(3)},
		{types.Binary(4), types.Bytes(), types.Bytes()},
		{types.DecimalType(5, 2), types.DecimalType(10, 0), types.DecimalType(12, 2)},
		{types.TimestampType(3), types.TimestampType(6).NotNullable(), types.TimestampType(6)},
		{types.Int(), types.BigInt(), types.BigInt()},
	}
	for _, c := range cases {
		for _, order := range [][2]types.Type{{c.a, c.b}, {c.b, c.a}} {
			got, ok := commonType(order[0], order[1])
			if !ok || !got.Equal(c.want) {
				t.Errorf("commonType(%s, %s) = %s, %v; want %s", order[0], order[1], got, ok, c.want)
			}
		}
	}
}
