package expr

import (
	"math/rand/v2"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestDecidedCaseOperand: a CASE that a flow's filter decides (the
// Nexmark tables' dateTime under a view's event_type = k) is read as the
// branch it takes, as an operand (operandOf): DATE_FORMAT and EXTRACT of
// it read the ROW's field in place, UPPER of a string CASE reads the memo
// cell of its branch (a common subexpression). Over random rows (NULL and
// short ROWs, NULL fields, every event type, times across periods) every
// output of the flow, the projection compiled under the filter without a
// memo, and each output's dstFn agree with the general evaluators
// compiled without the filter and reading arguments through their
// evaluators only (viaArgs: no in-place forms), on the rows the filter
// keeps.
func TestDecidedCaseOperand(t *testing.T) {
	ts3 := types.TimestampType(3)
	ev := types.RowType(types.Field{Name: "ts", Type: ts3}, types.Field{Name: "s", Type: types.String()})
	et := Col(0, "event_type", types.Int())
	evs := []*ColumnRef{Col(1, "person", ev), Col(2, "auction", ev), Col(3, "bid", ev)}
	field := func(k int, name string) Expr { return Fn("FIELD", evs[k], ls(name)) }
	dateTime := func() Expr {
		return &Case{Whens: []When{{Cond: Fn("=", et, li(0)), Result: field(0, "ts")},
			{Cond: Fn("=", et, li(1)), Result: field(1, "ts")}}, Else: field(2, "ts")}
	}
	name := func() Expr {
		return &Case{Whens: []When{{Cond: Fn("=", et, li(0)), Result: Fn("LOWER", field(0, "s"))},
			{Cond: Fn("=", et, li(1)), Result: Fn("LOWER", field(1, "s"))}}, Else: Fn("LOWER", field(2, "s"))}
	}
	secs := func() Expr { return FnUnit("FLOOR", UnitHour, dateTime()) }
	proj := []Expr{dateTime(), Fn("DATE_FORMAT", dateTime(), ls("yyyy-MM-dd")), Fn("DATE_FORMAT", dateTime(), ls("HH:mm")),
		FnUnit("EXTRACT", UnitHour, dateTime()), Fn(">=", FnUnit("EXTRACT", UnitHour, dateTime()), li(8)),
		Fn("DATE_FORMAT", dateTime(), ls("HH:mm")), Fn("UPPER", name()), name(), Fn("LOWER", field(0, "s")),
		Fn("LOWER", field(1, "s")), Fn("LOWER", field(2, "s")), Fn("DATE_FORMAT", field(2, "ts"), ls("mm")),
		// An operand that is not a field: the general path.
		secs(), Fn("DATE_FORMAT", secs(), ls("HH:mm")), Fn("DATE_FORMAT", secs(), ls("yyyy-MM-dd HH")),
		Fn("CONCAT", Fn("DATE_FORMAT", secs(), ls("HH:mm")), ls("!")), Fn("CONCAT", Fn("DATE_FORMAT", dateTime(), ls("mm")), ls("!"))}
	r := rand.New(rand.NewPCG(10, 34))
	millis := []int64{0, -1, 59_999, 60_000, 86_399_999, 86_400_000, -86_400_001, 1_436_918_400_000, 1_436_918_459_999}
	var rows [][]types.Value
	for i := 0; i < 3000; i++ {
		row := make([]types.Value, 4)
		if r.IntN(20) > 0 {
			row[0] = types.Int64(int64(r.IntN(3)))
		}
		for k := 1; k <= 3; k++ {
			ms := millis[r.IntN(len(millis))] + int64(i)*7_000
			fs := []types.Value{types.TimestampValue(types.Timestamp{Millis: ms}),
				types.Str([]string{"Ab", "", "ÀÉ", "x y"}[r.IntN(4)])}
			switch r.IntN(10) {
			case 0:
				continue // a NULL ROW
			case 1:
				fs = fs[:r.IntN(2)] // a shorter ROW: NULL fields
			case 2:
				fs[r.IntN(2)] = types.Value{}
			}
			row[k] = types.List(fs)
		}
		rows = append(rows, row)
	}
	refs := make([]evalFn, len(proj))
	rps := make([]Expr, len(proj))
	for i, e := range proj {
		re, err := Resolve(e)
		if err != nil {
			t.Fatal(err)
		}
		b := newBuilder(benchOpts)
		b.viaArgs = true
		if refs[i], err = b.compile(re); err != nil {
			t.Fatal(err)
		}
		rps[i] = re
	}
	kept := 0
	for k := int64(0); k < 3; k++ {
		filter := Fn("=", et, li(k))
		f, ps, memo, err := CompileFlow(filter, [][]Expr{proj}, benchOpts)
		if err != nil {
			t.Fatal(err)
		}
		under, err := CompileProjectionUnder(proj, filter, benchOpts)
		if err != nil {
			t.Fatal(err)
		}
		// Each output alone under the filter (its evalFn and dstFn, no
		// memo).
		rf, _ := Resolve(filter)
		fns, dsts := make([]evalFn, len(rps)), make([]dstFn, len(rps))
		for i, re := range rps {
			b := newBuilder(benchOpts)
			b.known = KnownColumns(rf)
			fn, err := b.compile(re)
			if err != nil {
				t.Fatal(err)
			}
			fns[i], dsts[i] = fn, b.dstOf(re, fn)
			// DATE_FORMAT of the decided CASE reads the field in place
			// and writes its text in place: a form of its own.
			if (i == 1 || i == 2 || i == 5) && b.specialDst(re, fn) == nil {
				t.Fatalf("event_type = %d, %s: no dstFn of its own", k, re)
			}
		}
		out, outUnder := make([]types.Value, len(proj)), make([]types.Value, len(proj))
		var one types.Value
		for _, row := range rows {
			memo.Next()
			keep, err := f.Keep(row)
			if err != nil {
				t.Fatal(err)
			}
			if keep != (!row[0].IsNull() && row[0].Int64() == k) {
				t.Fatalf("event_type = %d over %v: Keep %v", k, row, keep)
			}
			if !keep {
				continue
			}
			kept++
			if err := ps[0].Project(row, out); err != nil {
				t.Fatal(err)
			}
			if err := under.Project(row, outUnder); err != nil {
				t.Fatal(err)
			}
			for i, ref := range refs {
				want, err := ref(row)
				if err != nil {
					t.Fatal(err)
				}
				if !sameValue(rps[i].Type(), out[i], want) || !sameValue(rps[i].Type(), outUnder[i], want) {
					t.Fatalf("event_type = %d, %s over %v: flow %v, under the filter %v; want %v", k, rps[i], row, out[i], outUnder[i], want)
				}
				if err := dsts[i](row, &one); err != nil || !sameValue(rps[i].Type(), one, want) {
					t.Fatalf("event_type = %d, %s over %v: dst %v, %v; want %v", k, rps[i], row, one, err, want)
				}
				if v, err := fns[i](row); err != nil || !sameValue(rps[i].Type(), v, want) {
					t.Fatalf("event_type = %d, %s over %v: eval %v, %v; want %v", k, rps[i], row, v, err, want)
				}
			}
		}
	}
	if kept < len(rows)*9/10 {
		t.Fatalf("only %d rows kept", kept)
	}
}
