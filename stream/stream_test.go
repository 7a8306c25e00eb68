package stream

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestOutputHandsOnBoundedBatches(t *testing.T) {
	var batches [][]types.Row
	out := NewOutput(3, func(rows []types.Row) error {
		batches = append(batches, rows)
		return nil
	})
	for i := range 7 {
		out.Emit(types.Row{Fields: []types.Value{types.Int64(int64(i))}})
	}
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(batches) != 3 || len(batches[0]) != 3 || len(batches[1]) != 3 || len(batches[2]) != 1 {
		t.Fatalf("batches of %v rows, want 3, 3, 1", lens(batches))
	}
	// A batch handed on is never written again: the downstream may keep it.
	if got := batches[0][0].Fields[0].Int64(); got != 0 {
		t.Fatalf("first batch's first row changed to %d", got)
	}
	if err := out.Flush(); err != nil || len(batches) != 3 {
		t.Fatalf("an empty flush handed on a batch (err %v)", err)
	}
}

// TestOutputReuseBatches: after ReuseBatches each batch is handed on in
// the memory of the one before (the flush function keeps none), with the
// same bounds.
func TestOutputReuseBatches(t *testing.T) {
	var firsts []*types.Row
	var sizes []int
	out := NewOutput(3, func(rows []types.Row) error {
		firsts, sizes = append(firsts, &rows[0]), append(sizes, len(rows))
		for i, r := range rows {
			if r.Fields[0].Int64()%3 != int64(i) {
				return fmt.Errorf("row %d of a batch holds %d", i, r.Fields[0].Int64())
			}
		}
		return nil
	})
	out.ReuseBatches()
	for i := range 7 {
		out.Emit(types.Row{Fields: []types.Value{types.Int64(int64(i))}})
	}
	if err := out.Flush(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sizes, []int{3, 3, 1}) {
		t.Fatalf("batches of %v rows, want 3, 3, 1", sizes)
	}
	if firsts[0] != firsts[1] || firsts[1] != firsts[2] {
		t.Fatal("a batch was handed on in new memory after ReuseBatches")
	}
}

func TestOutputKeepsTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	out := NewOutput(1, func([]types.Row) error { calls++; return boom })
	out.Emit(types.Row{})
	out.Emit(types.Row{})
	if calls != 1 {
		t.Fatalf("flush called %d times after failing, want 1", calls)
	}
	if err := out.Flush(); !errors.Is(err, boom) {
		t.Fatalf("Flush = %v, want boom", err)
	}
	if err := out.Err(); !errors.Is(err, boom) {
		t.Fatalf("Err = %v, want boom", err)
	}
	if err := out.Err(); err != nil {
		t.Fatalf("Err after Err = %v, want nil", err)
	}
}

func lens(bs [][]types.Row) []int {
	var out []int
	for _, b := range bs {
		out = append(out, len(b))
	}
	return out
}
