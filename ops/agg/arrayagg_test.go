package agg

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestArrayAggAccumulator checks ARRAY_AGG's accumulator: NULLs kept, a
// retraction removes the first equal element (a value it does not hold
// changes nothing), an empty list is NULL, the state round-trips through
// its bytes, and Merge appends.
func TestArrayAggAccumulator(t *testing.T) {
	c := Call{Func: ArrayAgg, Arg: 0, ArgType: types.Int(), Filter: -1}
	var err error
	if c.Result, err = ResultType(ArrayAgg, types.Int(), true); err != nil {
		t.Fatal(err)
	}
	a := NewAccumulators([]Call{c})
	apply := func(v types.Value, retract bool) {
		t.Helper()
		if err := a.Apply([]types.Value{v}, retract, nil); err != nil {
			t.Fatal(err)
		}
	}
	result := func(a *Accumulators) types.Value {
		t.Helper()
		r, err := a.Results(nil)
		if err != nil {
			t.Fatal(err)
		}
		return r[0]
	}
	list := func(v types.Value) []int64 {
		var out []int64
		for _, e := range v.List() {
			if e.IsNull() {
				out = append(out, -1)
			} else {
				out = append(out, e.Int64())
			}
		}
		return out
	}
	want := func(v types.Value, w ...int64) {
		t.Helper()
		if got := list(v); len(got) != len(w) || v.IsNull() != (w == nil) {
			t.Fatalf("ARRAY_AGG = %v (null %v), want %v", got, v.IsNull(), w)
		}
		for i := range w {
			if list(v)[i] != w[i] {
				t.Fatalf("ARRAY_AGG = %v, want %v", list(v), w)
			}
		}
	}
	apply(types.Int64(1), false)
	apply(types.Value{}, false)
	apply(types.Int64(1), false)
	first := result(a)
	want(first, 1, -1, 1)
	apply(types.Int64(1), true)
	want(result(a), -1, 1)
	want(first, 1, -1, 1) // an emitted result does not change
	apply(types.Int64(5), true)
	want(result(a), -1, 1)

	b := NewAccumulators([]Call{c})
	if err := b.Read(a.Append(nil)); err != nil {
		t.Fatal(err)
	}
	want(result(b), -1, 1)
	if err := b.Merge(a); err != nil {
		t.Fatal(err)
	}
	want(result(b), -1, 1, -1, 1)

	apply(types.Value{}, true)
	apply(types.Int64(1), true)
	want(result(a))
}

// TestJSONArrayAggResult checks JSON_ARRAYAGG's text: '[]' when empty,
// integers, BOOLEANs and escaped strings.
func TestJSONArrayAggResult(t *testing.T) {
	cases := []struct {
		t    types.Type
		vals []types.Value
		want string
	}{
		{types.Int(), nil, "[]"},
		{types.BigInt(), []types.Value{types.Int64(1), types.Int64(-5)}, "[1,-5]"},
		{types.Boolean(), []types.Value{types.Bool(true), types.Bool(false)}, "[true,false]"},
		{types.String(), []types.Value{types.Str("a\"b\\c\n\x01é")}, `["a\"b\\c\n\u0001é"]`},
	}
	for _, c := range cases {
		if got := jsonArray(c.vals, c.t); got != c.want {
			t.Errorf("jsonArray(%v) = %s, want %s", c.vals, got, c.want)
		}
	}
}

// TestSingleValueAccumulator checks SINGLE_VALUE: NULL without a row, the
// only row's value (NULL included), an error at a second row that a
// retraction clears, and the state round-tripping through its bytes.
func TestSingleValueAccumulator(t *testing.T) {
	c := Call{Func: SingleValue, Arg: 0, ArgType: types.String(), Filter: -1}
	var err error
	if c.Result, err = ResultType(SingleValue, types.String().NotNullable(), true); err != nil {
		t.Fatal(err)
	}
	if c.Result.NotNull {
		t.Errorf("SINGLE_VALUE's result is %s, want it nullable (no row is NULL)", c.Result)
	}
	a := NewAccumulators([]Call{c})
	apply := func(v types.Value, retract bool) {
		t.Helper()
		if err := a.Apply([]types.Value{v}, retract, nil); err != nil {
			t.Fatal(err)
		}
	}
	result := func() (types.Value, error) {
		r, err := a.Results(nil)
		if err != nil {
			return types.Value{}, err
		}
		return r[0], nil
	}
	if v, err := result(); err != nil || !v.IsNull() {
		t.Fatalf("no row: %v, %v; want NULL", v, err)
	}
	apply(types.Str("a"), false)
	if v, err := result(); err != nil || v.IsNull() || v.Str() != "a" {
		t.Fatalf("one row: %v, %v; want a", v, err)
	}
	apply(types.Str("b"), false)
	if _, err := result(); err == nil || !strings.Contains(err.Error(), "more than one row") {
		t.Fatalf("two rows: error %v, want one saying more than one row", err)
	}
	apply(types.Str("a"), true)
	b := NewAccumulators([]Call{c})
	if err := b.Read(a.Append(nil)); err != nil {
		t.Fatal(err)
	}
	a = b
	if v, err := result(); err != nil || v.IsNull() || v.Str() != "b" {
		t.Fatalf("after the retraction of a: %v, %v; want b", v, err)
	}
	apply(types.Str("b"), true)
	apply(types.Value{}, false)
	if v, err := result(); err != nil || !v.IsNull() {
		t.Fatalf("a NULL row: %v, %v; want NULL", v, err)
	}
}
