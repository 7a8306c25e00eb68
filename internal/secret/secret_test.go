package secret

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMaskSQLLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`WITH ('properties.sasl.password' = 'hunter2', 'topic' = 'x')`,
			`WITH ('properties.sasl.password' = '******', 'topic' = 'x')`},
		{`'token'='a''b' , 'k'='v'`, `'token'='******' , 'k'='v'`},
		{`'properties.sasl.jaas.config' = 'org.x required password="p"`, `'properties.sasl.jaas.config' = '******`},
		{`'topic' = 'secret-topic-name'`, `'topic' = 'secret-topic-name'`},
		{`SELECT 'password' FROM t WHERE a = 'b'`, `SELECT 'password' FROM t WHERE a = 'b'`},
		{`'Password' = ''`, `'Password' = '******'`},
	} {
		if got := MaskSQLLine(c.in); got != c.want {
			t.Errorf("MaskSQLLine(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestSQLValues(t *testing.T) {
	text := "CREATE TABLE t (a INT) WITH (\n  'properties.sasl.password' =\n    'hun''ter2',\n  'api-key'='k1', 'topic' = 'x', 'secret' = '')"
	got := SQLValues(text, nil)
	want := []string{"hun''ter2", "hun'ter2", "k1"}
	if !slices.Equal(got, want) {
		t.Fatalf("SQLValues = %q, want %q", got, want)
	}
	if strings.Contains(MaskSQLLine("  'api-key'='k1', 'topic' = 'x', 'secret' = '')"), "k1") {
		t.Fatal("masked line still shows k1")
	}
}

func TestIsSensitiveKey(t *testing.T) {
	for key, want := range map[string]bool{"properties.sasl.password": true, "PASSWORD": true, "properties.ssl.keystore.key": true,
		"properties.sasl.jaas.config": true, "topic": false, "properties.bootstrap.servers": false} {
		if IsSensitiveKey(key) != want {
			t.Errorf("IsSensitiveKey(%q) = %v, want %v", key, !want, want)
		}
	}
}

// TestMaskLineColumn checks that the column an error points at follows the
// masking: after a mask it moves left by what the mask saved, inside a mask
// it moves to the mask's start, before it stays.
func TestMaskLineColumn(t *testing.T) {
	line := `('password' = 'hunter2hunter', 'topic' = '${X}', 'k' = 'hunter2hunter')`
	for _, c := range []struct {
		find   string // the column is where this is in line
		values []string
		want   string // what is at the returned column in the masked line
	}{
		{"'topic'", nil, "'topic'"},
		{"${X}", nil, "${X}"},
		{"'password'", nil, "'password'"},
		{"er2hunter', 'topic'", nil, "******', 'topic'"},
		{"'k'", []string{"'hunter2hunter'"}, "'k'"},
		{"hunter2hunter')", []string{"'hunter2hunter'"}, "******')"},
		{"'k'", []string{"hunter2"}, "'k'"}, // a value inside a masked one: one mask

	} {
		col := utf8.RuneCountInString(line[:strings.Index(line, c.find)]) + 1
		masked, got := MaskLine(line, col, c.values, nil)
		for _, v := range c.values {
			if strings.Contains(masked, strings.Trim(v, "'")) || strings.Contains(masked, "hunter2hunter") {
				t.Errorf("%q still shows the secret %s", masked, v)
			}
		}
		if strings.Contains(masked, Mask+Mask) {
			t.Errorf("%q masks one value twice", masked)
		}
		rest := string([]rune(masked)[got-1:])
		if !strings.HasPrefix(rest, c.want) {
			t.Errorf("column of %q: the masked line %q has %q there, want %q", c.find, masked, rest, c.want)
		}
	}
	// Wide characters before the mask count as one column each.
	wide := `'名前' = 'x', 'token' = 'abcdefghij', 'b' = 1`
	masked, col := MaskLine(wide, utf8.RuneCountInString(wide[:strings.Index(wide, "'b'")])+1, nil, nil)
	if rest := string([]rune(masked)[col-1:]); !strings.HasPrefix(rest, "'b'") {
		t.Errorf("with wide characters: %q at %d is %q", masked, col, rest)
	}
}

// TestCustomSecretKeys: a predicate given by the caller (a registry's
// declared-sensitive options) decides which keys are masked.
func TestCustomSecretKeys(t *testing.T) {
	isSecret := func(k string) bool { return k == "vault.code" }
	line := `('vault.code' = 'c0de', 'password' = 'p')`
	if masked, _ := MaskLine(line, 1, nil, isSecret); masked != `('vault.code' = '******', 'password' = 'p')` {
		t.Errorf("MaskLine with a predicate = %q", masked)
	}
	if got := SQLValues(line, isSecret); !slices.Equal(got, []string{"c0de"}) {
		t.Errorf("SQLValues with a predicate = %q", got)
	}
}
