package expr

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/types"
)

var utcOpts = Options{Location: time.UTC, Now: func() time.Time { return time.Date(2024, 6, 1, 12, 30, 45, 123456789, time.UTC) }}

// eval compiles e and evaluates it over row, returning CAST(e AS STRING)
// as text ("NULL" for NULL).
func eval(t *testing.T, e Expr, opts Options, row ...types.Value) string {
	t.Helper()
	p, err := Compile(CastTo(e, types.String()), opts)
	if err != nil {
		t.Fatalf("compile %s: %v", e, err)
	}
	v, err := p.Eval(row)
	if err != nil {
		t.Fatalf("eval %s: %v", e, err)
	}
	if v.IsNull() {
		return "NULL"
	}
	return v.Str()
}

func TestResolveTypes(t *testing.T) {
	a := Col(0, "a", types.Int().NotNullable())
	b := Col(1, "b", types.BigInt())
	d := Col(2, "d", types.DecimalType(10, 2).NotNullable())
	e := Col(3, "e", types.DecimalType(5, 3))
	f := Col(4, "f", types.Double())
	s := Col(5, "s", types.VarChar(5))
	cases := []struct {
		e    Expr
		want string
	}{
		{Fn("+", a, a), "INT NOT NULL"},
		{Fn("+", a, b), "BIGINT"},
		{Fn("/", a, a), "INT NOT NULL"},
		{Fn("+", d, e), "DECIMAL(12, 3)"},
		{Fn("*", d, e), "DECIMAL(16, 5)"},
		{Fn("/", d, e), "DECIMAL(19, 8)"},
		{Fn("%", d, e), "DECIMAL(5, 3)"},
		{Fn("+", d, a), "DECIMAL(13, 2) NOT NULL"},
		{Fn("*", d, f), "DOUBLE"},
		{Fn("=", a, b), "BOOLEAN"},
		{Fn("=", a, a), "BOOLEAN NOT NULL"},
		{Fn("IS NULL", b), "BOOLEAN NOT NULL"},
		{Fn("COALESCE", b, a), "BIGINT NOT NULL"},
		{Fn("COALESCE", b, b), "BIGINT"},
		{&Case{Whens: []When{{Fn("=", a, a), a}}}, "INT"},
		{&Case{Whens: []When{{Fn("=", a, a), a}}, Else: d}, "DECIMAL(12, 2) NOT NULL"},
		{Fn("||", s, s), "VARCHAR(10)"},
		{Fn("ROUND", d, li(1)), "DECIMAL(10, 1) NOT NULL"},
		{Fn("CHAR_LENGTH", s), "INT"},
		{Fn("CURRENT_TIMESTAMP"), "TIMESTAMP_LTZ(3) NOT NULL"},
		{FnUnit("EXTRACT", UnitYear, Col(0, "t", types.TimestampType(3))), "BIGINT"},
		{CastTo(a, types.String()), "STRING NOT NULL"},
		{TryCastTo(a, types.String()), "STRING"},
	}
	for _, c := range cases {
		r, err := Resolve(c.e)
		if err != nil {
			t.Errorf("Resolve(%s): %v", c.e, err)
			continue
		}
		if got := r.Type().String(); got != c.want {
			t.Errorf("type of %s = %s, want %s", c.e, got, c.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	s := Col(0, "s", types.String())
	i := Col(1, "i", types.Int())
	_, err := Resolve(Fn("UPPPER", s))
	var uf *UnknownFunctionError
	if !errors.As(err, &uf) || uf.Suggestion != "UPPER" {
		t.Fatalf("unknown function: got %v, want a suggestion of UPPER", err)
	}
	if !strings.Contains(err.Error(), "did you mean UPPER?") {
		t.Errorf("message %q lacks the suggestion", err)
	}
	_, err = Resolve(Fn("XYZZYQ", s))
	if !errors.As(err, &uf) || uf.Suggestion != "" {
		t.Errorf("far-off name: got %v, want no suggestion", err)
	}
	_, err = Resolve(Fn("UPPER", i))
	var ae *ArgumentError
	if !errors.As(err, &ae) || ae.Function != "UPPER" || len(ae.Given) != 1 || ae.Given[0].Kind != types.KindInt {
		t.Fatalf("UPPER(INT): got %v, want ArgumentError naming INT", err)
	}
	if !strings.Contains(err.Error(), "got (INT)") || !strings.Contains(err.Error(), "UPPER(STRING)") {
		t.Errorf("message %q does not name given and expected types", err)
	}
	_, err = Resolve(Fn("+", s, i))
	if !errors.As(err, &ae) {
		t.Errorf("STRING + INT: got %v, want ArgumentError", err)
	}
	_, err = Resolve(Fn("SUBSTRING", s))
	if !errors.As(err, &ae) {
		t.Errorf("SUBSTRING with one argument: got %v, want ArgumentError", err)
	}
	_, err = Resolve(CastTo(Col(0, "b", types.Boolean()), types.Date()))
	var ce *CastError
	if !errors.As(err, &ce) {
		t.Errorf("CAST(BOOLEAN AS DATE): got %v, want CastError", err)
	}
	_, err = Resolve(Fn("=", s, i))
	if !errors.As(err, &ae) {
		t.Errorf("STRING = INT: got %v, want ArgumentError", err)
	}
	_, err = Resolve(&Case{Whens: []When{{i, s}}})
	if !errors.As(err, &ae) {
		t.Errorf("CASE WHEN INT: got %v, want ArgumentError", err)
	}
}

func TestThreeValuedLogic(t *testing.T) {
	a, b := Col(0, "a", types.Boolean()), Col(1, "b", types.Boolean())
	T, F, N := vb(true), vb(false), null
	cases := []struct {
		x, y         types.Value
		and, or, not string
	}{
		{T, T, "TRUE", "TRUE", "FALSE"},
		{T, F, "FALSE", "TRUE", "FALSE"},
		{T, N, "NULL", "TRUE", "FALSE"},
		{F, N, "FALSE", "NULL", "TRUE"},
		{N, F, "FALSE", "NULL", "NULL"},
		{N, T, "NULL", "TRUE", "NULL"},
		{N, N, "NULL", "NULL", "NULL"},
	}
	for _, c := range cases {
		if got := eval(t, Fn("AND", a, b), utcOpts, c.x, c.y); got != c.and {
			t.Errorf("%s AND %s = %s, want %s", show(c.x), show(c.y), got, c.and)
		}
		if got := eval(t, Fn("OR", a, b), utcOpts, c.x, c.y); got != c.or {
			t.Errorf("%s OR %s = %s, want %s", show(c.x), show(c.y), got, c.or)
		}
		if got := eval(t, Fn("NOT", a), utcOpts, c.x, c.y); got != c.not {
			t.Errorf("NOT %s = %s, want %s", show(c.x), got, c.not)
		}
	}
}

func TestFilterNullIsFalse(t *testing.T) {
	x := Col(0, "x", types.Int())
	f, err := CompileFilter(Fn(">", x, li(1)), utcOpts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    types.Value
		keep bool
	}{{vi(2), true}, {vi(1), false}, {null, false}} {
		keep, err := f.Keep([]types.Value{c.v})
		if err != nil || keep != c.keep {
			t.Errorf("Keep(%s) = %v, %v; want %v", show(c.v), keep, err, c.keep)
		}
	}
	if _, err := CompileFilter(x, utcOpts); err == nil {
		t.Error("a filter of type INT compiled")
	}
}

func TestRuntimeErrors(t *testing.T) {
	x := Col(0, "x", types.Int())
	p, err := Compile(Fn("/", li(10), x), utcOpts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Eval([]types.Value{vi(0)})
	var ee *EvalError
	if !errors.Is(err, ErrDivisionByZero) || !errors.As(err, &ee) || !strings.Contains(ee.Expr, "10 / `x`") {
		t.Errorf("10 / 0: got %v, want EvalError wrapping ErrDivisionByZero", err)
	}
	s := Col(0, "s", types.String())
	p, err = Compile(CastTo(s, types.Int()), utcOpts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = p.Eval([]types.Value{vs("abc")}); !errors.Is(err, ErrCast) {
		t.Errorf("CAST('abc' AS INT): got %v, want ErrCast", err)
	}
	p, err = Compile(TryCastTo(s, types.Int()), utcOpts)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := p.Eval([]types.Value{vs("abc")}); err != nil || !v.IsNull() {
		t.Errorf("TRY_CAST('abc' AS INT) = %s, %v; want NULL", show(v), err)
	}
	// A constant that fails is reported per evaluation, not at compile time.
	p, err = Compile(Fn("/", li(1), li(0)), utcOpts)
	if err != nil {
		t.Fatalf("compiling 1 / 0: %v", err)
	}
	if _, err := p.Eval(nil); !errors.Is(err, ErrDivisionByZero) {
		t.Errorf("1 / 0: got %v", err)
	}
}

func TestSessionTimeZone(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	sh := Options{Location: shanghai, Now: utcOpts.Now}
	ltz := Col(0, "t", types.TimestampLTZ(3))
	if got := eval(t, ltz, sh, vltz(0)); got != "1970-01-01 08:00:00.000" {
		t.Errorf("LTZ epoch in Shanghai = %s", got)
	}
	if got := eval(t, ltz, utcOpts, vltz(0)); got != "1970-01-01 00:00:00.000" {
		t.Errorf("LTZ epoch in UTC = %s", got)
	}
	if got := eval(t, Fn("FROM_UNIXTIME", Col(0, "n", types.BigInt())), sh, vi(0)); got != "1970-01-01 08:00:00" {
		t.Errorf("FROM_UNIXTIME(0) in Shanghai = %s", got)
	}
	if got := eval(t, Fn("UNIX_TIMESTAMP", Col(0, "s", types.String())), sh, vs("1970-01-01 08:00:00")); got != "0" {
		t.Errorf("UNIX_TIMESTAMP in Shanghai = %s", got)
	}
	if got := eval(t, Fn("LOCALTIMESTAMP"), sh); got != "2024-06-01 20:30:45.123" {
		t.Errorf("LOCALTIMESTAMP = %s", got)
	}
	if got := eval(t, Fn("NOW"), sh); got != "2024-06-01 20:30:45.123" {
		t.Errorf("NOW() shown in Shanghai = %s", got)
	}
	if got := eval(t, Fn("CURRENT_TIMESTAMP"), utcOpts); got != "2024-06-01 12:30:45.123" {
		t.Errorf("CURRENT_TIMESTAMP in UTC = %s", got)
	}
}

func TestNonDeterministicNotFolded(t *testing.T) {
	n := 0
	opts := Options{Location: time.UTC, Now: func() time.Time { n++; return time.Unix(int64(n), 0) }}
	p, err := Compile(Fn("UNIX_TIMESTAMP"), opts)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := p.Eval(nil)
	b, _ := p.Eval(nil)
	if a.Int64() == b.Int64() {
		t.Errorf("UNIX_TIMESTAMP() was folded to a constant: %d, %d", a.Int64(), b.Int64())
	}
	u, err := Compile(Fn("UUID"), opts)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := u.Eval(nil)
	y, _ := u.Eval(nil)
	if x.Str() == y.Str() || len(x.Str()) != 36 {
		t.Errorf("UUID() gave %q then %q", x.Str(), y.Str())
	}
}

// TestDateFormatErrors checks that a bad pattern is an invalid argument
// (the patterns themselves are tested in internal/javatime).
func TestDateFormatErrors(t *testing.T) {
	if _, err := compileFormat("yyyy-MM-dd 'open"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("unterminated quote: %v", err)
	}
	if _, err := compileFormat("qqq"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("unknown letter: %v", err)
	}
}

func TestStringPrintsFlinkSQL(t *testing.T) {
	x := Col(0, "x", types.Int())
	s := Col(1, "s", types.String())
	cases := []struct {
		e    Expr
		want string
	}{
		{Fn("+", x, li(1)), "(`x` + 1)"},
		{Fn("IS NOT DISTINCT FROM", x, NullLit()), "(`x` IS NOT DISTINCT FROM NULL)"},
		{Fn("BETWEEN", x, li(1), li(2)), "(`x` BETWEEN 1 AND 2)"},
		{Fn("IN", x, li(1), li(2)), "(`x` IN (1, 2))"},
		{Fn("LIKE", s, ls("a!%"), ls("!")), "(`s` LIKE 'a!%' ESCAPE '!')"},
		{FnUnit("CEIL", UnitDay, Col(0, "t", types.TimestampType(3))), "CEIL(`t` TO DAY)"},
		{FnUnit("EXTRACT", UnitYear, Col(0, "t", types.TimestampType(3))), "EXTRACT(YEAR FROM `t`)"},
		{FnUnit("TIMESTAMPADD", UnitHour, li(1), Col(0, "t", types.TimestampType(3))), "TIMESTAMPADD(HOUR, 1, `t`)"},
		{Fn("ITEM", Col(0, "m", types.Map(types.String(), types.Int())), ls("k")), "`m`['k']"},
		{TryCastTo(s, types.DecimalType(10, 2)), "TRY_CAST(`s` AS DECIMAL(10, 2))"},
		{Fn("TRIM", s, ls("x")), "TRIM(BOTH 'x' FROM `s`)"},
		{Fn("POSITION", ls("a"), s), "POSITION('a' IN `s`)"},
		{&Case{Operand: x, Whens: []When{{li(1), ls("one")}}, Else: ls("other")}, "CASE `x` WHEN 1 THEN 'one' ELSE 'other' END"},
		{Lit(types.String(), vs("it's")), "CAST('it''s' AS STRING)"},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.want {
			t.Errorf("String() = %s, want %s", got, c.want)
		}
	}
}

// TestNullInputs evaluates every function of the library with NULL in each
// argument position and checks the NULL behaviour that SQL prescribes:
// strict functions give NULL; the NULL-aware ones give their documented
// value.
func TestNullInputs(t *testing.T) {
	s, i := types.String(), types.Int()
	nullAware := map[string]string{
		"CONCAT_WS/1": "b", "CONCAT_WS/2": "a", "COALESCE/0": "x", "COALESCE/1": "a", "IS NULL/0": "TRUE", "IS NOT NULL/0": "FALSE",
		"IS DISTINCT FROM/0": "TRUE", "IS DISTINCT FROM/1": "TRUE",
		"IS NOT DISTINCT FROM/0": "FALSE", "IS NOT DISTINCT FROM/1": "FALSE",
		"IF/0": "b", "IF/2": "a", "NULLIF/1": "x",
	}
	sigs := []struct {
		name string
		args []types.Type
		vals []types.Value
	}{
		{"UPPER", []types.Type{s}, []types.Value{vs("x")}},
		{"LOWER", []types.Type{s}, []types.Value{vs("x")}},
		{"TRIM", []types.Type{s}, []types.Value{vs("x")}},
		{"LTRIM", []types.Type{s}, []types.Value{vs("x")}},
		{"RTRIM", []types.Type{s}, []types.Value{vs("x")}},
		{"CONCAT", []types.Type{s, s}, []types.Value{vs("a"), vs("b")}},
		{"||", []types.Type{s, s}, []types.Value{vs("a"), vs("b")}},
		{"CONCAT_WS", []types.Type{s, s, s}, []types.Value{vs("-"), vs("a"), vs("b")}},
		{"SUBSTRING", []types.Type{s, i, i}, []types.Value{vs("abc"), vi(1), vi(1)}},
		{"REPLACE", []types.Type{s, s, s}, []types.Value{vs("abc"), vs("a"), vs("b")}},
		{"CHAR_LENGTH", []types.Type{s}, []types.Value{vs("x")}},
		{"POSITION", []types.Type{s, s}, []types.Value{vs("a"), vs("b")}},
		{"LPAD", []types.Type{s, i, s}, []types.Value{vs("a"), vi(3), vs("b")}},
		{"RPAD", []types.Type{s, i, s}, []types.Value{vs("a"), vi(3), vs("b")}},
		{"REGEXP_REPLACE", []types.Type{s, s, s}, []types.Value{vs("a"), vs("a"), vs("b")}},
		{"REGEXP_EXTRACT", []types.Type{s, s, i}, []types.Value{vs("a1"), vs("(\\d)"), vi(1)}},
		{"SPLIT_INDEX", []types.Type{s, s, i}, []types.Value{vs("a,b"), vs(","), vi(0)}},
		{"MD5", []types.Type{s}, []types.Value{vs("x")}},
		{"SHA256", []types.Type{s}, []types.Value{vs("x")}},
		{"ABS", []types.Type{i}, []types.Value{vi(-1)}},
		{"ROUND", []types.Type{types.Double(), i}, []types.Value{vf(1.5), vi(0)}},
		{"FLOOR", []types.Type{types.Double()}, []types.Value{vf(1.5)}},
		{"CEIL", []types.Type{types.Double()}, []types.Value{vf(1.5)}},
		{"MOD", []types.Type{i, i}, []types.Value{vi(5), vi(3)}},
		{"POWER", []types.Type{types.Double(), types.Double()}, []types.Value{vf(2), vf(2)}},
		{"SQRT", []types.Type{types.Double()}, []types.Value{vf(4)}},
		{"DATE_FORMAT", []types.Type{types.TimestampType(3), s}, []types.Value{vts("2024-01-01 00:00:00"), vs("yyyy")}},
		{"TO_TIMESTAMP", []types.Type{s, s}, []types.Value{vs("2024"), vs("yyyy")}},
		{"FROM_UNIXTIME", []types.Type{types.BigInt(), s}, []types.Value{vi(0), vs("yyyy")}},
		{"UNIX_TIMESTAMP", []types.Type{s, s}, []types.Value{vs("2024"), vs("yyyy")}},
		{"JSON_VALUE", []types.Type{s, s}, []types.Value{vs(`{"a":1}`), vs("$.a")}},
		{"JSON_QUERY", []types.Type{s, s}, []types.Value{vs(`{"a":[1]}`), vs("$.a")}},
		{"JSON_EXISTS", []types.Type{s, s}, []types.Value{vs(`{"a":1}`), vs("$.a")}},
		{"COALESCE", []types.Type{s, s}, []types.Value{vs("a"), vs("x")}},
		{"NULLIF", []types.Type{s, s}, []types.Value{vs("x"), vs("y")}},
		{"IF", []types.Type{types.Boolean(), s, s}, []types.Value{vb(true), vs("a"), vs("b")}},
		{"IS NULL", []types.Type{s}, []types.Value{vs("x")}},
		{"IS NOT NULL", []types.Type{s}, []types.Value{vs("x")}},
		{"IS DISTINCT FROM", []types.Type{s, s}, []types.Value{vs("x"), vs("y")}},
		{"IS NOT DISTINCT FROM", []types.Type{s, s}, []types.Value{vs("x"), vs("y")}},
		{"=", []types.Type{i, i}, []types.Value{vi(1), vi(1)}},
		{"+", []types.Type{i, i}, []types.Value{vi(1), vi(1)}},
		{"LIKE", []types.Type{s, s}, []types.Value{vs("a"), vs("a")}},
		{"IN", []types.Type{i, i}, []types.Value{vi(1), vi(1)}},
		{"BETWEEN", []types.Type{i, i, i}, []types.Value{vi(1), vi(0), vi(2)}},
		{"ITEM", []types.Type{types.Array(i), i}, []types.Value{types.List([]types.Value{vi(1)}), vi(1)}},
	}
	for _, sig := range sigs {
		args := make([]Expr, len(sig.args))
		for k, at := range sig.args {
			args[k] = Col(k, string(rune('a'+k)), at)
		}
		e := Fn(sig.name, args...)
		for k := range sig.args {
			row := append([]types.Value(nil), sig.vals...)
			row[k] = null
			want, aware := nullAware[sig.name+"/"+string(rune('0'+k))]
			if !aware {
				want = "NULL"
			}
			if got := eval(t, e, utcOpts, row...); got != want {
				t.Errorf("%s with NULL argument %d = %s, want %s", e, k+1, got, want)
			}
		}
	}
}

// TestNullInputsTemporalForms covers the forms with a time unit and the
// casts: NULL in, NULL out.
func TestNullInputsTemporalForms(t *testing.T) {
	ts := Col(0, "t", types.TimestampType(3))
	n := Col(1, "n", types.Int())
	exprs := []Expr{
		FnUnit("EXTRACT", UnitYear, ts),
		FnUnit("CEIL", UnitDay, ts),
		FnUnit("FLOOR", UnitHour, ts),
		FnUnit("TIMESTAMPADD", UnitDay, n, ts),
		FnUnit("TIMESTAMPDIFF", UnitDay, ts, ts),
		CastTo(ts, types.Date()),
		TryCastTo(n, types.String()),
		Fn("NOT BETWEEN", n, li(1), li(2)),
		Fn("NOT IN", n, li(1)),
		Fn("NEGATE", n),
		Fn("TO_TIMESTAMP_LTZ", n, li(3)),
	}
	for _, e := range exprs {
		if got := eval(t, e, utcOpts, null, null); got != "NULL" {
			t.Errorf("%s with NULL inputs = %s, want NULL", e, got)
		}
	}
}

func TestCastCollections(t *testing.T) {
	m := Col(0, "m", types.Map(types.String(), types.Int()))
	r := Col(0, "r", types.RowType(types.Field{Name: "a", Type: types.Int()}, types.Field{Name: "b", Type: types.String()}))
	a := Col(0, "a", types.Array(types.Int()))
	mv := types.MapValue(&types.MapData{Keys: []types.Value{vs("k")}, Values: []types.Value{vi(7)}})
	rv := types.List([]types.Value{vi(1), vs("x")})
	av := types.List([]types.Value{vi(1), null})
	cases := []struct {
		e    Expr
		row  types.Value
		want string
	}{
		{CastTo(m, types.Map(types.String(), types.String())), mv, "{k=7}"},
		{CastTo(r, types.RowType(types.Field{Name: "a", Type: types.String()}, types.Field{Name: "b", Type: types.String()})), rv, "(1, x)"},
		{CastTo(a, types.Array(types.DecimalType(5, 2))), av, "[1.00, NULL]"},
	}
	for _, c := range cases {
		if got := eval(t, c.e, utcOpts, c.row); got != c.want {
			t.Errorf("%s = %s, want %s", c.e, got, c.want)
		}
	}
}

func TestAddInterval(t *testing.T) {
	ts := Col(0, "ts", types.TimestampType(3))
	if got := eval(t, AddInterval(ts, -5, UnitSecond), utcOpts, vts("2024-01-01 00:00:02")); got != "2023-12-31 23:59:57.000" {
		t.Errorf("ts - INTERVAL '5' SECOND = %s", got)
	}
	if got := eval(t, AddInterval(ts, 1, UnitMonth), utcOpts, vts("2024-01-31 10:00:00")); got != "2024-02-29 10:00:00.000" {
		t.Errorf("ts + INTERVAL '1' MONTH = %s", got)
	}
	r, err := Resolve(AddInterval(ts, 1, UnitDay))
	if err != nil || r.Type().String() != "TIMESTAMP(3)" {
		t.Errorf("type of ts + INTERVAL '1' DAY: %v, %v", r, err)
	}
}

func TestRowField(t *testing.T) {
	rt := types.RowType(types.Field{Name: "id", Type: types.BigInt().NotNullable()}, types.Field{Name: "name", Type: types.String()})
	r := Col(0, "r", rt)
	e := Fn("FIELD", r, ls("id"))
	if got := eval(t, e, utcOpts, types.List([]types.Value{vi(7), vs("x")})); got != "7" {
		t.Errorf("r.id = %s", got)
	}
	if got := eval(t, e, utcOpts, null); got != "NULL" {
		t.Errorf("NULL row .id = %s", got)
	}
	res, err := Resolve(e)
	if err != nil || res.Type().String() != "BIGINT" || res.String() != "`r`['id']" {
		t.Errorf("Resolve(r.id) = %v (%v), %v", res, res.Type(), err)
	}
	var ae *ArgumentError
	if _, err := Resolve(Fn("FIELD", r, ls("nope"))); !errors.As(err, &ae) || !strings.Contains(err.Error(), "[id name]") {
		t.Errorf("unknown field: %v", err)
	}
}
