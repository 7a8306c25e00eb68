package main

import (
	"os"
	"strings"
	"testing"
)

// TestErrorsAPersonCanActOn (issue item 5): every table's option errors of
// a file come together (the sink's too when the INSERT's query fails), a
// table with neither 'topic' nor 'topic-pattern' is not told "not both", a
// misspelt option lists the few nearest options rather than all of them
// (the full list is `streamsql options kafka`), and validate and explain
// check a file whose ${NAME}s are not set, saying which.
func TestErrorsAPersonCanActOn(t *testing.T) {
	job := writeJob(t, `CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'in',
  'properties.bootstrap.servers' = 'b:9092', 'format' = 'json', 'scan.startup.mdoe' = 'earliest-offset');
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'kafka', 'properties.bootstrap.servers' = 'b:9092', 'format' = 'json');
INSERT INTO snk SELECT id FROM src;
`)
	code, _, stderr := cli("validate", job)
	if code != 1 || !strings.Contains(stderr, "2 error(s)") {
		t.Fatalf("validate: exit %d, want both tables' errors:\n%s", code, stderr)
	}
	for _, want := range []string{
		"table 'default_catalog.default_database.src': unsupported options found for 'kafka'",
		"scan.startup.mdoe (did you mean 'scan.startup.mode'?)",
		"Closest supported options:\n\nscan.startup.mode\n",
		"`streamsql options kafka` lists them",
		"table 'default_catalog.default_database.snk': 'topic' or 'topic-pattern' must be set",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("validate's errors lack %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "not both") || strings.Contains(stderr, "sink.transactional-id-prefix") {
		t.Errorf("validate says \"not both\" for a table with neither, or lists every option:\n%s", stderr)
	}
	if n := strings.Count(stderr, "\n"); n > 60 {
		t.Errorf("%d lines of errors for two mistakes:\n%s", n, stderr)
	}
	if code, stdout, _ := cli("options", "kafka"); code != 0 || !strings.Contains(stdout, "sink.transactional-id-prefix") ||
		!strings.Contains(stdout, "scan.startup.mode") {
		t.Errorf("options kafka: exit %d:\n%s", code, stdout)
	}

	// Unset ${NAME}s: validate and explain plan with the reference in its
	// place and say so; run still refuses.
	vars := writeJob(t, `SET 'execution.checkpointing.interval' = '1s';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE snk (id BIGINT) WITH ('connector' = 'print');
INSERT INTO snk SELECT id FROM src;
`)
	t.Setenv("TOPIC", "orders")
	unsetKafka(t)
	note := "note: ${KAFKA_BOOTSTRAP} not set: checked with the reference itself in its place (nothing connects); set it to run the job"
	if code, stdout, stderr := cli("validate", vars); code != 0 || !strings.Contains(stderr, note) || !strings.Contains(stdout, ": OK") {
		t.Errorf("validate with an unset variable: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := cli("explain", vars); code != 0 || !strings.Contains(stderr, note) ||
		!strings.Contains(stdout, "'properties.bootstrap.servers'='${KAFKA_BOOTSTRAP}'") || !strings.Contains(stdout, "'topic'='orders'") {
		t.Errorf("explain with an unset variable: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := cli("run", vars); code != 1 || !strings.Contains(stderr, "undefined variable ${KAFKA_BOOTSTRAP}") {
		t.Errorf("run with an unset variable: exit %d\n%s", code, stderr)
	}
}

// unsetKafka removes KAFKA_BOOTSTRAP from the environment for the test.
func unsetKafka(t *testing.T) {
	t.Setenv("KAFKA_BOOTSTRAP", "")
	if err := os.Unsetenv("KAFKA_BOOTSTRAP"); err != nil {
		t.Fatal(err)
	}
}
