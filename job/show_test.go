package job_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// TestShowCreateTableMasksSecrets: SHOW CREATE TABLE prints the table's
// statement with the values of secret options masked (Flink prints them).
func TestShowCreateTableMasksSecrets(t *testing.T) {
	var out bytes.Buffer
	j, err := job.Compile(context.Background(), "show_secret.sql", `
CREATE TABLE customers (id BIGINT, name STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://db:5432/app',
  'table-name' = 'customers', 'username' = 'app', 'password' = 'hunter2-not-printed');
SHOW CREATE TABLE customers;`, job.Options{Output: &out, Logger: quiet, Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "hunter2") || !strings.Contains(got, "'password' = '******'") || !strings.Contains(got, "'username' = 'app'") {
		t.Fatalf("SHOW CREATE TABLE printed:\n%s", got)
	}
}

// TestShowUserFunctions: SHOW USER FUNCTIONS lists the Go functions the
// job may call (those registered, less those dropped), sorted, kept by
// LIKE; Flink lists its temporary and catalog functions the same way.
func TestShowUserFunctions(t *testing.T) {
	fn := func(name string) *expr.Function {
		return &expr.Function{Name: name, Args: []types.Type{types.String()}, Result: types.String(),
			Eval: func(a []types.Value) (types.Value, error) { return a[0], nil }}
	}
	for _, c := range []struct{ stmts, want string }{
		{"SHOW USER FUNCTIONS;", "+I[echo]\n+I[mask]\n+I[shout]\n"},
		{"DROP FUNCTION mask;\nSHOW USER FUNCTIONS;", "+I[echo]\n+I[shout]\n"},
		{"SHOW USER FUNCTIONS LIKE '%o%';", "+I[echo]\n+I[shout]\n"},
	} {
		var out bytes.Buffer
		j, err := job.Compile(context.Background(), "show_functions.sql", c.stmts, job.Options{Output: &out, Logger: quiet,
			Functions: []*expr.Function{fn("shout"), fn("Mask"), fn("echo")}, Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}})
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != c.want {
			t.Errorf("%q printed:\n%s\nwant:\n%s", c.stmts, got, c.want)
		}
	}
}
