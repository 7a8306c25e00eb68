package expr

import (
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestCompileFlowMemo checks that a flow compiled with its common
// subexpressions memoized (CompileFlow) keeps, passes and projects every
// row as the filter and projections compiled apart do, errors included:
// Nexmark q21's REGEXP_EXTRACT and LOWER in the WHERE and the CASE, q14's
// 0.908 * price and a CASE over one call four times, a failing cast
// repeated, an expression under a column the filter fixes, an expansion
// (a second projection), a non-deterministic call (never shared); and that
// a shared call runs at most once per row.
func TestCompileFlowMemo(t *testing.T) {
	s := Col(0, "s", types.String())
	n := Col(1, "n", types.BigInt())
	r := Col(2, "r", types.RowType(types.Field{Name: "url", Type: types.String()}, types.Field{Name: "ch", Type: types.String()}))
	k := Col(3, "k", types.Int())
	calls := 0
	cnt := &Function{Name: "cnt", Args: []types.Type{types.String()}, Result: types.BigInt(),
		Eval: func(a []types.Value) (types.Value, error) { calls++; return types.Int64(int64(len(a[0].Str()))), nil }}
	url := func() Expr { return Fn("FIELD", r, ls("url")) }
	ch := func() Expr { return Fn("LOWER", Fn("FIELD", r, ls("ch"))) }
	re := func() Expr { return Fn("REGEXP_EXTRACT", url(), ls("(&|^)channel_id=([^&]*)"), li(2)) }
	price := func() Expr { return Fn("*", Lit(types.DecimalType(3, 3).NotNullable(), vd("0.908")), n) }
	c := func() Expr { return UserFn(cnt, s) }
	toInt := func() Expr { return &Cast{Expr: s, Target: types.Int()} }
	big := func(i int64) Expr { return Lit(types.BigInt().NotNullable(), types.Int64(i)) }
	cases := []struct {
		name   string
		filter Expr
		projs  [][]Expr
		slots  int
		// goFn: the flow calls a Go function, so there is a memo even
		// without a slot (its calls reuse their argument slices).
		goFn bool
	}{
		{"q21", Fn("AND", Fn("=", k, li(2)), Fn("OR", Fn("IS NOT NULL", re()), Fn("IN", ch(), ls("apple"), ls("google")))),
			[][]Expr{{s, &Case{Whens: []When{{Cond: Fn("=", ch(), ls("apple")), Result: ls("0")}, {Cond: Fn("=", ch(), ls("google")), Result: ls("1")}}, Else: re()}}},
			2, false},
		{"q14", Fn("AND", Fn(">", price(), big(10)), Fn("<", price(), big(1000))),
			[][]Expr{{price(), &Case{Whens: []When{
				{Cond: Fn("AND", Fn(">=", c(), big(2)), Fn("<=", c(), big(4))), Result: ls("day")},
				{Cond: Fn("OR", Fn("<=", c(), big(1)), Fn(">=", c(), big(6))), Result: ls("night")}}, Else: ls("other")}, c()}},
			2, true},
		{"failing cast", Fn("OR", Fn(">", toInt(), li(0)), Fn(">", n, big(5))),
			[][]Expr{{Fn("+", toInt(), li(1)), toInt()}}, 1, false},
		{"under a fixed column", Fn("AND", Fn("=", k, li(2)), Fn(">", Fn("+", k, Fn("CHAR_LENGTH", s)), li(3))),
			[][]Expr{{Fn("+", k, Fn("CHAR_LENGTH", s)), Fn("CHAR_LENGTH", s)}}, 2, false},
		{"expand", nil, [][]Expr{{c(), s}, {Fn("+", c(), big(1)), c()}}, 1, true},
		{"no filter, no repeat", nil, [][]Expr{{c(), Fn("UPPER", s)}}, 0, true},
		{"no Go function, no repeat", Fn(">", n, big(5)), [][]Expr{{Fn("UPPER", s), n}}, 0, false},
		{"non-deterministic", Fn("IS NOT NULL", Fn("UUID")), [][]Expr{{Fn("CHAR_LENGTH", Fn("UUID")), Fn("CHAR_LENGTH", Fn("UUID"))}}, 0, false},
	}
	strs := []types.Value{vs("3"), vs("abc"), vs(""), {}, vs("12345678"), vs("-4"), vs("Apple")}
	nums := []types.Value{types.Int64(5), types.Int64(100), types.Int64(2000), {}, types.Int64(12)}
	urls := []types.Value{vs("https://x.com/a?channel_id=5&b=1"), vs("https://x.com/a?x=1"), vs("channel_id=&"), {}}
	chans := []types.Value{vs("Apple"), vs("GOOGLE"), vs("baidu"), {}}
	var rows [][]types.Value
	for i := range 400 {
		row := []types.Value{strs[i%len(strs)], nums[i%len(nums)],
			types.List([]types.Value{urls[i%len(urls)], chans[(i/3)%len(chans)]}), types.Int64(int64(1 + i%2))}
		if i%37 == 0 {
			row[2] = types.Value{}
		}
		rows = append(rows, row)
	}
	show2 := func(v types.Value, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return show(v)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var pf *Filter
			if tc.filter != nil {
				var err error
				if pf, err = CompileFilter(tc.filter, Options{}); err != nil {
					t.Fatal(err)
				}
			}
			var pps []*Projection
			for _, es := range tc.projs {
				p, err := CompileProjectionUnder(es, tc.filter, Options{})
				if err != nil {
					t.Fatal(err)
				}
				pps = append(pps, p)
			}
			mf, mps, memo, err := CompileFlow(tc.filter, tc.projs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := memo.Len(); (memo != nil) != (tc.slots > 0 || tc.goFn) || got != tc.slots {
				t.Fatalf("%d shared subexpressions (memo %v), want %d", got, memo != nil, tc.slots)
			}
			kept := 0
			for i, row := range rows {
				var want, got []string
				calls = 0
				eval := func(f *Filter, ps []*Projection, out *[]string) {
					if f != nil {
						keep, err := f.Keep(row)
						*out = append(*out, fmt.Sprint(keep, err))
						if err != nil || !keep {
							return
						}
					}
					for _, p := range ps {
						o := make([]types.Value, len(tc.projs[0])+1)
						err := p.Project(row, o)
						*out = append(*out, fmt.Sprint(err))
						for _, v := range o {
							*out = append(*out, show2(v, nil))
						}
					}
				}
				eval(pf, pps, &want)
				plain := calls
				calls = 0
				if memo != nil {
					memo.Next()
				}
				eval(mf, mps, &got)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("row %d %v: memoized %v, apart %v", i, row, got, want)
				}
				if calls > 1 || (plain > 0 && calls == 0) {
					t.Fatalf("row %d: cnt called %d times memoized (%d apart), want once", i, calls, plain)
				}
				if len(want) > 1 || tc.filter == nil {
					kept++
				}
			}
			if kept == 0 {
				t.Fatalf("no row kept: the projections were not compared")
			}
		})
	}
}
