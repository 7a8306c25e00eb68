package job_test

import (
	"slices"
	"strings"
	"testing"
)

// TestPlacedRowsSameTable: queries whose join takes its rows forward to
// the operator after it (a GROUP BY of the join's left key after an INNER,
// LEFT or SEMI join) leave the same table at parallelism 3 as at 1; so
// does a RIGHT JOIN grouped by the left key, whose padded rows (a NULL
// key) must meet in one task and so are hashed.
func TestPlacedRowsSameTable(t *testing.T) {
	dir, _ := flinkCaseFiles(t)
	const tables = `CREATE TABLE events (
  k STRING, v BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING, ts TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/events', 'format' = 'json');
CREATE TABLE dims (
  k STRING, name STRING, lvl INT, ts TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/data/dims', 'format' = 'json');
`
	for _, c := range []struct{ name, query string }{
		{"inner", "SELECT e.k, COUNT(*) AS n, SUM(e.v) AS v, MAX(d.lvl) AS lvl FROM events e JOIN dims d ON e.k = d.k GROUP BY e.k"},
		{"left", "SELECT e.k, COUNT(*) AS n, COUNT(d.name) AS names FROM events e LEFT JOIN dims d ON e.k = d.k GROUP BY e.k"},
		{"semi", "SELECT k, COUNT(*) AS n FROM events WHERE k IN (SELECT k FROM dims) GROUP BY k"},
		{"right", "SELECT e.k, COUNT(*) AS n, COUNT(d.name) AS names FROM events e RIGHT JOIN dims d ON e.k = d.k GROUP BY e.k"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := tables + c.query + ";"
			var tabs [2][]string
			for i, par := range []string{"1", "3"} {
				got, err := final(runCase(t, "placed_"+c.name, text, dir, map[string]string{"parallelism.default": par}))
				if err != nil {
					t.Fatalf("parallelism %s: %v", par, err)
				}
				tabs[i] = got
			}
			if len(tabs[0]) == 0 {
				t.Fatal("no rows")
			}
			if !slices.Equal(tabs[0], tabs[1]) {
				t.Errorf("at parallelism 3:\n%s\nat 1:\n%s", strings.Join(tabs[1], "\n"), strings.Join(tabs[0], "\n"))
			}
		})
	}
}
