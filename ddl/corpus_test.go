package ddl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var expectUnsupported = regexp.MustCompile(`(?m)^-- expect-unsupported: (.*)$`)

// expectPlannerUnsupported matches the marker of an example that parses
// but that the planner refuses.
var expectPlannerUnsupported = regexp.MustCompile(`(?m)^-- expect-planner-unsupported: (.*)$`)

// TestFlinkDocsCorpus parses the examples from Flink's documentation in
// testdata/flink-docs (see README.txt there): each example parses, or fails
// with ErrUnsupported naming the construct when it is marked so.
func TestFlinkDocsCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/flink-docs/*.sql")
	if err != nil || len(files) < 8 {
		t.Fatalf("corpus missing: %v (%d files)", err, len(files))
	}
	parsed, unsupported, plannerRefused := 0, 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, ex := range strings.Split(string(src), "\n-- ====") {
			name := fmt.Sprintf("%s#%d", filepath.Base(f), i)
			stmts, err := Parse(name, ex, Config{})
			if m := expectUnsupported.FindStringSubmatch(ex); m != nil {
				var pe *Error
				if !errors.As(err, &pe) || !errors.Is(err, ErrUnsupported) || !strings.Contains(pe.Message, m[1]) || !strings.Contains(pe.Message, "not supported yet") {
					t.Errorf("%s: want a not-supported error naming %q, got %v", name, m[1], err)
					continue
				}
				unsupported++
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if expectPlannerUnsupported.MatchString(ex) {
				plannerRefused++
			}
			if len(stmts) == 0 {
				t.Errorf("%s: no statements", name)
			}
			parsed += len(stmts)
		}
	}
	t.Logf("%d statements parsed (%d examples the planner refuses), %d examples rejected as not supported yet", parsed, plannerRefused, unsupported)
}
