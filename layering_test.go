package streamsql_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the module path; the rules below name packages relative to it.
const module = "github.com/streamsql/streamsql"

// floors lists the packages of each floor of the layering README's Layout
// section describes, lowest first, by path prefix (a prefix names the
// package and every package under it; the longest matching prefix wins).
// A package imports only packages on lower floors, or on its own floor
// where sideways says so.
var floors = [][]string{
	// 0: the value model every package shares.
	{"types"},
	// 1: leaf algorithms.
	{"internal"},
	// 2: the contracts (connectors, options, keyed state).
	{"connector", "option", "state"},
	// 3: SQL text, declarations, the operator contract, checkpoint files,
	// expressions, a job's runtime settings.
	{"ddl", "factory", "stream", "runtime/checkpoint", "planner/expr", "jobconfig"},
	// 4: the implementations, which do not know each other.
	{"formats", "connectors", "runtime", "state/heap", "state/lsm", "ops"},
	// 5: the planner (which configures the operators of ops) and the
	// registration of every built-in connector and format.
	{"planner", "connectors/all"},
	// 6: the composition root and its HTTP server.
	{"job"},
	// 7: programs.
	{"cmd", "tools", "examples", "scripts"},
}

// rigs are packages for tests: no product package imports them. They may
// import anything.
var rigs = []string{
	"internal/testrig",
	"connector/connectortest",
	"runtime/testkit",
	"runtime/checkpoint/storagetest",
	"state/statetest",
	"stream/streamtest",
	"ops/internal/opstest",
	"formats/internal/formattest",
	"formats/internal/flinkgolden",
}

// sideways lists the imports allowed within one floor, as importer prefix
// → imported prefix.
var sideways = [][2]string{
	{"formats", "formats"},                       // the registration of all formats; cdc uses json, avroconfluent avro; formats/internal
	{"connectors", "connectors/internal"},        // what several connectors share
	{"connectors/kafka", "connectors/kafka"},     // kafka's own internal packages
	{"connectors/nexmark", "connectors/nexmark"}, // the Kafka load step of the nexmark events
	{"job", "job"},                               // job/jobhttp and its internal server
	{"cmd/streamsql", "cmd/streamsql/internal"},  // the CLI's own pieces
	{"internal", "internal"},                     // one leaf algorithm using another
	{"runtime/checkpoint", "runtime/checkpoint"}, // s3store implements checkpoint.Storage
	{"ops", "ops"},                               // the window operator uses the aggregates' accumulators
}

// forbidden lists imports ruled out whatever the floors say, as importer
// prefix → imported prefix.
var forbidden = [][2]string{
	{"planner", "runtime"}, // the planner returns a plan; job builds the runtime graph from it
}

// pending lists the arrows these rules forbid that are known and being
// removed, with the work that removes them. The test fails once one is
// gone, so that the list only shrinks.
var pending = map[[2]string]string{}

// pkg is the part of `go list -json` the test reads.
type pkg struct {
	ImportPath string
	Imports    []string
}

// TestLayering checks the layering README's Layout section states: no
// package imports one on a floor above it, the implementations on floor 4
// (formats, connectors, runtime, planner) and the connectors among
// themselves import each other only where sideways allows, no import is
// forbidden, and no product
// package imports a test rig. Only the packages' own (non-test) imports
// count: a test may import what it needs to run its subject for real.
func TestLayering(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list imports: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-json=ImportPath,Imports", "./...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages; expected the whole module", len(pkgs))
	}
	seen := map[[2]string]bool{}
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		ff, known := floorOf(from)
		if !known && !isRig(from) {
			t.Errorf("%s is on no floor: add it to floors (and README's Layout table)", from)
			continue
		}
		for _, imp := range p.Imports {
			to, ok := rel(imp)
			if !ok {
				continue
			}
			if isRig(to) {
				if !isRig(from) {
					t.Errorf("%s imports the test rig %s", from, to)
				}
				continue
			}
			if isRig(from) {
				continue
			}
			tf, known := floorOf(to)
			if !known {
				continue // reported as its own package
			}
			if (tf < ff || (tf == ff && allowedSideways(from, to))) && !isForbidden(from, to) {
				continue
			}
			if why, ok := pending[[2]string{from, to}]; ok {
				seen[[2]string{from, to}] = true
				t.Logf("known: %s imports %s (%s)", from, to, why)
				continue
			}
			t.Errorf("%s (floor %d) imports %s (floor %d): an arrow back up, sideways or forbidden", from, ff, to, tf)
		}
	}
	for arrow, why := range pending {
		if !seen[arrow] {
			t.Errorf("%s no longer imports %s: remove the pending entry (%s)", arrow[0], arrow[1], why)
		}
	}
}

// rel returns path relative to the module, and false for packages outside it.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// under reports whether pkg is prefix or a package below it.
func under(pkg, prefix string) bool {
	return pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}

// floorOf returns the floor of the longest prefix that names pkg.
func floorOf(pkg string) (int, bool) {
	floor, best := 0, -1
	for f, prefixes := range floors {
		for _, p := range prefixes {
			if under(pkg, p) && len(p) > best {
				floor, best = f, len(p)
			}
		}
	}
	if pkg == "" { // the module root holds this test only
		return len(floors), true
	}
	return floor, best >= 0
}

func isRig(pkg string) bool {
	return slices.ContainsFunc(rigs, func(r string) bool { return under(pkg, r) })
}

func allowedSideways(from, to string) bool {
	for _, s := range sideways {
		if under(from, s[0]) && under(to, s[1]) {
			return true
		}
	}
	return false
}

func isForbidden(from, to string) bool {
	for _, f := range forbidden {
		if under(from, f[0]) && under(to, f[1]) {
			return true
		}
	}
	return false
}

// optional lists, for packages an embedder imports, the heavy dependencies
// they must not link: the on-disk state backend (pebble, with its error,
// metrics and protobuf packages) and the S3 client come only with the
// packages that register them (state/lsm, runtime/checkpoint/s3store,
// connectors/all), so that a program that does not use them does not pay
// for them in binary size and, since the kernel maps a binary's pages in
// large folios, in resident memory (BENCHMARKS.md, "Memory").
var optional = map[string][]string{
	"job":                  {"github.com/cockroachdb/pebble", "github.com/aws/aws-sdk-go-v2"},
	"connectors/kafka":     {"github.com/cockroachdb/pebble", "github.com/aws/aws-sdk-go-v2"},
	"formats":              {"github.com/cockroachdb/pebble", "github.com/aws/aws-sdk-go-v2"},
	"connectors/nexmark":   {"github.com/cockroachdb/pebble", "github.com/aws/aws-sdk-go-v2"},
	"connectors/blackhole": {"github.com/cockroachdb/pebble", "github.com/aws/aws-sdk-go-v2"},
}

// TestOptionalDependencies checks that the packages of optional link none
// of the module path prefixes listed for them.
func TestOptionalDependencies(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	for pkg, banned := range optional {
		out, err := exec.Command(gobin, "list", "-deps", module+"/"+pkg).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("go list -deps %s: %v\n%s", pkg, err, ee.Stderr)
			}
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s found %d packages; expected its dependencies", pkg, len(deps))
		}
		for _, b := range banned {
			for _, d := range deps {
				if under(d, b) || strings.HasPrefix(d, b+"/") {
					t.Errorf("%s links %s (through %s): import it only from the package that registers it", pkg, b, d)
					break
				}
			}
		}
	}
}
