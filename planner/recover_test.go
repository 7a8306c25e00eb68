package planner_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/planner"
)

// TestParseAndPlanErrors checks that parse errors and planning errors of
// one file come back together, in file order, and that errors that only
// follow from a statement that did not parse are left out.
func TestParseAndPlanErrors(t *testing.T) {
	const tables = "CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen');\n" +
		"CREATE TABLE snk (id BIGINT, name STRING) WITH ('connector' = 'blackhole');\n"
	cases := []struct {
		name, text string
		// want are "line:class" of the errors, in order.
		want []string
	}{
		{"independent errors in order", tables +
			"INSERT INTO snk SELECT id, nme FROM src;\n" +
			"SELECT FROM src;\n" +
			"INSERT INTO nowhere SELECT * FROM src;\n",
			[]string{"3:unknown name", "4:syntax error", "5:unknown name"}},
		{"parse error after planning errors", "INSERT INTO nowhere SELECT 1;\nCREATE TABLE t (id INTT);\n",
			[]string{"1:unknown name", "2:syntax error"}},
		{"failed create table", "CREATE TABLE t (id BIGINT,) WITH ('connector' = 'blackhole');\nINSERT INTO t SELECT 1;\n",
			[]string{"1:syntax error"}},
		{"failed create table, qualified use", "CREATE TABLE t (id BIGINT,);\nINSERT INTO default_catalog.default_database.t SELECT 1;\n",
			[]string{"1:syntax error"}},
		{"failed create view", tables + "CREATE VIEW v AS SELECT * FROM src WHERE;\nINSERT INTO snk SELECT * FROM v;\n",
			[]string{"3:syntax error"}},
		{"unsupported create view", tables + "CREATE VIEW v AS SELECT id, name FROM src ORDER BY id OFFSET 1 ROWS;\nINSERT INTO snk SELECT * FROM v;\n",
			[]string{"3:not supported yet"}},
		{"failed create, then defined", "CREATE TABLE t (id BIGINT,);\nCREATE TABLE t (id BIGINT) WITH ('connector' = 'blackhole');\n" +
			"DROP TABLE t;\nINSERT INTO t SELECT 1;\n",
			[]string{"1:syntax error", "4:unknown name"}},
		{"failed table, unknown column named like it", "CREATE TABLE nme (id BIGINT,);\n" + tables + "INSERT INTO snk SELECT id, nme FROM src;\n",
			[]string{"1:syntax error", "4:unknown name"}},
		{"failed create does not hide other names", tables + "CREATE TABLE t (id BIGINT,);\nINSERT INTO u SELECT 1;\n",
			[]string{"3:syntax error", "4:unknown name"}},
		{"unnamed failed create", tables + "CREATE TABLE (id BIGINT);\nINSERT INTO t SELECT 1;\nINSERT INTO snk SELECT 1;\n",
			[]string{"3:syntax error", "5:type error"}},
		{"create catalog", "CREATE CATALOG c WITH ('type' = 'x');\nINSERT INTO c.db.t SELECT 1;\n",
			[]string{"1:not supported yet"}},
		{"unknown table before the unnamed failure", "INSERT INTO t SELECT 1;\nCRATE TABLE t (id INT);\n",
			[]string{"1:unknown name", "2:syntax error"}},
		{"failed drop", tables + "DROP TABLE snk snk;\nCREATE TABLE snk (id BIGINT) WITH ('connector' = 'blackhole');\n",
			[]string{"3:syntax error"}},
		{"failed set", "SET 'pipeline.name' = 'j';\nSET 'execution.checkpointing.interval' = 10s;\n" +
			"SET 'execution.checkpointing.timeout' = '5 ms';\n" + tables + "INSERT INTO snk SELECT * FROM src;\n",
			[]string{"2:syntax error"}},
		{"setting errors without failed set", "SET 'execution.checkpointing.timeout' = '5 ms';\n" + tables + "INSERT INTO snk SELECT * FROM src;\n",
			[]string{"1:invalid setting"}},
		{"bad value beside a failed set", "SET 'execution.checkpointing.interval' = 'often';\nSET 'x' 'y';\n" + tables + "INSERT INTO snk SELECT * FROM src;\n",
			[]string{"1:invalid setting", "2:syntax error"}},
		{"missing semicolon keeps the statement", tables + "INSERT INTO snk SELECT name, id FROM src\nINSERT INTO snk SELECT * FROM src;\n",
			[]string{"3:type error", "3:syntax error"}},
		{"missing semicolon after CREATE TABLE", "CREATE TABLE t (id BIGINT) WITH ('connector' = 'blackhole')\nINSERT INTO t SELECT 'x';\n",
			[]string{"1:syntax error", "2:type error"}},
		{"undefined variable in a CREATE TABLE", "CREATE TABLE t (id BIGINT) WITH ('connector' = '${CONNECTOR}');\nINSERT INTO t SELECT 1;\nINSERT INTO u SELECT 1;\n",
			[]string{"1:undefined variable", "3:unknown name"}},
		{"undefined variable in a table name", "CREATE TABLE t_${ENV} (id BIGINT) WITH ('connector' = 'blackhole');\nINSERT INTO t_prod SELECT 1;\n",
			[]string{"1:undefined variable"}},
		{"no 'no job' error when the INSERT failed", tables + "INSERT INTO snk SELEC * FROM src;\n",
			[]string{"3:syntax error"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := planner.Compile(context.Background(), "job.sql", c.text, planner.Options{Registry: testRegistry()})
			if err == nil {
				t.Fatal("no error")
			}
			var got []string
			for _, e := range planner.Errors(err) {
				got = append(got, describeErr(e))
			}
			if strings.Join(got, ", ") != strings.Join(c.want, ", ") {
				t.Errorf("errors %q, want %q:\n%v", got, c.want, err)
			}
		})
	}
}

