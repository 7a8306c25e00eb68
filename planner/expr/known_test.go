package expr

import (
	"testing"
	"time"

	"github.com/streamsql/streamsql/types"
)

func TestKnownColumns(t *testing.T) {
	k := Col(0, "k", types.Int())
	b := Col(1, "b", types.BigInt().NotNullable())
	s := Col(2, "s", types.String())
	d := Col(3, "d", types.Double())
	cases := []struct {
		name string
		cond Expr
		want map[int]int64
	}{
		{"nil", nil, nil},
		{"col = lit", Fn("=", k, li(2)), map[int]int64{0: 2}},
		{"lit = col", Fn("=", li(7), b), map[int]int64{1: 7}},
		{"conjuncts", Fn("AND", Fn("=", k, li(2)), Fn("AND", Fn(">", b, li(1)), Fn("=", b, li(5)))), map[int]int64{0: 2, 1: 5}},
		{"disjunction", Fn("OR", Fn("=", k, li(2)), Fn("=", k, li(3))), nil},
		{"negation", Fn("NOT", Fn("=", k, li(2))), nil},
		{"inequality", Fn("<>", k, li(2)), nil},
		{"NULL literal", Fn("=", k, Lit(types.Int(), types.Value{})), nil},
		{"string column", Fn("=", s, ls("a")), nil},
		{"double column", Fn("=", d, Lit(types.Double().NotNullable(), types.Float64(0))), nil},
		{"column = column", Fn("=", k, b), nil},
		{"contradiction keeps the first", Fn("AND", Fn("=", k, li(1)), Fn("=", k, li(2))), map[int]int64{0: 1}},
	}
	for _, c := range cases {
		got := KnownColumns(c.cond)
		if len(got) != len(c.want) {
			t.Errorf("%s: KnownColumns = %v, want %v", c.name, got, c.want)
			continue
		}
		for i, v := range c.want {
			if g, ok := got[i]; !ok || g.IsNull() || g.Int64() != v {
				t.Errorf("%s: column %d = %v, want %d", c.name, i, got[i], v)
			}
		}
	}
}

// nexmarkEventTypes are the columns of Nexmark's event table as a source
// row: event_type, person, auction and bid (only the fields used here).
func nexmarkEventCols() (et, person, auction, bid *ColumnRef) {
	ts := types.TimestampType(3)
	et = Col(0, "event_type", types.Int())
	person = Col(1, "person", types.RowType(types.Field{Name: "id", Type: types.BigInt()}, types.Field{Name: "dateTime", Type: ts}))
	auction = Col(2, "auction", types.RowType(types.Field{Name: "id", Type: types.BigInt()}, types.Field{Name: "dateTime", Type: ts}))
	bid = Col(3, "bid", types.RowType(types.Field{Name: "price", Type: types.BigInt()}, types.Field{Name: "dateTime", Type: ts},
		types.Field{Name: "channel", Type: types.String()}))
	return
}

// nexmarkDateTime is ddl_kafka.sql's computed column `dateTime`.
func nexmarkDateTime(et, person, auction, bid Expr) Expr {
	return &Case{Whens: []When{
		{Cond: Fn("=", et, li(0)), Result: Fn("FIELD", person, ls("dateTime"))},
		{Cond: Fn("=", et, li(1)), Result: Fn("FIELD", auction, ls("dateTime"))},
	}, Else: Fn("FIELD", bid, ls("dateTime"))}
}

func nexmarkEventRows() [][]types.Value {
	ts := func(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms}) }
	nested := func(id int64, t types.Value) types.Value { return types.List([]types.Value{types.Int64(id), t}) }
	return [][]types.Value{
		{types.Int64(0), nested(1, ts(1000)), {}, {}},
		{types.Int64(1), {}, nested(2, ts(2000)), {}},
		{types.Int64(2), {}, {}, types.List([]types.Value{types.Int64(299), ts(2999), types.Str("Apple")})},
		{types.Int64(2), {}, {}, nested(300, ts(3000))},
		{types.Int64(2), {}, {}, nested(301, types.Value{})},
		{types.Int64(2), {}, {}, {}},
		{types.Int64(2), nested(9, ts(9000)), nested(8, ts(8000)), nested(302, ts(3002))},
		{{}, nested(1, ts(1000)), {}, nested(303, ts(3003))},
		{types.Int64(2), {}, {}, types.List([]types.Value{types.Int64(304)})}, // a ROW shorter than its type
	}
}

