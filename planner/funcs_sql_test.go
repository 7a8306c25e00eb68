package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/factory"
)

// TestBuiltinFunctionsFromSQL: the built-ins added with Flink 2.x's
// catalogue are reachable from SQL text, keyword-named ones (LEFT, RIGHT)
// and zero-argument ones (PI(), E()) included; their values are checked
// against Flink by planner/expr's golden cases.
func TestBuiltinFunctionsFromSQL(t *testing.T) {
	for _, q := range []string{
		"SELECT LEFT(s, 2), RIGHT(s, 1) FROM (VALUES ('abc')) v (s)",
		"SELECT ARRAY_CONTAINS(ARRAY[1, 2], x), IFNULL(x, 0), GREATEST(x, 3), LEAST(x, 1) FROM (VALUES (1)) v (x)",
		"SELECT TO_DATE(s), TO_DATE(s, 'yyyy-MM-dd'), CONVERT_TZ(s, 'UTC', 'PST') FROM (VALUES ('2024-01-01')) v (s)",
		"SELECT PI(), E(), LOG(2, 8), LN(2), SIGN(-1), REPEAT('a', 2), REVERSE('ab'), INITCAP('ab cd') FROM (VALUES (1)) v (x)",
		"SELECT MAP_KEYS(MAP['a', 1]), STR_TO_MAP('a=1')['a'], SPLIT('a,b', ',')[1], ARRAY_JOIN(SPLIT('a,b', ','), '-') FROM (VALUES (1)) v (x)",
		"SELECT SHA2('a', 256), TO_BASE64('a'), URL_ENCODE('a b'), REGEXP('ab', 'b'), LOCATE('b', 'ab'), INSTR('ab', 'b'), CHR(65), ASCII('a'), CHARACTER_LENGTH('ab') FROM (VALUES (1)) v (x)",
		"SELECT ARRAY_SORT(ARRAY[2, 1]), ARRAY_SLICE(ARRAY[1, 2, 3], 1, 2), MAP_ENTRIES(MAP['a', 1]), MAP_UNION(MAP['a', 1], MAP['b', 2]), ARRAY_APPEND(ARRAY[1], 2) FROM (VALUES (1)) v (x)",
	} {
		_, err := Compile(context.Background(), "q.sql", q, Options{Registry: factory.NewRegistry()})
		if err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	// The same path refuses a function that is not in the library.
	_, err := Compile(context.Background(), "q.sql", "SELECT NO_SUCH_FN(x) FROM (VALUES (1)) v (x)", Options{Registry: factory.NewRegistry()})
	if err == nil || !strings.Contains(err.Error(), "NO_SUCH_FN") {
		t.Errorf("an unknown function: got %v, want an error naming it", err)
	}
}
