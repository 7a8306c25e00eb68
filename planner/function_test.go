package planner_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

var shout = &expr.Function{Name: "shout", Classes: []string{"com.example.Shout"}, Args: []types.Type{types.String()},
	Result: types.String(), Eval: func(a []types.Value) (types.Value, error) { return types.Str(strings.ToUpper(a[0].Str())), nil }}

// TestGoFunctions: a registered Go function is called by its name, and
// CREATE FUNCTION binds a name to it by its name or its class; a class no
// Go function stands for is refused at the statement, saying how to
// register one.
func TestGoFunctions(t *testing.T) {
	ctx := context.Background()
	opts := planner.Options{Registry: testRegistry(), Functions: []*expr.Function{shout}}
	for _, sql := range []string{
		"SELECT shout('a');",
		"CREATE FUNCTION loud AS 'com.example.Shout';\nSELECT loud('a');",
		"CREATE TEMPORARY FUNCTION shout AS 'whatever.Else';\nSELECT shout('a');",
	} {
		p, err := planner.Compile(ctx, "job.sql", sql, opts)
		if err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
		if !strings.Contains(p.String(), "SHOUT(CAST('a' AS STRING))") {
			t.Errorf("%q: EXPLAIN does not show the call:\n%s", sql, p)
		}
	}
	_, err := planner.Compile(ctx, "job.sql", "CREATE FUNCTION f AS 'com.example.F';\nSELECT f('a');", opts)
	var pe *planner.Error
	if !errors.As(err, &pe) || !errors.Is(err, ddl.ErrUnsupported) || pe.Pos.Line != 1 || !strings.Contains(pe.Message, "job.Options.Functions") {
		t.Fatalf("an unbound class: %v; want a refusal at line 1 naming job.Options.Functions", err)
	}
	if len(planner.Errors(err)) != 1 {
		t.Fatalf("the call of the unbound function is reported too: %v", err)
	}
	if _, err := planner.Compile(ctx, "job.sql", "SELECT 1;", planner.Options{Functions: []*expr.Function{{Name: "upper", Result: types.String(),
		Eval: func([]types.Value) (types.Value, error) { return types.Value{}, nil }}}}); err == nil {
		t.Fatal("a Go function named like a built-in was registered")
	}
}

// TestDropFunction: DROP [TEMPORARY [SYSTEM]] FUNCTION unbinds a name for
// the statements after it (a call of it is then unknown, where it is
// called); a name no function has is an error unless IF EXISTS.
func TestDropFunction(t *testing.T) {
	ctx := context.Background()
	opts := planner.Options{Registry: testRegistry(), Functions: []*expr.Function{shout}}
	for _, drop := range []string{"DROP FUNCTION loud", "DROP TEMPORARY FUNCTION loud", "DROP TEMPORARY SYSTEM FUNCTION IF EXISTS loud"} {
		sql := "CREATE FUNCTION loud AS 'com.example.Shout';\nSELECT loud('a');\n" + drop + ";\nSELECT loud('b');"
		_, err := planner.Compile(ctx, "job.sql", sql, opts)
		var pe *planner.Error
		if !errors.As(err, &pe) || !errors.Is(err, planner.ErrUnknownName) || pe.Pos.Line != 4 || len(planner.Errors(err)) != 1 {
			t.Errorf("%s: %v; want one unknown-name error at line 4", drop, err)
		}
	}
	if _, err := planner.Compile(ctx, "job.sql", "DROP FUNCTION IF EXISTS nope;\nSELECT shout('a');", opts); err != nil {
		t.Errorf("DROP FUNCTION IF EXISTS of no function: %v", err)
	}
	_, err := planner.Compile(ctx, "job.sql", "DROP FUNCTION nope;\nSELECT shout('a');", opts)
	var pe *planner.Error
	if !errors.As(err, &pe) || !errors.Is(err, planner.ErrUnknownName) || pe.Pos.Line != 1 || !strings.Contains(pe.Message, "'nope' does not exist") {
		t.Errorf("DROP FUNCTION of no function: %v; want an unknown-name error at line 1", err)
	}
}