// describeErr gives "line:class" for a *ddl.Error or *planner.Error.
func describeErr(err error) string {
	var de *ddl.Error
	if errors.As(err, &de) {
		return strings.Join([]string{itoa(de.Line), de.Err.Error()}, ":")
	}
	var pe *planner.Error
	if errors.As(err, &pe) {
		return strings.Join([]string{itoa(pe.Pos.Line), pe.Err.Error()}, ":")
	}
	return "?:" + err.Error()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestCombinedErrorClassifies checks that errors.Is and errors.As see
// both kinds of error in the combined error, and that its text is the
// errors' texts in file order.
func TestCombinedErrorClassifies(t *testing.T) {
	text := "CREATE TABLE snk (id BIGINT) WITH ('connector' = 'blackhole');\n" +
		"INSERT INTO snk SELECT 'x';\n" +
		"SELECT ${MISSING:-1} FROM;\n" +
		"INSERT OVERWRITE snk SELECT 1;\n"
	_, err := planner.Compile(context.Background(), "job.sql", text, planner.Options{Registry: testRegistry()})
	for _, class := range []error{planner.ErrType, ddl.ErrSyntax, ddl.ErrUnsupported} {
		if !errors.Is(err, class) {
			t.Errorf("errors.Is(err, %v) = false", class)
		}
	}
	if errors.Is(err, planner.ErrUnknownName) || errors.Is(err, ddl.ErrUndefinedVariable) {
		t.Error("errors.Is matches a class the file does not have")
	}
	var de *ddl.Error
	if !errors.As(err, &de) || de.Line != 3 {
		t.Errorf("errors.As *ddl.Error: %v", de)
	}
	var pe *planner.Error
	if !errors.As(err, &pe) || pe.Pos.Line != 2 {
		t.Errorf("errors.As *planner.Error: %v", pe)
	}
	var list planner.ErrorList
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("want a planner.ErrorList of 3, got %T: %v", err, err)
	}
	want := list[0].Error() + "\n\n" + list[1].Error() + "\n\n" + list[2].Error()
	if err.Error() != want || !strings.HasPrefix(err.Error(), "job.sql:2:") {
		t.Errorf("text:\n%s", err)
	}

	// An undefined variable fails its statement only.
	_, err = planner.Compile(context.Background(), "job.sql", "SELECT ${MISSING};\nINSERT INTO nowhere SELECT 1;\n", planner.Options{})
	if got := planner.Errors(err); len(got) != 2 || !errors.Is(got[0], ddl.ErrUndefinedVariable) || !errors.Is(got[1], planner.ErrUnknownName) {
		t.Errorf("undefined variable: %v", err)
	}
}

// TestLoadCatalogCombinedErrors checks that LoadCatalog also reports parse
// and planning errors of a catalog file together, without cascades.
func TestLoadCatalogCombinedErrors(t *testing.T) {
	text := "CREATE TABLE a (id BIGINT,) WITH ('connector' = 'datagen');\n" +
		"CREATE TABLE b LIKE a;\n" +
		"CREATE TABLE c LIKE nothing;\n"
	_, err := planner.LoadCatalog(context.Background(), "cat.sql", text, planner.Options{Registry: testRegistry()})
	var got []string
	for _, e := range planner.Errors(err) {
		got = append(got, describeErr(e))
	}
	if want := "1:syntax error, 3:unknown name"; strings.Join(got, ", ") != want {
		t.Errorf("errors %q, want %s:\n%v", got, want, err)
	}
}
