package ddl

import (
	"errors"
	"strings"
	"testing"
)

// TestParseErrorsMaskSecrets: a parse error never shows the value of a
// secret-looking option — on its own line, on the line after its key, in
// a statement that does not parse, or substituted from a variable — and
// its caret still points at the offending token.
func TestParseErrorsMaskSecrets(t *testing.T) {
	for _, c := range []struct {
		name, text string
		vars       map[string]string
		caretAt    string // the excerpt text that the caret must point at
	}{
		{"same line, before the error", `CREATE TABLE k (a INT) WITH ('properties.sasl.password' = 'hunter2hunter' 'topic' = 'x');`, nil, "'topic'"},
		{"failed statement", `CREATE TABLE k (a INT,, b INT) WITH ('connector' = 'kafka', 'properties.sasl.password' = 'hunter2hunter');`, nil, ", b INT"},
		{"value on the next line", "CREATE TABLE k (a INT) WITH ('properties.sasl.password'\n = 'hunter2hunter' 'topic' = 'x');", nil, "'topic'"},
		{"doubled quote", `CREATE TABLE k (a INT) WITH ('token' = 'hunter2''hunter' 'topic' = 'x');`, nil, "'topic'"},
		{"the secret is the offending token", `CREATE TABLE k (a INT) WITH ('topic' = 'a', 'properties.sasl.password' 'hunter2hunter');`, nil, "'hunter2hunter'"},
		{"from a variable", `CREATE TABLE k (a INT) WITH ('properties.sasl.password' = '${PW}' 'topic' = 'x');`, map[string]string{"PW": "hunter2hunter"}, "'topic'"},
		{"value spanning lines, error on its last line", "CREATE TABLE k (a INT) WITH ('properties.sasl.jaas.config' = 'PlainLoginModule required\n  username=\"u\"\n  password=\"hunter2hunter\";' 'topic' = 'x');", nil, "'topic'"},
		{"undefined variable on the line", `CREATE TABLE k (a INT) WITH ('api-key' = 'hunter2hunter', 'topic' = '${NOPE}');`, nil, "${NOPE}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("job.sql", c.text, Config{Vars: c.vars})
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse = %v, want a *ddl.Error", err)
			}
			if s := err.Error(); strings.Contains(s, "hunter") {
				t.Fatalf("the error shows the secret:\n%s", s)
			}
			col := pe.Column
			if pe.ExcerptColumn > 0 {
				col = pe.ExcerptColumn
			}
			rest := string([]rune(pe.Excerpt)[col-1:])
			want := c.caretAt
			if want == "'hunter2hunter'" {
				want = "'******'"
			}
			if !strings.HasPrefix(rest, want) {
				t.Fatalf("the caret points at %q, want %q:\n%s", rest, want, err)
			}
		})
	}
}
