package agg

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestJSONObjectAgg: JSON_OBJECTAGG's members in key order (Java's
// String order), NULL values written or left out, retraction, and the
// errors Flink raises for a NULL or repeated key; the accumulator survives
// its state encoding.
func TestJSONObjectAgg(t *testing.T) {
	rt := types.RowType(types.Field{Name: "k", Type: types.String()}, types.Field{Name: "v", Type: types.BigInt()})
	member := func(k string, v types.Value) []types.Value {
		kv := types.Str(k)
		if k == "<null>" {
			kv = types.Value{}
		}
		return []types.Value{types.List([]types.Value{kv, v})}
	}
	run := func(absent bool, rows [][]types.Value, retract [][]types.Value) (string, error) {
		c := Call{Func: JSONObjectAgg, Arg: 0, ArgType: rt, Filter: -1, Absent: absent, Result: types.String().NotNullable()}
		a := NewAccumulators([]Call{c})
		for _, r := range rows {
			if err := a.Apply(r, false, nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range retract {
			if err := a.Apply(r, true, nil); err != nil {
				t.Fatal(err)
			}
		}
		b := NewAccumulators([]Call{c})
		if err := b.Read(a.Append(nil)); err != nil {
			t.Fatal(err)
		}
		out, err := b.Results(nil)
		if err != nil {
			return "", err
		}
		return out[0].Str(), nil
	}
	rows := [][]types.Value{member("b", types.Int64(2)), member("a", types.Int64(1)), member("10", types.Value{}), member("\U0001F600", types.Int64(4)), member("\uFF01", types.Int64(5))}
	got, err := run(false, rows, nil)
	// "10" < "a" < "b" < U+1F600 (a surrogate pair, D83D...) < U+FF01 in UTF-16 order.
	if want := `{"10":null,"a":1,"b":2,"` + "\U0001F600" + `":4,"` + "\uFF01" + `":5}`; err != nil || got != want {
		t.Errorf("NULL ON NULL: got %q, %v; want %q", got, err, want)
	}
	got, err = run(true, rows, [][]types.Value{member("a", types.Int64(1))})
	if want := `{"b":2,"` + "\U0001F600" + `":4,"` + "\uFF01" + `":5}`; err != nil || got != want {
		t.Errorf("ABSENT ON NULL after a retraction: got %q, %v; want %q", got, err, want)
	}
	if got, err = run(false, nil, nil); err != nil || got != "{}" {
		t.Errorf("empty: got %q, %v", got, err)
	}
	if _, err = run(false, [][]types.Value{member("a", types.Int64(1)), member("a", types.Int64(2))}, nil); err == nil || !strings.Contains(err.Error(), "key 'a' is already present") {
		t.Errorf("a repeated key: got %v", err)
	}
	if _, err = run(false, [][]types.Value{member("<null>", types.Int64(1))}, nil); err == nil || !strings.Contains(err.Error(), "NULL") {
		t.Errorf("a NULL key: got %v", err)
	}
}
