package job_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/job"
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
