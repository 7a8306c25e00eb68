package expr

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestFunctionAllocations pins what evaluating the functions added with
// Flink 2.x's catalogue allocates per row: the scalar ones nothing (their
// comparators, regexes and constant tables are built once per call site),
// the ones building an ARRAY only the new slice and its boxed header.
func TestFunctionAllocations(t *testing.T) {
	x := Col(0, "x", types.Int())
	s := Col(1, "s", types.String())
	a := Col(2, "a", types.Array(types.Int()))
	d := Col(3, "d", types.Double())
	row := []types.Value{types.Int64(3), types.Str("abcb"), types.List([]types.Value{types.Int64(1), types.Int64(3), types.Value{}}), types.Float64(2.5)}
	for _, tc := range []struct {
		name   string
		e      Expr
		allocs float64
	}{
		{"greatest", Fn("GREATEST", x, li(5), Fn("+", x, li(1))), 0},
		{"least", Fn("LEAST", x, li(5)), 0},
		{"ifnull", Fn("IFNULL", x, li(0)), 0},
		{"array-contains", Fn("ARRAY_CONTAINS", a, x), 0},
		{"array-position", Fn("ARRAY_POSITION", a, x), 0},
		{"array-max", Fn("ARRAY_MAX", a), 0},
		{"chr", Fn("CHR", x), 0},
		{"ascii", Fn("ASCII", s), 0},
		{"locate", Fn("LOCATE", ls("b"), s, li(3)), 0},
		{"instr", Fn("INSTR", s, ls("c")), 0},
		{"startswith", Fn("STARTSWITH", s, ls("ab")), 0},
		{"left", Fn("LEFT", s, li(2)), 0},
		{"sign", Fn("SIGN", x), 0},
		{"ln", Fn("LN", d), 0},
		{"regexp", Fn("REGEXP", s, ls("b+")), 0},
		{"array-reverse", Fn("ARRAY_REVERSE", a), 2},
		{"array-remove", Fn("ARRAY_REMOVE", a, x), 2},
	} {
		p, err := Compile(tc.e, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := testing.AllocsPerRun(100, func() {
			if _, err := p.Eval(row); err != nil {
				t.Fatal(err)
			}
		})
		if tc.name == "regexp" && raceEnabled {
			continue // Go's regexp takes its machines from a sync.Pool, which -race empties at random
		}
		if got != tc.allocs {
			t.Errorf("%s: %v allocations per evaluation, want %v", tc.name, got, tc.allocs)
		}
	}
}
