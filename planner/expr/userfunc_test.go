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
