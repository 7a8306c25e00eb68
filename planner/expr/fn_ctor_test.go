package expr

import (
	"errors"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestConstructorsAllocateOnlyTheValue: evaluating ARRAY[...] or ROW(...)
// allocates the new slice and the slice header types.List boxes in the
// Value, and nothing else; MAP[...] allocates the entry slice and the
// MapData.
func TestConstructorsAllocateOnlyTheValue(t *testing.T) {
	x := Col(0, "x", types.Int())
	s := Col(1, "s", types.String())
	row := []types.Value{types.Int64(3), types.Str("k")}
	for _, tc := range []struct {
		name   string
		e      Expr
		allocs float64
	}{
		{"array", Fn("ARRAY", x, li(2), Fn("+", x, li(1))), 2},
		{"array-widened", Fn("ARRAY", x, Lit(types.BigInt().NotNullable(), types.Int64(5))), 2},
		{"row", Fn("ROW", x, s), 2},
		{"map-constant-keys", Fn("MAP", ls("a"), x, ls("b"), li(2)), 2},
		{"map-column-keys", Fn("MAP", s, x, ls("k"), li(2)), 2},
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
		if got != tc.allocs {
			t.Errorf("%s: %v allocations per evaluation, want %v", tc.name, got, tc.allocs)
		}
	}
}

// TestMapDuplicateKeys: the later entry of a repeated key wins, for keys
// known only per row too, NULL keys included.
func TestMapDuplicateKeys(t *testing.T) {
	a, b := Col(0, "a", types.String()), Col(1, "b", types.String())
	p, err := Compile(Fn("MAP", a, li(1), ls("z"), li(2), b, li(3)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b types.Value
		want string
	}{
		{types.Str("x"), types.Str("y"), "{x=1, z=2, y=3}"},
		{types.Str("x"), types.Str("x"), "{z=2, x=3}"},
		{types.Str("z"), types.Str("z"), "{z=3}"},
		{types.Value{}, types.Value{}, "{z=2, NULL=3}"},
		{types.Value{}, types.Str("q"), "{NULL=1, z=2, q=3}"},
	} {
		v, err := p.Eval([]types.Value{tc.a, tc.b})
		if err != nil {
			t.Fatal(err)
		}
		if got := formatValue(v, p.Type(), nil); got != tc.want {
			t.Errorf("MAP[%s, 1, 'z', 2, %s, 3] = %s, want %s", show(tc.a), show(tc.b), got, tc.want)
		}
	}
}

// TestElementOfManyFails: ELEMENT of an array of two or more elements is
// an evaluation error, not a NULL.
func TestElementOfManyFails(t *testing.T) {
	p, err := Compile(Fn("ELEMENT", Col(0, "arr", types.Array(types.Int()))), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Eval([]types.Value{types.List([]types.Value{types.Int64(1), types.Int64(2)})})
	if !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("ELEMENT([1, 2]): %v, want ErrInvalidArgument", err)
	}
}

// TestConstructorTypes checks the types the planner relies on for INSERT:
// the common type of nested constructors and ROW field names.
func TestConstructorTypes(t *testing.T) {
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{Fn("ARRAY", Fn("ARRAY", li(1)), Fn("ARRAY", li(2), NullLit())), "ARRAY<ARRAY<INT> NOT NULL> NOT NULL"},
		{Fn("ARRAY", Fn("ROW", li(1), ls("a")), NullLit()), "ARRAY<ROW<`EXPR$0` INT, `EXPR$1` CHAR(1)>> NOT NULL"},
		{Fn("MAP", ls("a"), Fn("ROW", li(1)), ls("bc"), Fn("ROW", Lit(types.BigInt(), types.Int64(2)))),
			"MAP<VARCHAR(2) NOT NULL, ROW<`EXPR$0` BIGINT> NOT NULL> NOT NULL"},
		{Fn("ROW", Col(0, "x", types.Int()), Fn("ROW", ls("a"))), "ROW<`EXPR$0` INT, `EXPR$1` ROW<`EXPR$0` CHAR(1) NOT NULL> NOT NULL> NOT NULL"},
	} {
		r, err := Resolve(tc.e)
		if err != nil {
			t.Fatalf("%s: %v", tc.e, err)
		}
		if got := r.Type().String(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.e, got, tc.want)
		}
	}
}

// BenchmarkConstructors evaluates ARRAY[x, 2, x + 1], ROW(x, s) and
// MAP[s, x, 'k', 2] over one row.
func BenchmarkConstructors(b *testing.B) {
	x := Col(0, "x", types.Int())
	s := Col(1, "s", types.String())
	row := []types.Value{types.Int64(3), types.Str("j")}
	for _, bc := range []struct {
		name string
		e    Expr
	}{
		{"array", Fn("ARRAY", x, li(2), Fn("+", x, li(1)))},
		{"row", Fn("ROW", x, s)},
		{"map", Fn("MAP", s, x, ls("k"), li(2))},
	} {
		p, err := Compile(bc.e, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Eval(row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCardinalityOfMultiset counts duplicates: a MULTISET maps each
// element to its count.
func TestCardinalityOfMultiset(t *testing.T) {
	ms := types.Type{Kind: types.KindMultiset, Elem: &types.Type{Kind: types.KindVarChar, Length: types.MaxLength}}
	p, err := Compile(Fn("CARDINALITY", Col(0, "m", ms)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.Eval([]types.Value{types.MapValue(&types.MapData{
		Keys: []types.Value{types.Str("a"), types.Str("b")}, Values: []types.Value{types.Int64(2), types.Int64(3)}})})
	if err != nil || v.Int64() != 5 {
		t.Fatalf("CARDINALITY({a: 2, b: 3}) = %d (null %t), %v; want 5", v.Int64(), v.IsNull(), err)
	}
}
