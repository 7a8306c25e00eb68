package expr

import (
	"testing"
	"time"

	"github.com/streamsql/streamsql/types"
)

// TestCaseOnString checks that a searched CASE comparing one string
// expression with constants (q21's CASE WHEN LOWER(channel) = 'apple' ...)
// gives, with its operand evaluated once, what the branch-by-branch
// compilation gives, errors included; and that CASEs not of that form
// (different operands, a non-deterministic operand, a non-string
// comparison) keep the branch-by-branch compilation.
func TestCaseOnString(t *testing.T) {
	s := Col(0, "s", types.String())
	n := Col(1, "n", types.Int())
	r := Col(2, "r", types.RowType(types.Field{Name: "c", Type: types.String()}))
	vc := func(v string) Expr { return Lit(types.VarChar(10).NotNullable(), types.Str(v)) }
	whens := func(x func() Expr, keys ...Expr) []When {
		var ws []When
		for i, k := range keys {
			// A new tree for x in each branch, as the planner makes them.
			ws = append(ws, When{Cond: Fn("=", x(), k), Result: ls(string(rune('a' + i)))})
		}
		return ws
	}
	lower := func() Expr { return Fn("LOWER", s) }
	// CAST(CAST(s AS INT) AS STRING) fails on a non-numeric s: the error
	// must come out as branch by branch.
	failing := func() Expr { return &Cast{Expr: &Cast{Expr: s, Target: types.Int()}, Target: types.String()} }
	field := func() Expr { return Fn("FIELD", r, ls("c")) }
	taken := []*Case{
		{Whens: whens(lower, ls("apple"), ls("google"), ls("facebook"), ls("baidu")), Else: Fn("UPPER", s)},
		{Whens: whens(lower, ls("apple"), ls("apple"), vc("x ")), Else: nil},
		{Whens: whens(func() Expr { return s }, vc("A"), ls("a"), vc(""), ls("a "))},
		{Whens: whens(failing, ls("1"), ls("12"))},
		{Whens: whens(field, ls("apple"), vc("Apple"))},
		// The constant on the left.
		{Whens: []When{{Cond: Fn("=", ls("apple"), lower()), Result: ls("0")}, {Cond: Fn("=", lower(), ls("x")), Result: ls("1")}}, Else: s},
	}
	notTaken := []*Case{
		{Whens: []When{{Cond: Fn("=", lower(), ls("apple")), Result: ls("0")}, {Cond: Fn("=", Fn("UPPER", s), ls("X")), Result: ls("1")}}},
		{Whens: whens(func() Expr { return Fn("UUID") }, ls("a"), ls("b"))},
		{Whens: []When{{Cond: Fn("=", n, li(1)), Result: ls("0")}, {Cond: Fn("=", n, li(2)), Result: ls("1")}}},
		{Whens: whens(lower, ls("apple"))},
		{Whens: []When{{Cond: Fn("=", lower(), ls("apple")), Result: ls("0")}, {Cond: Fn("<>", lower(), ls("x")), Result: ls("1")}}},
	}
	strs := []string{"", "apple", "Apple", "APPLE", "google", "baidu", "x", "x ", "a", "A", "a ", "1", "12", "012", "İ", "straße"}
	var rows [][]types.Value
	for _, v := range strs {
		rows = append(rows,
			[]types.Value{types.Str(v), types.Int64(1), types.List([]types.Value{types.Str(v)})},
			[]types.Value{types.Str(v), types.Int64(2), types.Value{}})
	}
	rows = append(rows, []types.Value{{}, {}, types.List([]types.Value{{}})})
	opts := Options{Location: time.UTC}
	for _, c := range taken {
		e, err := Resolve(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if x, _ := newBuilder(opts).caseOnString(e.(*Case)); x == nil {
			t.Fatalf("%s: not compiled with a shared operand", e)
		}
		fast, err := newBuilder(opts).compile(e)
		if err != nil {
			t.Fatal(err)
		}
		plain := newBuilder(opts)
		plain.plainCase = true
		slow, err := plain.compile(e)
		if err != nil {
			t.Fatal(err)
		}
		errs := 0
		for _, row := range rows {
			a, errA := fast(row)
			b, errB := slow(row)
			if (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) {
				t.Fatalf("%s on %v: error %v, branch by branch %v", e, row, errA, errB)
			}
			if errA != nil {
				errs++
				continue
			}
			if fa, fb := formatValue(a, e.Type(), time.UTC), formatValue(b, e.Type(), time.UTC); fa != fb {
				t.Fatalf("%s on %v: %s, branch by branch %s", e, row, fa, fb)
			}
		}
		if c.Whens[0].Cond.(*Call).Args[0].String() == failing().String() && errs == 0 {
			t.Fatalf("%s: no row failed", e)
		}
	}
	for _, c := range notTaken {
		e, err := Resolve(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if x, _ := newBuilder(opts).caseOnString(e.(*Case)); x != nil {
			t.Errorf("%s: compiled with the shared operand %s", e, x)
		}
	}
}
