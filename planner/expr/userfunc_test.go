package expr

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestUserFunction resolves and evaluates a Go function: arguments are
// widened to its parameters, a NULL argument gives NULL without a call
// (unless CallOnNull), and a narrowing argument is refused.
func TestUserFunction(t *testing.T) {
	calls := 0
	f := &Function{Name: "twice", Args: []types.Type{types.BigInt()}, Result: types.BigInt().NotNullable(),
		Eval: func(a []types.Value) (types.Value, error) { calls++; return types.Int64(2 * a[0].Int64()), nil }}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	e, err := Resolve(UserFn(f, Col(0, "x", types.Int().NotNullable())))
	if err != nil {
		t.Fatal(err)
	}
	if !e.Type().Equal(types.BigInt().NotNullable()) {
		t.Fatalf("type %s, want BIGINT NOT NULL", e.Type())
	}
	p, err := Compile(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := p.Eval([]types.Value{types.Int64(21)}); err != nil || v.Int64() != 42 {
		t.Fatalf("twice(21) = %v, %v", v, err)
	}
	n, err := Resolve(UserFn(f, Col(0, "x", types.Int())))
	if err != nil || n.Type().NotNull {
		t.Fatalf("nullable argument: %v, %v; want a nullable result", n, err)
	}
	pn, _ := Compile(n, Options{})
	before := calls
	if v, err := pn.Eval([]types.Value{{}}); err != nil || !v.IsNull() || calls != before {
		t.Fatalf("twice(NULL) = %v, %v, %d calls; want NULL without a call", v, err, calls-before)
	}
	var ae *ArgumentError
	if _, err := Resolve(UserFn(f, Col(0, "s", types.String()))); !errors.As(err, &ae) || !strings.Contains(err.Error(), "TWICE(BIGINT)") {
		t.Fatalf("a STRING argument: %v, want an ArgumentError naming TWICE(BIGINT)", err)
	}
}

func TestUserFunctionCheck(t *testing.T) {
	for _, f := range []*Function{
		{Name: "", Result: types.Int(), Eval: func([]types.Value) (types.Value, error) { return types.Value{}, nil }},
		{Name: "upper", Result: types.String(), Eval: func([]types.Value) (types.Value, error) { return types.Value{}, nil }},
		{Name: "f", Result: types.Int()},
		{Name: "f", Eval: func([]types.Value) (types.Value, error) { return types.Value{}, nil }},
	} {
		if err := f.Check(); err == nil {
			t.Errorf("%+v passed Check", f)
		}
	}
}

// TestGoFunctionReusesArgs: in CompileFlow's compilation (for one
// goroutine) a Go function's call hands Eval one argument slice of the
// call site's, reused and cleared, and allocates nothing per call
// (its arguments written in place: columns, ROW fields, constants, other
// nodes' values); its
// results, NULL rule (NULL argument: NULL without a call, unless
// CallOnNull) and argument errors are those of a shared compilation,
// which allocates a slice per call.
func TestGoFunctionReusesArgs(t *testing.T) {
	var seen [][]types.Value // the slices Eval was given, while it runs
	mk := func(name string, onNull bool) *Function {
		return &Function{Name: name, Args: []types.Type{types.String(), types.BigInt()}, Result: types.BigInt(), CallOnNull: onNull,
			Eval: func(a []types.Value) (types.Value, error) {
				seen = append(seen, a)
				if a[0].IsNull() || a[1].IsNull() {
					return types.Int64(-1), nil
				}
				return types.Int64(int64(len(a[0].Str())) + a[1].Int64()), nil
			}}
	}
	strict, onNull := mk("strictf", false), mk("onnullf", true)
	s, n := Col(0, "s", types.String()), Col(1, "n", types.BigInt())
	toBig := &Cast{Expr: s, Target: types.BigInt()} // fails on "abc"
	r := Col(2, "r", types.RowType(types.Field{Name: "s", Type: types.String()}, types.Field{Name: "n", Type: types.BigInt()}))
	rs, rn := Fn("FIELD", r, ls("s")), Fn("FIELD", r, ls("n"))
	proj := []Expr{UserFn(strict, s, n), UserFn(onNull, s, n), UserFn(strict, s, toBig), UserFn(onNull, Fn("UPPER", s), Fn("+", n, n)),
		UserFn(strict, rs, rn), UserFn(onNull, rs, rn), UserFn(strict, rs, li(4)), UserFn(onNull, ls("k"), rn)}
	_, ps, memo, err := CompileFlow(nil, [][]Expr{proj}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if memo == nil {
		t.Fatal("no memo: the flow's Go functions would allocate their arguments per call")
	}
	shared, err := CompileProjection(proj, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]types.Value{{vs("abc"), types.Int64(1), types.List([]types.Value{vs("xy"), types.Int64(3)})},
		{vs("12"), {}, {}}, {{}, types.Int64(7), types.List([]types.Value{vs("q")})},
		{vs("-3"), types.Int64(2), types.List([]types.Value{{}, types.Int64(5)})}, {{}, {}, types.List([]types.Value{vs("w"), {}})},
		{vs("7"), types.Int64(1), types.List(nil)}}
	for _, row := range rows {
		memo.Next()
		got, want := make([]types.Value, len(proj)), make([]types.Value, len(proj))
		seen = seen[:0]
		gerr := ps[0].Project(row, got)
		for _, a := range seen {
			for j, v := range a {
				if !v.IsNull() {
					t.Fatalf("over %v: argument %d still held after the call: %v", row, j, show(v))
				}
			}
		}
		werr := shared.Project(row, want)
		if errText(gerr) != errText(werr) || (gerr == nil && show(types.List(got)) != show(types.List(want))) {
			t.Fatalf("%v: reusing %s, %v; shared %s, %v", row, show(types.List(got)), gerr, show(types.List(want)), werr)
		}
	}
	one := []Expr{UserFn(strict, s, n)}
	_, ps1, memo1, err := CompileFlow(nil, [][]Expr{one}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	row, out := []types.Value{vs("abc"), types.Int64(1), {}}, make([]types.Value, 1)
	if a := testing.AllocsPerRun(100, func() {
		seen = seen[:0]
		memo1.Next()
		_ = ps1[0].Project(row, out)
	}); a != 0 {
		t.Fatalf("%v allocations per call, want 0", a)
	}
}
