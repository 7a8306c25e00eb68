package expr

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/types"
)

// The benchmark of issue 5: a filter plus a 5-column projection over a
// 10-field row. One op is one row.
//
//	WHERE amount > 100 AND active AND country IN ('US', 'DE')
//	SELECT id, UPPER(customer), qty * 2 + 1, price * score, COALESCE(note, 'n/a')

var benchCols = []gcol{
	col("id", types.BigInt().NotNullable()),
	col("amount", types.DecimalType(10, 2)),
	col("customer", types.String()),
	col("qty", types.Int()),
	col("price", types.Double()),
	col("ts", types.TimestampType(3)),
	col("country", types.String()),
	col("active", types.Boolean()),
	col("score", types.Double()),
	col("note", types.String()),
}

func benchRefs() []Expr {
	refs := make([]Expr, len(benchCols))
	for i, c := range benchCols {
		refs[i] = Col(i, c.name, c.typ)
	}
	return refs
}

func benchFilter(c []Expr) Expr {
	return Fn("AND",
		Fn("AND", Fn(">", c[1], li(100)), c[7]),
		Fn("IN", c[6], ls("US"), ls("DE")))
}

func benchProjection(c []Expr) []Expr {
	return []Expr{
		c[0],
		Fn("UPPER", c[2]),
		Fn("+", Fn("*", c[3], li(2)), li(1)),
		Fn("*", c[4], c[8]),
		Fn("COALESCE", c[9], ls("n/a")),
	}
}

func benchRows() [][]types.Value {
	rows := make([][]types.Value, 64)
	for i := range rows {
		amount := decimalIn("150.25", 10, 2)
		if i%4 == 0 {
			amount = decimalIn("99.99", 10, 2)
		}
		note := vs("gift")
		if i%3 == 0 {
			note = null
		}
		rows[i] = []types.Value{vi(int64(i)), amount, vs("customer-name"), vi(int64(i % 7)), vf(9.5),
			vts("2024-01-02 03:04:05"), vs([]string{"US", "DE", "FR"}[i%3]), vb(i%5 != 0), vf(0.5), note}
	}
	return rows
}

var benchOpts = Options{Location: time.UTC}

// cpuMeter reports the process CPU time per row as "cpu-ns/row".
type cpuMeter struct{ start int64 }

func startCPU() cpuMeter {
	n, _ := processCPUNanos()
	return cpuMeter{start: n}
}

func (m cpuMeter) report(b *testing.B) {
	if n, ok := processCPUNanos(); ok && b.N > 0 {
		b.ReportMetric(float64(n-m.start)/float64(b.N), "cpu-ns/row")
	}
}

