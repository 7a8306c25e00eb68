package ddl

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestErrorGolden")

// TestErrorGolden parses each testdata/errors/*.sql, which must fail, and
// compares the full error text (position, message, excerpt and caret) with
// the .golden file beside it. Run with -update to rewrite the golden files
// after a deliberate change of wording, and review the diff.
func TestErrorGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/errors/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no error cases found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, perr := Parse(filepath.Base(f), string(src), Config{})
			var pe *Error
			if !errors.As(perr, &pe) {
				t.Fatalf("Parse succeeded or gave %T (%v); every file in testdata/errors must fail with *Error", perr, perr)
			}
			got := perr.Error() + "\n"
			golden := strings.TrimSuffix(f, ".sql") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestErrorGolden -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("error text differs from %s\n got:\n%s\n want:\n%s", golden, got, want)
			}
		})
	}
}
