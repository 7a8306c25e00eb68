package ddl

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestParseFile(t *testing.T) {
	cfg := Config{Env: func(name string) (string, bool) {
		if name == "KAFKA_BOOTSTRAP" {
			return "broker:9092", true
		}
		return "", false
	}}
	stmts, err := ParseFile("testdata/jobs/orders.sql", cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`SET 'execution.checkpointing.interval'='5s'`,
		`CREATE TABLE orders (id BIGINT; amount DECIMAL(10, 2); customer STRING; ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp') WITH('connector'='kafka','topic'='orders','properties.bootstrap.servers'='broker:9092','properties.group.id'='orders-job','properties.isolation.level'='read_committed','scan.startup.mode'='earliest-offset','format'='json')`,
		`CREATE TABLE big_orders (id BIGINT; amount DECIMAL(10, 2); customer STRING) WITH('connector'='kafka','topic'='big-orders','properties.bootstrap.servers'='broker:9092','sink.semantic'='exactly-once','sink.transactional-id-prefix'='big-orders','format'='json')`,
		"INSERT INTO big_orders SELECT `id`, `amount`, UPPER(`customer`) FROM orders WHERE (`amount` > 100)",
	}
	if len(stmts) != len(want) {
		t.Fatalf("got %d statements, want %d", len(stmts), len(want))
	}
	for i, s := range stmts {
		if got := dump(s); got != want[i] {
			t.Errorf("statement %d\n got  %s\n want %s", i, got, want[i])
		}
	}

	_, err = ParseFile("testdata/jobs/orders.sql", Config{})
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrUndefinedVariable) || pe.File != "testdata/jobs/orders.sql" || pe.Line != 9 {
		t.Errorf("without KAFKA_BOOTSTRAP: %v", err)
	}

	_, err = ParseFile("testdata/jobs/does-not-exist.sql", Config{})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestErrorFormatting(t *testing.T) {
	_, err := ParseExpr("", "a +")
	if got := err.Error(); got != "1:4: expected an expression, found end of input\n  a +\n     ^" {
		t.Errorf("Error() = %q", got)
	}
	var pe *Error
	errors.As(err, &pe)
	if pe.Short() != "1:4: expected an expression, found end of input" {
		t.Errorf("Short() = %q", pe.Short())
	}
	p := Pos{Offset: 3, Line: 1, Column: 4}
	if !p.IsValid() || p.String() != "1:4" || (Pos{}).IsValid() {
		t.Error("Pos helpers are wrong")
	}
	// CRLF line endings do not leak into the excerpt.
	_, err = Parse("crlf.sql", "SET 'a' = 'b';\r\nSET 'c' = ;\r\n", Config{})
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 11 || strings.Contains(pe.Excerpt, "\r") {
		t.Errorf("CRLF: %q", err)
	}
}

func BenchmarkParseJob(b *testing.B) {
	src, err := os.ReadFile("testdata/jobs/orders.sql")
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Vars: map[string]string{"KAFKA_BOOTSTRAP": "broker:9092"}}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse("orders.sql", string(src), cfg); err != nil {
			b.Fatal(err)
		}
	}
}
