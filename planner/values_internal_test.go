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

type listeningSource struct{ completed *[]int64 }

func (s listeningSource) Splits(context.Context) ([]connector.Split, error) { return nil, nil }
func (s listeningSource) Bounded() bool                                     { return true }
func (s listeningSource) Open(context.Context, connector.TaskInfo, []connector.SplitState) (connector.Reader, error) {
	return &listeningReaderStub{completed: s.completed}, nil
}

type listeningReaderStub struct {
	completed *[]int64
	reads     int
}

func (r *listeningReaderStub) Read(context.Context) ([]types.Row, error) {
	r.reads++
	if r.reads > 2 {
		return nil, io.EOF
	}
	return []types.Row{{Fields: []types.Value{types.Int64(int64(r.reads))}}}, nil
}
func (r *listeningReaderStub) Snapshot(int64) ([]connector.SplitState, error) { return nil, nil }
func (r *listeningReaderStub) Close() error                                   { return nil }
func (r *listeningReaderStub) CheckpointComplete(_ context.Context, id int64) error {
	*r.completed = append(*r.completed, id)
	return nil
}

// TestTransformingSource applies the transform in Read, skips batches the
// filter empties, and keeps the reader's CheckpointListener visible.
func TestTransformingSource(t *testing.T) {
	var completed []int64
	keepEven := func(in types.Row, out []types.Row) ([]types.Row, error) {
		if in.Fields[0].Int64()%2 == 0 {
			out = append(out, types.Row{Fields: []types.Value{types.Int64(in.Fields[0].Int64() * 10)}})
		}
		return out, nil
	}
	ctx := context.Background()
	src := &transformingSource{Source: listeningSource{completed: &completed}, tf: keepEven}
	r, err := src.Open(ctx, connector.TaskInfo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Read(ctx)
	if err != nil || len(rows) != 1 || rows[0].Fields[0].Int64() != 20 {
		t.Fatalf("rows %v, %v; want the second row, transformed", rows, err)
	}
	if _, err := r.Read(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("read after the end: %v", err)
	}
	l, ok := r.(connector.CheckpointListener)
	if !ok {
		t.Fatal("the wrapped reader's CheckpointListener is hidden")
	}
	if err := l.CheckpointComplete(ctx, 7); err != nil || len(completed) != 1 || completed[0] != 7 {
		t.Fatalf("CheckpointComplete reached %v, %v", completed, err)
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
