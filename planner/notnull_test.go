package planner_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

const notNullJob = `
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE snk (id BIGINT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO snk SELECT id, name FROM src;
`

// TestNullableIntoNotNullIsAccepted plans a nullable query column into a
// NOT NULL (primary key) column, as Flink does, and checks that the
// transform enforces it per row: ERROR names the table and column, DROP
// drops the row with connector.ErrDropRow; a row with a value passes.
func TestNullableIntoNotNullIsAccepted(t *testing.T) {
	for _, c := range []struct{ setting, form string }{{"", "Transform"}, {"ERROR", "Transform"}, {"drop", "Transform"},
		{"", "NewTransform"}, {"ERROR", "NewTransform"}, {"drop", "NewTransform"}} {
		setting := c.setting
		t.Run("enforcer="+setting+"/"+c.form, func(t *testing.T) {
			job := notNullJob
			if setting != "" {
				job = "SET 'table.exec.sink.not-null-enforcer' = '" + setting + "';\n" + job
			}
			p, err := planner.Compile(context.Background(), "job.sql", job, planner.Options{Registry: testRegistry()})
			if err != nil {
				t.Fatalf("Flink runs this job; the planner refused it: %v", err)
			}
			fl := p.Inserts[0].Flows[0]
			if len(fl.NotNull) != 1 || fl.NotNull[0] != 0 || fl.NotNullNames[0] != "id" {
				t.Fatalf("checked columns %v %v, want [0] [id]", fl.NotNull, fl.NotNullNames)
			}
			tf, err := fl.Transform(mustOpts(t, p))
			if err != nil {
				t.Fatal(err)
			}
			if c.form == "NewTransform" {
				newTF, err := fl.NewTransform(mustOpts(t, p))
				if err != nil {
					t.Fatal(err)
				}
				tf = newTF()
			}
			out, err := tf(types.Row{Fields: []types.Value{types.Int64(7), types.Str("a")}}, nil)
			if err != nil || len(out) != 1 {
				t.Fatalf("a row with an id: %v, %v", out, err)
			}
			out, err = tf(types.Row{Fields: []types.Value{{}, types.Str("b")}}, nil)
			if len(out) != 0 {
				t.Fatalf("a row with a NULL id was passed on: %v", out)
			}
			if setting == "drop" {
				if !errors.Is(err, connector.ErrDropRow) {
					t.Fatalf("DROP: %v, want connector.ErrDropRow", err)
				}
				return
			}
			var ne *planner.NotNullError
			if !errors.As(err, &ne) || ne.Table != "snk" || ne.Column != "id" ||
				!strings.Contains(err.Error(), "column 'id' of table 'snk' is NOT NULL") {
				t.Fatalf("ERROR: %v, want a *NotNullError naming table snk and column id", err)
			}
		})
	}
}

// TestNotNullEnforcerValues refuses a value other than ERROR and DROP,
// naming the setting and the supported values.
func TestNotNullEnforcerValues(t *testing.T) {
	_, err := planner.Compile(context.Background(), "job.sql", "SET 'table.exec.sink.not-null-enforcer' = 'IGNORE';\n"+notNullJob,
		planner.Options{Registry: testRegistry()})
	if err == nil || !strings.Contains(err.Error(), "table.exec.sink.not-null-enforcer") || !strings.Contains(err.Error(), "ERROR") ||
		!strings.Contains(err.Error(), "DROP") || !errors.Is(err, planner.ErrInvalidSetting) {
		t.Fatalf("got %v, want an invalid-setting error naming the key and ERROR, DROP", err)
	}
}

func mustOpts(t *testing.T, p *planner.Plan) expr.Options {
	t.Helper()
	o, err := p.ExprOptions()
	if err != nil {
		t.Fatal(err)
	}
	return o
}
