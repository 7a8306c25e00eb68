package planner_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/planner"
)

// nexmarkVars are values for the ${NAME} variables of the Nexmark files.
var nexmarkVars = map[string]string{
	"BOOTSTRAP_SERVERS": "127.0.0.1:9092", "NEXMARK_TABLE": "kafka", "NEXMARK_DIR": "/tmp/nexmark",
	"SUBMIT_TIME": "0", "FLINK_HOME": "/tmp/flink",
}

// TestNexmark plans the 24 public Nexmark queries (ddl/testdata/nexmark)
// against their Kafka table and views, as a user runs them, and records
// in testdata/nexmark.golden each one's plan or errors. Every query must
// parse: a construct streamsql cannot run yet is refused by the planner,
// at its position, never by the parser. q6, which is not valid SQL, is
// also planned as corrected (ddl/testdata/nexmark-corrected).
func TestNexmark(t *testing.T) {
	ctx := context.Background()
	dir := "../ddl/testdata/nexmark"
	var defs strings.Builder
	for _, f := range []string{"ddl_kafka.sql", "ddl_views.sql"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		defs.Write(b)
		defs.WriteString(";\n")
	}
	opts := planner.Options{Registry: testRegistry(), Vars: nexmarkVars}
	cat, err := planner.LoadCatalog(ctx, "nexmark_defs.sql", defs.String(), opts)
	if err != nil {
		t.Fatalf("the Nexmark table and views do not plan: %v", err)
	}
	var out strings.Builder
	planned := 0
	for n := range 24 {
		name := fmt.Sprintf("q%d.sql", n)
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		opts.Catalog = cat.Clone()
		fmt.Fprintf(&out, "==== %s\n", name)
		p, err := planner.Compile(ctx, name, string(b), opts)
		if err == nil {
			planned++
			out.WriteString(p.String())
			continue
		}
		for _, e := range planner.Errors(err) {
			var de *ddl.Error
			if errors.As(e, &de) {
				t.Errorf("%s does not parse: %v", name, e)
			}
		}
		fmt.Fprintf(&out, "ERRORS\n%v\n", err)
	}
	fmt.Fprintf(&out, "==== %d of 24 queries plan\n", planned)
	// q6 as corrected (the public file is not valid SQL): an OVER over
	// the updates of a Top-1, which Flink cannot run.
	b, err := os.ReadFile(filepath.Join("..", "ddl", "testdata", "nexmark-corrected", "q6.sql"))
	if err != nil {
		t.Fatal(err)
	}
	opts.Catalog = cat.Clone()
	p, err := planner.Compile(ctx, "q6.sql", string(b), opts)
	if err != nil {
		t.Errorf("the corrected q6 does not plan: %v", err)
	} else {
		fmt.Fprintf(&out, "==== q6.sql corrected (ddl/testdata/nexmark-corrected)\n%s", p.String())
	}
	checkGolden(t, filepath.Join("testdata", "nexmark.golden"), out.String())
}