// TestCompileProjectionUnder checks that a projection compiled under a
// filter gives, on every row the filter keeps, what it gives compiled
// alone and what each expression's program evaluates to, for expressions that read the fixed column in every way the
// compiler reads a column (a CASE condition, an operator's operand, a
// bare column, a cast, COALESCE), and one whose CASE condition fails.
func TestCompileProjectionUnder(t *testing.T) {
	et, person, auction, bid := nexmarkEventCols()
	exprs := []Expr{
		nexmarkDateTime(et, person, auction, bid),
		et,
		Fn("+", et, li(1)),
		CastTo(et, types.BigInt()),
		Fn("COALESCE", et, li(5)),
		&Case{Operand: et, Whens: []When{{Cond: li(2), Result: ls("bid")}}, Else: ls("other")},
		&Case{Whens: []When{{Cond: Fn("=", Fn("/", li(1), Fn("-", et, li(2))), li(0)), Result: ls("x")}}, Else: ls("y")},
		Fn("FIELD", bid, ls("price")),
		// FIELD as an operand (operandOf's field operand).
		Fn("ABS", Fn("FIELD", bid, ls("price"))),
		Fn("COALESCE", Fn("FIELD", bid, ls("price")), li(0)),
		Fn("IS NULL", Fn("FIELD", bid, ls("dateTime"))),
		FnUnit("EXTRACT", UnitSecond, Fn("FIELD", bid, ls("dateTime"))),
		Fn("LOWER", Fn("FIELD", bid, ls("channel"))),
		Fn("=", Fn("LOWER", Fn("FIELD", bid, ls("channel"))), ls("apple")),
		Fn("COALESCE", Fn("FIELD", bid, ls("dateTime")), Fn("FIELD", auction, ls("dateTime"))),
		Fn("+", Fn("FIELD", bid, ls("price")), li(1)),
		Fn("=", Fn("FIELD", person, ls("id")), Fn("FIELD", bid, ls("price"))),
	}
	for _, filter := range []Expr{
		Fn("=", et, li(2)),
		Fn("AND", Fn("=", li(0), et), Fn("IS NOT NULL", person)),
		Fn("=", et, li(1)),
		Fn("OR", Fn("=", et, li(1)), Fn("=", et, li(2))),
	} {
		f, err := CompileFilter(filter, utcOpts)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := CompileProjection(exprs, utcOpts)
		if err != nil {
			t.Fatal(err)
		}
		under, err := CompileProjectionUnder(exprs, filter, utcOpts)
		if err != nil {
			t.Fatal(err)
		}
		kept := 0
		for _, row := range nexmarkEventRows() {
			if ok, err := f.Keep(row); err != nil || !ok {
				continue
			}
			kept++
			for i, e := range exprs {
				p := &Projection{progs: plain.progs[i : i+1], cols: plain.cols[i : i+1], fields: plain.fields[i : i+1], dsts: plain.dsts[i : i+1]}
				q := &Projection{progs: under.progs[i : i+1], cols: under.cols[i : i+1], fields: under.fields[i : i+1], dsts: under.dsts[i : i+1]}
				a, b := make([]types.Value, 1), make([]types.Value, 1)
				errA, errB := p.Project(row, a), q.Project(row, b)
				// Project reads bare columns and fields without calling
				// the program: the program's own evaluation agrees.
				c, errC := plain.progs[i].Eval(row)
				if (errA == nil) != (errC == nil) || (errA != nil && errA.Error() != errC.Error()) {
					t.Fatalf("%s on %v: Project's error %v, Eval's %v", e, row, errA, errC)
				}
				if errA == nil && formatValue(a[0], plain.progs[i].Type(), time.UTC) != formatValue(c, plain.progs[i].Type(), time.UTC) {
					t.Fatalf("%s on %v: Project %v, Eval %v", e, row, a[0], c)
				}
				// And so does the expression compiled with operands read
				// only through their evaluators (no bare column, field or
				// constant read inline).
				ref := newBuilder(utcOpts)
				ref.viaArgs = true
				fn, err := ref.compile(plain.progs[i].expr)
				if err != nil {
					t.Fatal(err)
				}
				d, errD := fn(row)
				if errD != nil {
					errD = wrapEval(plain.progs[i].expr, errD)
				}
				if (errA == nil) != (errD == nil) || (errA != nil && errA.Error() != errD.Error()) {
					t.Fatalf("%s on %v: Project's error %v, through evaluators %v", e, row, errA, errD)
				}
				if errA == nil && formatValue(a[0], plain.progs[i].Type(), time.UTC) != formatValue(d, plain.progs[i].Type(), time.UTC) {
					t.Fatalf("%s on %v: Project %v, through evaluators %v", e, row, a[0], d)
				}
				if (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) {
					t.Fatalf("under %s, %s on %v: error %v alone, %v under the filter", filter, e, row, errA, errB)
				}
				typ := plain.progs[i].Type()
				if sa, sb := formatValue(a[0], typ, time.UTC), formatValue(b[0], typ, time.UTC); sa != sb {
					t.Fatalf("under %s, %s on %v: %s alone, %s under the filter", filter, e, row, sa, sb)
				}
			}
		}
		if kept == 0 {
			t.Fatalf("filter %s kept no row", filter)
		}
	}
}

// TestCaseDecidedUnderFilter checks that the Nexmark dateTime CASE under
// the bid view's filter no longer reads the person and auction ROWs: on a
// row whose event_type contradicts the filter (one the filter would have
// dropped), it gives bid.dateTime.
func TestCaseDecidedUnderFilter(t *testing.T) {
	et, person, auction, bid := nexmarkEventCols()
	p, err := CompileProjectionUnder([]Expr{nexmarkDateTime(et, person, auction, bid)}, Fn("=", et, li(2)), utcOpts)
	if err != nil {
		t.Fatal(err)
	}
	row := nexmarkEventRows()[6]
	row[0] = types.Int64(0) // as if a person event: only a decided CASE reads bid
	out := make([]types.Value, 1)
	if err := p.Project(row, out); err != nil {
		t.Fatal(err)
	}
	if got := out[0].Timestamp().Millis; got != 3002 {
		t.Fatalf("dateTime = %d, want bid.dateTime 3002", got)
	}
}
