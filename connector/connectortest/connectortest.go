// Package connectortest is a conformance suite for connectors: it checks
// that a Source and its Readers, and a Sink with its Writers and Committer,
// keep the contract of package connector, whatever they connect to. The
// built-in connectors run it, and so can an embedder's own connector, from
// an ordinary test:
//
//	func TestConformance(t *testing.T) {
//		connectortest.RunSource(t, connectortest.SourceHarness{Input: myInput})
//		connectortest.RunSink(t, connectortest.SinkHarness{New: myDestination})
//	}
//
// Start with SourceHarness and SinkHarness: the caller describes how to
// give a source its input and how to read back what a sink committed; the
// suite does the rest. RunSource and RunSink run every check as a subtest;
// SourceChecks and SinkChecks return the checks for callers that run them
// another way.
//
// # What is checked
//
// Readers (SourceChecks):
//   - every input row is read exactly once, by one reader of all splits
//     and by readers of disjoint sets of splits;
//   - a Read interrupted by cancelling its context, at arbitrary points,
//     loses and repeats nothing, and returns no rows with its error (the
//     runtime discards them);
//   - Snapshot describes the position after the last row returned: a new
//     run restored from it reads exactly the rest, at the start, in the
//     middle and at the end of the input;
//   - rows are not modified after Read returned them;
//   - Close succeeds after Open, after an interrupted Read and at the end.
//
// Writers and committers (SinkChecks):
//   - written rows are in the committed output once each, after PreCommit
//     (and Commit, for a TwoPhaseSink); a plain sink returns no
//     committables;
//   - PreCommit with nothing written succeeds and adds nothing;
//   - pre-committed work is invisible until Commit, and work that was
//     never pre-committed is discarded by Close;
//   - Commit is idempotent; Commit after Recover of the same committable
//     succeeds; Recover of the same committables in two runs commits them
//     once; Recover with no pending committables discards what an earlier
//     run left open; Abort of aborted or unknown work succeeds;
//   - when the destination fails, Write or PreCommit report it (with the
//     harness's Break);
//   - Rows are not modified by Write.
//
// Rows are compared as multisets (order is not checked: readers of several
// splits interleave them) by a key, by default the row kind and fields as
// fmt prints them.
package connectortest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// DefaultRows is the number of input rows when a harness sets none.
const DefaultRows = 200

// hangTimeout bounds every blocking call of the connector under test: a
// call that takes longer is reported as a hang. It is far above what any
// call needs on a loaded machine.
const hangTimeout = 60 * time.Second

// Check is one named check of a contract. Run fails t when the connector
// breaks the contract.
type Check struct {
	Name string
	Run  func(t testing.TB)
}

// Fields are the fields of the rows Rows makes: id BIGINT and name
// STRING. Connectors created through a factory can use them as the table's
// schema (factory.PhysicalSchema(connectortest.Fields())).
func Fields() []types.Field {
	return []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}}
}

// Rows returns n insert rows of Fields: row i is (i, "i"). They are the
// default input of the checks; a datagen source with sequence fields from
// 0 produces the same rows.
func Rows(n int) []types.Row {
	out := make([]types.Row, n)
	for i := range out {
		out[i] = types.Row{Fields: []types.Value{types.Int64(int64(i)), types.Str(strconv.Itoa(i))}}
	}
	return out
}

// RowKey is the default key by which rows are compared: the row kind and
// the fields as fmt prints them. It suits rows of scalar values; rows with
// nested values (arrays, maps) need a key of their own.
func RowKey(r types.Row) string {
	var b strings.Builder
	b.WriteString(r.Kind.String())
	for _, f := range r.Fields {
		fmt.Fprintf(&b, "|%v", f)
	}
	return b.String()
}

// keys returns the keys of rows.
func keys(rows []types.Row, key func(types.Row) string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = key(r)
	}
	return out
}

// diff compares two multisets of keys and describes the difference, or
// returns "" when they are equal.
func diff(got, want []string) string {
	count := map[string]int{}
	for _, k := range want {
		count[k]++
	}
	for _, k := range got {
		count[k]--
	}
	var missing, extra []string
	for k, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, k)
		}
		for ; n < 0; n++ {
			extra = append(extra, k)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return fmt.Sprintf("got %d rows, want %d: %d missing %s, %d extra or repeated %s",
		len(got), len(want), len(missing), abbreviate(missing), len(extra), abbreviate(extra))
}

func abbreviate(s []string) string {
	if len(s) > 5 {
		return fmt.Sprintf("%q and %d more", s[:5], len(s)-5)
	}
	return fmt.Sprintf("%q", s)
}

// snapshotRows remembers the keys of rows as they were returned, to check
// later that nobody modified them.
type snapshotRows struct {
	rows []types.Row
	keys []string
}

func (s *snapshotRows) add(rows []types.Row, key func(types.Row) string) {
	s.rows = append(s.rows, rows...)
	s.keys = append(s.keys, keys(rows, key)...)
}

// modified returns the index of the first row whose key changed, or -1.
func (s *snapshotRows) modified(key func(types.Row) string) int {
	for i, r := range s.rows {
		if key(r) != s.keys[i] {
			return i
		}
	}
	return -1
}

// within runs fn and fails t if it does not return within hangTimeout. On
// a hang the goroutine is left behind: the connector under test owns it.
func within(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(hangTimeout):
		t.Fatalf("%s did not return within %v", what, hangTimeout)
	}
}

// jobCounter makes job names unique within the process.
var jobCounter atomic.Int64

// uniqueJob returns a job name for one check: sinks that derive resource
// names (transactional ids, file names) from it get their own.
func uniqueJob(check string) string {
	return fmt.Sprintf("connectortest-%s-%d-%d", strings.ToLower(check), time.Now().UnixNano()%1_000_000_000, jobCounter.Add(1))
}

// tableName is the TaskInfo.Table of readers and writers of the suite.
const tableName = "connectortest"

// testLogger returns a logger that writes to t until the test ends, then
// discards: connectors may log from goroutines that outlive a check.
func testLogger(t testing.TB) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(w.stop)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct {
	mu      sync.Mutex
	t       testing.TB
	stopped bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.t.Log(strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

func (w *testWriter) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}

var _ io.Writer = (*testWriter)(nil)

// background is the context of calls that the suite does not interrupt;
// within bounds them.
var background = context.Background()

// run runs checks as subtests of t.
func run(t *testing.T, checks []Check) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.Name, func(t *testing.T) { c.Run(t) })
	}
}

// errorString formats an error for a failure message, "<nil>" for nil.
func errorString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// taskInfo is the TaskInfo of the suite's readers and writers.
func taskInfo(t testing.TB, job string, index, parallelism int) connector.TaskInfo {
	return connector.TaskInfo{Job: job, Table: tableName, Index: index, Parallelism: parallelism, Logger: testLogger(t)}
}