func BenchmarkFilterProjectClosures(b *testing.B) {
	refs := benchRefs()
	f, err := CompileFilter(benchFilter(refs), benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	p, err := CompileProjection(benchProjection(refs), benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	rows := benchRows()
	out := make([]types.Value, 5)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	defer cpu.report(b)
	kept := 0
	for i := 0; i < b.N; i++ {
		row := rows[i%len(rows)]
		ok, err := f.Keep(row)
		if err != nil {
			b.Fatal(err)
		}
		if ok {
			kept++
			if err := p.Project(row, out); err != nil {
				b.Fatal(err)
			}
		}
	}
	if b.N > len(rows) && kept == 0 {
		b.Fatal("filter kept nothing")
	}
}

// BenchmarkProjectOnlyClosures projects every row (no filter), the worst
// case of the projection alone.
func BenchmarkProjectOnlyClosures(b *testing.B) {
	p, err := CompileProjection(benchProjection(benchRefs()), benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	rows := benchRows()
	out := make([]types.Value, 5)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	defer cpu.report(b)
	for i := 0; i < b.N; i++ {
		if err := p.Project(rows[i%len(rows)], out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFilterProjectExprLang(b *testing.B) {
	refs := benchRefs()
	f, err := compileExprLang(benchFilter(refs), benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	var ps []*exprLangProgram
	for _, e := range benchProjection(refs) {
		p, err := compileExprLang(e, benchOpts)
		if err != nil {
			b.Fatal(err)
		}
		ps = append(ps, p)
	}
	rows := benchRows()
	out := make([]types.Value, 5)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	defer cpu.report(b)
	kept := 0
	for i := 0; i < b.N; i++ {
		row := rows[i%len(rows)]
		v, err := f.Eval(row)
		if err != nil {
			b.Fatal(err)
		}
		if !v.IsNull() && v.Bool() {
			kept++
			for j, p := range ps {
				if out[j], err = p.Eval(row); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if b.N > len(rows) && kept == 0 {
		b.Fatal("filter kept nothing")
	}
}

// TestBenchmarkBackendsAgree checks that the benchmark's two backends
// compute the same rows, so the comparison is between equal work.
func TestBenchmarkBackendsAgree(t *testing.T) {
	refs := benchRefs()
	exprs := append([]Expr{benchFilter(refs)}, benchProjection(refs)...)
	for _, e := range exprs {
		cp, err := Compile(e, benchOpts)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := compileExprLang(e, benchOpts)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range benchRows() {
			a, err1 := cp.Eval(row)
			b, err2 := ep.Eval(row)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v / %v", e, err1, err2)
			}
			if formatValue(a, cp.Type(), time.UTC) != formatValue(b, ep.Type(), time.UTC) {
				t.Fatalf("%s: closures %s, expr-lang %s", e, formatValue(a, cp.Type(), time.UTC), formatValue(b, ep.Type(), time.UTC))
			}
		}
	}
}

// BenchmarkNexmarkQ21 is the filter and projection of Nexmark's q21 over
// the bid view's columns (auction, bidder, price, channel, url), on the
// bids of the nexmark connector's generator: REGEXP_EXTRACT(url,
// '(&|^)channel_id=([^&]*)', 2) in the WHERE clause and again in the
// CASE. One op is one bid.
func BenchmarkNexmarkQ21(b *testing.B) {
	cols := []Expr{Col(0, "auction", types.BigInt()), Col(1, "bidder", types.BigInt()), Col(2, "price", types.BigInt()),
		Col(3, "channel", types.String()), Col(4, "url", types.String())}
	extract := Fn("REGEXP_EXTRACT", cols[4], ls("(&|^)channel_id=([^&]*)"), li(2))
	lower := Fn("LOWER", cols[3])
	filter := Fn("OR", Fn("IS NOT NULL", extract),
		Fn("IN", lower, ls("apple"), ls("google"), ls("facebook"), ls("baidu")))
	var whens []When
	for i, ch := range []string{"apple", "google", "facebook", "baidu"} {
		whens = append(whens, When{Cond: Fn("=", lower, ls(ch)), Result: ls(strconv.Itoa(i))})
	}
	proj := []Expr{cols[0], cols[1], cols[2], cols[3], &Case{Whens: whens, Else: extract}}
	f, err := CompileFilter(filter, benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	p, err := CompileProjection(proj, benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	rows := nexmarkBids(b, 2000)
	out := make([]types.Value, len(proj))
	b.ReportAllocs()
	cpu := startCPU()
	defer cpu.report(b)
	i, kept := 0, 0
	for b.Loop() {
		row := rows[i]
		if i++; i == len(rows) {
			i = 0
		}
		ok, err := f.Keep(row)
		if err != nil {
			b.Fatal(err)
		}
		if ok {
			kept++
			if err := p.Project(row, out); err != nil {
				b.Fatal(err)
			}
		}
	}
	if b.N > len(rows) && kept == 0 {
		b.Fatal("filter kept nothing")
	}
}

// nexmarkBids returns n bids shaped as the Nexmark generator's (its
// rules, with Go's random numbers): half of them from one of the four
// hot channels, whose URLs have no channel_id; the others from one of
// 10,000 "channel-N", whose URL ends, 9 times in 10, with &channel_id= and
// a number. A URL is https://www.nexmark.com/, three words of 3 or 4
// characters (one in 13 a '_') and item.htm?query=1.
func nexmarkBids(t testing.TB, n int) [][]types.Value {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, 3+r.IntN(2))
		for i := range b {
			if r.IntN(13) == 0 {
				b[i] = '_'
			} else {
				b[i] = byte('a' + r.IntN(26))
			}
		}
		return string(b)
	}
	hot := []string{"Google", "Facebook", "Baidu", "Apple"}
	out := make([][]types.Value, n)
	for i := range out {
		url := "https://www.nexmark.com/" + word() + "/" + word() + "/" + word() + "/item.htm?query=1"
		channel := hot[r.IntN(4)]
		if r.IntN(2) == 0 {
			channel = "channel-" + strconv.Itoa(r.IntN(10000))
			if r.IntN(10) > 0 {
				url += "&channel_id=" + strconv.Itoa(r.IntN(1<<31))
			}
		}
		out[i] = []types.Value{types.Int64(int64(1000 + r.IntN(100))), types.Int64(int64(2000 + r.IntN(1000))),
			types.Int64(int64(100 + r.IntN(1e6))), types.Str(channel), types.Str(url)}
	}
	return out
}

// BenchmarkNexmarkQ0 is the flow of Nexmark's q0 over the event table of
// ddl_kafka.sql (event_type and the person, auction and bid ROWs): the bid
// view's filter event_type = 2 and q0's projection, bid.auction,
// bid.bidder, bid.price, the table's dateTime (a CASE over the three
// ROWs) and bid.extra, on the suite's event mix (1 person, 3 auctions, 46
// bids in 50). One op is one event. "alone" compiles the projection by
// itself (CompileProjection), "under" under the filter
// (CompileProjectionUnder, as the planner does), where the CASE is decided
// to bid.dateTime.
func BenchmarkNexmarkQ0(b *testing.B) {
	et, person, auction, bid := nexmarkEventTable()
	field := func(r *ColumnRef, name string) Expr { return Fn("FIELD", r, ls(name)) }
	filter := Fn("=", et, li(2))
	proj := []Expr{field(bid, "auction"), field(bid, "bidder"), field(bid, "price"),
		&Case{Whens: []When{{Cond: Fn("=", et, li(0)), Result: field(person, "dateTime")},
			{Cond: Fn("=", et, li(1)), Result: field(auction, "dateTime")}}, Else: field(bid, "dateTime")},
		field(bid, "extra")}
	rows := nexmarkEvents(b)
	for _, c := range []struct {
		name  string
		under Expr
	}{{"alone", nil}, {"under", filter}} {
		b.Run(c.name, func(b *testing.B) { benchFlow(b, filter, c.under, proj, rows) })
	}
}

// nexmarkEventTable returns the columns of ddl_kafka.sql's event table:
// event_type and the person, auction and bid ROWs.
func nexmarkEventTable() (et, person, auction, bid *ColumnRef) {
	ts := types.TimestampType(3)
	str := types.String()
	big := types.BigInt()
	row := func(names ...string) types.Type {
		var fs []types.Field
		for _, n := range names {
			t := str
			switch n {
			case "id", "initialBid", "reserve", "seller", "category", "auction", "bidder", "price":
				t = big
			case "dateTime", "expires":
				t = ts
			}
			fs = append(fs, types.Field{Name: n, Type: t})
		}
		return types.RowType(fs...)
	}
	et = Col(0, "event_type", types.Int())
	person = Col(1, "person", row("id", "name", "emailAddress", "creditCard", "city", "state", "dateTime", "extra"))
	auction = Col(2, "auction", row("id", "itemName", "description", "initialBid", "reserve", "dateTime", "expires", "seller", "category", "extra"))
	bid = Col(3, "bid", row("auction", "bidder", "price", "channel", "url", "dateTime", "extra"))
	return
}

// nexmarkEvents returns 5,000 rows of nexmarkEventTable in the suite's
// mix (1 person, 3 auctions, 46 bids in 50); the bids' auction, bidder,
// price, channel and url are nexmarkBids'.
func nexmarkEvents(b testing.TB) [][]types.Value {
	r := rand.New(rand.NewPCG(1, 2))
	tsv := func() types.Value { return types.TimestampValue(types.Timestamp{Millis: 1e12 + r.Int64N(1e6)}) }
	bids := nexmarkBids(b, 5000)
	rows := make([][]types.Value, 5000)
	for i := range rows {
		switch k := i % 50; {
		case k == 0:
			rows[i] = []types.Value{types.Int64(0), types.List([]types.Value{types.Int64(int64(i)), types.Str("p"), types.Str("e"),
				types.Str("c"), types.Str("city"), types.Str("st"), tsv(), types.Str("x")}), {}, {}}
		case k < 4:
			rows[i] = []types.Value{types.Int64(1), {}, types.List([]types.Value{types.Int64(int64(i)), types.Str("item"), types.Str("d"),
				types.Int64(1), types.Int64(2), tsv(), tsv(), types.Int64(3), types.Int64(10), types.Str("x")}), {}}
		default:
			bv := bids[i]
			rows[i] = []types.Value{types.Int64(2), {}, {}, types.List([]types.Value{bv[0], bv[1], bv[2], bv[3], bv[4], tsv(), types.Str("extra")})}
		}
	}
	return rows
}

// benchFlow runs filter and, over the rows it keeps, proj compiled under
// under (CompileProjectionUnder) over rows, one op per row.
func benchFlow(b *testing.B, filter, under Expr, proj []Expr, rows [][]types.Value) {
	var f *Filter
	var p *Projection
	var memo *Memo
	if under == filter {
		// As the planner compiles a flow for a task (CompileFlow):
		// common subexpressions once per row.
		fs, ps, m, err := CompileFlow(filter, [][]Expr{proj}, benchOpts)
		if err != nil {
			b.Fatal(err)
		}
		f, p, memo = fs, ps[0], m
	} else {
		var err error
		if f, err = CompileFilter(filter, benchOpts); err != nil {
			b.Fatal(err)
		}
		if p, err = CompileProjectionUnder(proj, under, benchOpts); err != nil {
			b.Fatal(err)
		}
	}
	out := make([]types.Value, len(proj))
	b.ReportAllocs()
	cpu := startCPU()
	defer cpu.report(b)
	i, kept := 0, 0
	for b.Loop() {
		row := rows[i]
		if i++; i == len(rows) {
			i = 0
		}
		if memo != nil {
			memo.Next()
		}
		ok, err := f.Keep(row)
		if err != nil {
			b.Fatal(err)
		}
		if ok {
			kept++
			if err := p.Project(row, out); err != nil {
				b.Fatal(err)
			}
		}
	}
	if b.N > len(rows) && kept == 0 {
		b.Fatal("filter kept nothing")
	}
}

// BenchmarkNexmarkQ21Events is q21's filter and projection as the plan
// runs them over the event table (the bid view inlined): event_type = 2
// and q21's WHERE, then auction, bidder, price, channel and the channel_id
// CASE, every bid column a field of the bid ROW. One op is one event.
func BenchmarkNexmarkQ21Events(b *testing.B) {
	et, _, _, bid := nexmarkEventTable()
	field := func(name string) Expr { return Fn("FIELD", bid, ls(name)) }
	extract := Fn("REGEXP_EXTRACT", field("url"), ls("(&|^)channel_id=([^&]*)"), li(2))
	lower := Fn("LOWER", field("channel"))
	filter := Fn("AND", Fn("=", et, li(2)), Fn("OR", Fn("IS NOT NULL", extract),
		Fn("IN", lower, ls("apple"), ls("google"), ls("facebook"), ls("baidu"))))
	var whens []When
	for i, ch := range []string{"apple", "google", "facebook", "baidu"} {
		whens = append(whens, When{Cond: Fn("=", lower, ls(ch)), Result: ls(strconv.Itoa(i))})
	}
	proj := []Expr{field("auction"), field("bidder"), field("price"), field("channel"), &Case{Whens: whens, Else: extract}}
	benchFlow(b, filter, filter, proj, nexmarkEvents(b))
}

// BenchmarkNexmarkQ22Events is q22's filter and projection as the plan
// runs them over the event table (the bid view inlined): event_type = 2,
// then auction, bidder, price, channel and SPLIT_INDEX(url, '/', 3), 4 and
// 5, every bid column a field of the bid ROW. One op is one event.
func BenchmarkNexmarkQ22Events(b *testing.B) {
	et, _, _, bid := nexmarkEventTable()
	field := func(name string) Expr { return Fn("FIELD", bid, ls(name)) }
	filter := Fn("=", et, li(2))
	proj := []Expr{field("auction"), field("bidder"), field("price"), field("channel")}
	for _, i := range []int64{3, 4, 5} {
		proj = append(proj, Fn("SPLIT_INDEX", field("url"), ls("/"), li(i)))
	}
	benchFlow(b, filter, filter, proj, nexmarkEvents(b))
}

// BenchmarkNexmarkQ17 is the flow in front of Nexmark q17's group
// aggregate as the plan runs it over the event table: event_type = 2, then
// bid.auction, DATE_FORMAT(bid.dateTime, 'yyyy-MM-dd'), the three FILTER
// conditions on bid.price against BIGINT constants and bid.price. One op
// is one event.
func BenchmarkNexmarkQ17(b *testing.B) {
	et, _, _, bid := nexmarkEventTable()
	field := func(name string) Expr { return Fn("FIELD", bid, ls(name)) }
	big := func(n int64) Expr { return Lit(types.BigInt().NotNullable(), types.Int64(n)) }
	price := field("price")
	filter := Fn("=", et, li(2))
	proj := []Expr{field("auction"), Fn("DATE_FORMAT", field("dateTime"), ls("yyyy-MM-dd")),
		Fn("<", price, big(10000)),
		Fn("AND", Fn(">=", price, big(10000)), Fn("<", price, big(1000000))),
		Fn(">=", price, big(1000000)),
		price}
	benchFlow(b, filter, filter, proj, nexmarkEvents(b))
}

// BenchmarkNexmarkQ1Events is q1's filter and projection as the plan runs
// them over the event table (the bid view inlined): event_type = 2, then
// bid.auction, bid.bidder, 0.908 * bid.price (DECIMAL(3, 3) × BIGINT:
// DECIMAL(23, 3)), bid.dateTime and bid.extra. One op is one event.
func BenchmarkNexmarkQ1Events(b *testing.B) {
	et, _, _, bid := nexmarkEventTable()
	field := func(name string) Expr { return Fn("FIELD", bid, ls(name)) }
	rate := Lit(types.DecimalType(3, 3).NotNullable(), types.DecimalValue(types.NewDecimal(908, 3)))
	filter := Fn("=", et, li(2))
	proj := []Expr{field("auction"), field("bidder"), Fn("*", rate, field("price")), field("dateTime"), field("extra")}
	benchFlow(b, filter, filter, proj, nexmarkEvents(b))
}

// BenchmarkNexmarkQ2Events is q2's filter and projection as the plan runs
// them over the event table (the bid view inlined): event_type = 2 AND
// MOD(bid.auction, 123) = 0, then bid.auction and bid.price; the modulus is
// 41 here, since nexmarkBids' auctions (1000–1099) hold no multiple of 123
// (41 keeps 2 of them in 100, 123 keeps 1 in 123 of Nexmark's). One op is
// one event.
func BenchmarkNexmarkQ2Events(b *testing.B) {
	et, _, _, bid := nexmarkEventTable()
	field := func(name string) Expr { return Fn("FIELD", bid, ls(name)) }
	filter := Fn("AND", Fn("=", et, li(2)), Fn("=", Fn("MOD", field("auction"), li(41)), li(0)))
	proj := []Expr{field("auction"), field("price")}
	benchFlow(b, filter, filter, proj, nexmarkEvents(b))
}

// BenchmarkNexmarkQ14Events is q14's filter and projection as the plan
// runs them over the event table (the bid view inlined), without the
// count_char UDF: event_type = 2 AND 0.908 * price > 1000000 AND 0.908 *
// price < 50000000, then auction, bidder, 0.908 * price, the bidTimeType
// CASE over HOUR(dateTime) (EXTRACT(HOUR FROM dateTime)), dateTime and
// extra. The prices are scaled so
// that about half of the bids pass. One op is one event.
func BenchmarkNexmarkQ14Events(b *testing.B) {
	et, _, _, bid := nexmarkEventTable()
	field := func(name string) Expr { return Fn("FIELD", bid, ls(name)) }
	rate := Lit(types.DecimalType(3, 3).NotNullable(), types.DecimalValue(types.NewDecimal(908, 3)))
	euro := func() Expr { return Fn("*", rate, field("price")) }
	hour := func() Expr { return FnUnit("EXTRACT", UnitHour, field("dateTime")) }
	filter := Fn("AND", Fn("=", et, li(2)), Fn(">", euro(), li(1000000)), Fn("<", euro(), li(50000000)))
	bidTime := &Case{Whens: []When{
		{Cond: Fn("AND", Fn(">=", hour(), li(8)), Fn("<=", hour(), li(18))), Result: ls("dayTime")},
		{Cond: Fn("OR", Fn("<=", hour(), li(6)), Fn(">=", hour(), li(20))), Result: ls("nightTime")}},
		Else: ls("otherTime")}
	proj := []Expr{field("auction"), field("bidder"), euro(), bidTime, field("dateTime"), field("extra")}
	rows := nexmarkEvents(b)
	for _, row := range rows {
		if l := row[3].List(); l != nil {
			l[2] = types.Int64(l[2].Int64() * 100)
		}
	}
	benchFlow(b, filter, filter, proj, rows)
}

// BenchmarkNexmarkQ14EventsCase is BenchmarkNexmarkQ14Events with
// dateTime as the plan has it: the table's computed CASE over the three
// events' dateTime, decided by the filter (HOUR of it four times).
func BenchmarkNexmarkQ14EventsCase(b *testing.B) {
	et, person, auction, bid := nexmarkEventTable()
	field := func(name string) Expr { return Fn("FIELD", bid, ls(name)) }
	dateTime := func() Expr {
		return &Case{Whens: []When{
			{Cond: Fn("=", et, li(0)), Result: Fn("FIELD", person, ls("dateTime"))},
			{Cond: Fn("=", et, li(1)), Result: Fn("FIELD", auction, ls("dateTime"))}},
			Else: field("dateTime")}
	}
	rate := Lit(types.DecimalType(3, 3).NotNullable(), types.DecimalValue(types.NewDecimal(908, 3)))
	euro := func() Expr { return Fn("*", rate, field("price")) }
	hour := func() Expr { return FnUnit("EXTRACT", UnitHour, dateTime()) }
	filter := Fn("AND", Fn("=", et, li(2)), Fn(">", euro(), li(1000000)), Fn("<", euro(), li(50000000)))
	bidTime := &Case{Whens: []When{
		{Cond: Fn("AND", Fn(">=", hour(), li(8)), Fn("<=", hour(), li(18))), Result: ls("dayTime")},
		{Cond: Fn("OR", Fn("<=", hour(), li(6)), Fn(">=", hour(), li(20))), Result: ls("nightTime")}},
		Else: ls("otherTime")}
	proj := []Expr{field("auction"), field("bidder"), euro(), bidTime, dateTime(), field("extra")}
	rows := nexmarkEvents(b)
	for _, row := range rows {
		if l := row[3].List(); l != nil {
			l[2] = types.Int64(l[2].Int64() * 100)
		}
	}
	benchFlow(b, filter, filter, proj, rows)
}

// BenchmarkNexmarkQ10Events is q10's projection as the plan runs it over
// the event table (the bid view inlined): event_type = 2, then auction,
// bidder, price, dateTime, extra, DATE_FORMAT(dateTime, 'yyyy-MM-dd') and
// DATE_FORMAT(dateTime, 'HH:mm'), dateTime being the table's computed
// CASE over the three events' dateTime (a common subexpression, three
// times). The bids' times advance by a millisecond per event, as the
// suite's (0.1 µs apart) do: DATE_FORMAT prints a period's text once. One
// op is one event.
func BenchmarkNexmarkQ10Events(b *testing.B) {
	et, person, auction, bid := nexmarkEventTable()
	field := func(name string) Expr { return Fn("FIELD", bid, ls(name)) }
	dateTime := func() Expr {
		return &Case{Whens: []When{
			{Cond: Fn("=", et, li(0)), Result: Fn("FIELD", person, ls("dateTime"))},
			{Cond: Fn("=", et, li(1)), Result: Fn("FIELD", auction, ls("dateTime"))}},
			Else: field("dateTime")}
	}
	filter := Fn("=", et, li(2))
	proj := []Expr{field("auction"), field("bidder"), field("price"), dateTime(), field("extra"),
		Fn("DATE_FORMAT", dateTime(), ls("yyyy-MM-dd")), Fn("DATE_FORMAT", dateTime(), ls("HH:mm"))}
	rows := nexmarkEvents(b)
	for i, row := range rows {
		if l := row[3].List(); l != nil {
			l[5] = types.TimestampValue(types.Timestamp{Millis: 1e12 + int64(i)})
		}
	}
	benchFlow(b, filter, filter, proj, rows)
}

// BenchmarkNexmarkQ14CountChar is q14's Go function call as the plan runs
// it over the event table (the bid view inlined): event_type = 2, then
// count_char(bid.extra, 'c') (a Go function counting a character, as
// connectors/nexmark's CountChar). One op is one event.
func BenchmarkNexmarkQ14CountChar(b *testing.B) {
	et, _, _, bid := nexmarkEventTable()
	countChar := &Function{Name: "count_char", Args: []types.Type{types.String(), types.String()}, Result: types.BigInt().NotNullable(),
		Eval: func(args []types.Value) (types.Value, error) {
			return types.Int64(int64(strings.Count(args[0].Str(), args[1].Str()[:1]))), nil
		}}
	filter := Fn("=", et, li(2))
	proj := []Expr{UserFn(countChar, Fn("FIELD", bid, ls("extra")), ls("c"))}
	benchFlow(b, filter, filter, proj, nexmarkEvents(b))
}
