package connectortest_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connector/connectortest"
)

// recorder is a testing.TB that records failures instead of failing the
// test, so that the suite's own tests can check that a check fails. The
// embedded TB (the real test) serves what the recorder does not override.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	failed   bool
	messages []string
	cleanups []func()
}

func (r *recorder) Helper() {}

func (r *recorder) Log(args ...any)                 { r.TB.Log(args...) }
func (r *recorder) Logf(format string, args ...any) { r.TB.Logf(format, args...) }

func (r *recorder) Error(args ...any) {
	r.record(fmt.Sprint(args...))
}

func (r *recorder) Errorf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...))
}

func (r *recorder) Fatal(args ...any) {
	r.record(fmt.Sprint(args...))
	r.FailNow()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...))
	r.FailNow()
}

func (r *recorder) record(msg string) {
	r.mu.Lock()
	r.messages = append(r.messages, msg)
	r.failed = true
	r.mu.Unlock()
}

func (r *recorder) Fail() {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
}

// FailNow stops the check's goroutine, as testing.T's does.
func (r *recorder) FailNow() {
	r.Fail()
	runtime.Goexit()
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	r.cleanups = append(r.cleanups, f)
	r.mu.Unlock()
}

// runCheck runs c with a recorder in a goroutine of its own (FailNow ends
// it), then the check's cleanups, and returns the recorder.
func runCheck(t *testing.T, c connectortest.Check) *recorder {
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(rec)
	}()
	<-done
	for i := len(rec.cleanups) - 1; i >= 0; i-- {
		rec.cleanups[i]()
	}
	return rec
}

// failures runs checks and returns the failure messages of each check
// that failed, by name.
func failures(t *testing.T, checks []connectortest.Check) map[string][]string {
	out := map[string][]string{}
	for _, c := range checks {
		if rec := runCheck(t, c); rec.Failed() {
			out[c.Name] = rec.messages
		}
	}
	return out
}

// expectFailure checks that check failed with a message containing want,
// and logs every failure.
func expectFailure(t *testing.T, got map[string][]string, check, want string) {
	t.Helper()
	names := make([]string, 0, len(got))
	for name, msgs := range got {
		names = append(names, name)
		t.Logf("%s failed: %q", name, msgs)
	}
	slices.Sort(names)
	msgs, ok := got[check]
	if !ok {
		t.Fatalf("check %s passed; want it to fail (failed: %q)", check, names)
	}
	for _, m := range msgs {
		if strings.Contains(m, want) {
			return
		}
	}
	t.Fatalf("check %s failed with %q; want a message containing %q", check, msgs, want)
}

func TestRecorderPassesCorrectConnector(t *testing.T) {
	if got := failures(t, connectortest.SourceChecks(memSourceHarness(sourceFaults{}))); len(got) > 0 {
		t.Fatalf("source checks failed on the correct connector: %q", got)
	}
	if got := failures(t, connectortest.SinkChecks(memSinkHarness(sinkFaults{}))); len(got) > 0 {
		t.Fatalf("sink checks failed on the correct connector: %q", got)
	}
}

// TestSuiteCatchesBrokenReaders breaks the memory source's reader in one
// way at a time and checks that the check for that part of the contract
// fails.
func TestSuiteCatchesBrokenReaders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults sourceFaults
		check  string
		want   string
	}{
		{"interrupted Read drops fetched rows", sourceFaults{dropOnInterrupt: true}, "InterruptedRead", "missing"},
		{"interrupted Read returns rows with its error", sourceFaults{rowsWithError: true}, "InterruptedRead", "the runtime discards rows returned with an error"},
		{"Snapshot describes fetched rows", sourceFaults{snapshotFetched: true}, "SnapshotResume", "plus the rows of a reader restored from it"},
		{"Read reuses returned rows", sourceFaults{reuseRows: true}, "ReadAll", "was modified after Read returned it"},
		{"rows hold the columns in another order", sourceFaults{swapColumns: true}, "ReadAll",
			"does not hold the declared columns: column 1 'id' is declared BIGINT, but the row holds a string there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := memSourceHarness(tc.faults)
			h.Seed = 1
			expectFailure(t, failures(t, connectortest.SourceChecks(h)), tc.check, tc.want)
		})
	}
}

// TestSuiteCatchesBrokenCommitters breaks the memory sink in one way at a
// time and checks that the check for that part of the contract fails.
func TestSuiteCatchesBrokenCommitters(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults sinkFaults
		check  string
		want   string
	}{
		{"Commit is not idempotent", sinkFaults{commitTwice: true}, "WriteCommit", "after a second Commit"},
		{"Abort of unknown work fails", sinkFaults{abortUnknown: true}, "Abort", "Abort of committable 1 of 1 (work already aborted)"},
		{"second Recover fails", sinkFaults{recoverFails: true}, "RecoverTwice", "Recover of 1 pending committables"},
		{"Recover after Commit fails", sinkFaults{recoverFails: true}, "CommitAfterRecover", "Recover of 1 pending committables"},
		{"Recover commits leftovers", sinkFaults{recoverAll: true}, "RecoverAbortsLeftovers", "after Recover with no pending committables"},
		{"pre-committed work visible", sinkFaults{visibleAtWrite: true}, "WriteCommit", "pre-committed work must not be visible"},
		{"write failure swallowed", sinkFaults{swallowErrors: true}, "WriteFailure", "Write and PreCommit succeeded"},
		{"Close keeps work not pre-committed", sinkFaults{visibleOnClose: true}, "Close", "rows were not pre-committed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectFailure(t, failures(t, connectortest.SinkChecks(memSinkHarness(tc.faults))), tc.check, tc.want)
		})
	}
}
