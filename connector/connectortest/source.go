package connectortest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// SourceHarness describes a source under test.
type SourceHarness struct {
	// Input makes rows the whole input of a fresh source (writes the
	// files, produces the records) and returns a function that creates a
	// Source reading that input. The suite calls Input once per check and
	// the returned function once per simulated run of a job: a reader
	// restored from a snapshot belongs to a new Source, as after a
	// restart. Required.
	Input func(t testing.TB, rows []types.Row) func() (connector.Source, error)
	// Rows returns n distinct rows to use as input; nil means Rows.
	Rows func(n int) []types.Row
	// N is the number of input rows; 0 means DefaultRows.
	N int
	// Key is the key rows are compared by; nil means RowKey. A source
	// whose rows differ from its input in a known way (a row kind it
	// sets) can ignore that part.
	Key func(types.Row) string
	// Seed seeds the choice of interruption points; 0 picks one, which is
	// logged so that a failure can be repeated.
	Seed uint64
	// Columns are the columns the table declares, which every row the
	// source returns must hold in order, each as its type's values are
	// held (connector.CheckRow; the runtime checks a reader's first batch
	// the same way). nil means Fields() when Rows is the default, else no
	// check.
	Columns []types.Field
}

func (h *SourceHarness) defaults() {
	if h.Rows == nil {
		h.Rows = Rows
		if h.Columns == nil {
			h.Columns = Fields()
		}
	}
	if h.N <= 0 {
		h.N = DefaultRows
	}
	if h.Key == nil {
		h.Key = RowKey
	}
}

// RunSource runs SourceChecks(h) as subtests of t.
func RunSource(t *testing.T, h SourceHarness) {
	t.Helper()
	run(t, SourceChecks(h))
}

// SourceChecks returns the checks of the Reader contract for the source
// that h describes:
//
//   - ReadAll: one reader of all splits returns every input row once, and
//     then io.EOF (bounded) or nothing (unbounded); the rows it returned
//     are not modified afterwards, and each holds the declared columns
//     (SourceHarness.Columns).
//   - InterruptedRead: Reads whose context is cancelled before or during
//     the call, mixed with Snapshots, lose and repeat no row, and an
//     interrupted Read returns no rows.
//   - SnapshotResume: a reader opened (by a new Source) from a Snapshot
//     taken at the start, at points in the middle and at the end reads
//     exactly the rows not yet returned.
//   - SplitsAcrossReaders: readers of disjoint sets of the splits together
//     return every row once (skipped with a log line when there is one
//     split).
//   - Close: Close succeeds right after Open and after an interrupted
//     Read.
func SourceChecks(h SourceHarness) []Check {
	h.defaults()
	s := &sourceSuite{h: h}
	return []Check{
		{"ReadAll", s.readAll},
		{"InterruptedRead", s.interruptedRead},
		{"SnapshotResume", s.snapshotResume},
		{"SplitsAcrossReaders", s.splitsAcrossReaders},
		{"Close", s.close},
	}
}

type sourceSuite struct{ h SourceHarness }

// fixture is the input and source factory of one check.
type fixture struct {
	want      []string // keys of the input rows
	newSource func() (connector.Source, error)
	job       string
	bounded   bool
	splits    []connector.Split
}

func (s *sourceSuite) setup(t testing.TB, check string) *fixture {
	t.Helper()
	if s.h.Input == nil {
		t.Fatal("connectortest: SourceHarness.Input is required")
	}
	rows := s.h.Rows(s.h.N)
	f := &fixture{want: keys(rows, s.h.Key), job: uniqueJob(check)}
	f.newSource = s.h.Input(t, rows)
	if f.newSource == nil {
		t.Fatal("connectortest: SourceHarness.Input returned no source constructor")
	}
	src := s.source(t, f)
	f.bounded = src.Bounded()
	within(t, "Source.Splits", func() {
		var err error
		if f.splits, err = src.Splits(background); err != nil {
			t.Errorf("Splits: %v", err)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	if len(f.splits) == 0 {
		t.Fatalf("Splits returned no splits for an input of %d rows", len(rows))
	}
	return f
}

func (s *sourceSuite) source(t testing.TB, f *fixture) connector.Source {
	t.Helper()
	src, err := f.newSource()
	if err != nil {
		t.Fatalf("creating the source: %v", err)
	}
	if src == nil {
		t.Fatal("creating the source returned a nil Source")
	}
	return src
}

// open opens a reader of splits on src with the given states (nil: start
// from the options); it is closed when the test ends unless closed before.
func (s *sourceSuite) open(t testing.TB, f *fixture, src connector.Source, states []connector.SplitState) *reader {
	t.Helper()
	var r connector.Reader
	var err error
	within(t, "Source.Open", func() { r, err = src.Open(background, taskInfo(t, f.job, 0, 1), states) })
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if r == nil {
		t.Fatal("Open returned a nil Reader")
	}
	rd := &reader{r: r, key: s.h.Key}
	t.Cleanup(func() {
		if !rd.closed {
			_ = r.Close()
		}
	})
	return rd
}

func fresh(splits []connector.Split) []connector.SplitState {
	out := make([]connector.SplitState, len(splits))
	for i, sp := range splits {
		out[i] = connector.SplitState{ID: sp.ID}
	}
	return out
}

// reader wraps a Reader under test with what the suite learned from it.
type reader struct {
	r      connector.Reader
	key    func(types.Row) string
	got    snapshotRows
	eof    bool
	closed bool
}

// readOnce calls Read with ctx and records what it returned. It reports
// whether the call was interrupted (returned a context error).
func (rd *reader) readOnce(t testing.TB, ctx context.Context, bounded bool) (interrupted bool) {
	t.Helper()
	var rows []types.Row
	var err error
	within(t, "Read", func() { rows, err = rd.r.Read(ctx) })
	switch {
	case err == nil:
		rd.got.add(rows, rd.key)
	case errors.Is(err, io.EOF):
		if !bounded {
			t.Fatalf("Read returned io.EOF from a source whose Bounded() is false")
		}
		if len(rows) > 0 {
			t.Fatalf("Read returned %d rows with io.EOF; the runtime discards rows returned with an error", len(rows))
		}
		rd.eof = true
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		if len(rows) > 0 {
			t.Fatalf("interrupted Read returned %d rows with %v; the runtime discards rows returned with an error, so they are lost", len(rows), err)
		}
		return true
	default:
		t.Fatalf("Read: %v (context error: %v)", err, ctx.Err())
	}
	return false
}

// readRest reads until the reader has returned total rows in all, then
// for an unbounded source waits a little for rows that should not come;
// for a bounded source it reads until io.EOF.
func (rd *reader) readRest(t testing.TB, total int, bounded bool) {
	t.Helper()
	for !rd.eof && (bounded || len(rd.got.rows) < total) {
		before := len(rd.got.rows)
		ctx, cancel := context.WithTimeout(background, hangTimeout/2)
		interrupted := rd.readOnce(t, ctx, bounded)
		cancel()
		if interrupted {
			t.Fatalf("Read returned no rows for %v with %d of %d rows not yet read", hangTimeout/2, total-before, total)
		}
		if bounded && len(rd.got.rows) > 2*total+batchSlack {
			t.Fatalf("bounded reader returned %d rows and no io.EOF for an input of %d rows", len(rd.got.rows), total)
		}
	}
	if !bounded {
		rd.drain(t)
	}
}

// batchSlack lets a faulty bounded reader overshoot a little before the
// suite gives up on it (its rows are reported as extra).
const batchSlack = 1000

// drain reads an unbounded reader for a short while after it returned
// every input row: anything it returns is extra.
func (rd *reader) drain(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithDeadline(background, deadline)
		rd.readOnce(t, ctx, false)
		cancel()
	}
}

// snapshot calls Snapshot and checks that it names every assigned split.
func (rd *reader) snapshot(t testing.TB, id int64, assigned []connector.SplitState) []connector.SplitState {
	t.Helper()
	var states []connector.SplitState
	var err error
	within(t, "Snapshot", func() { states, err = rd.r.Snapshot(id) })
	if err != nil {
		t.Fatalf("Snapshot(%d): %v", id, err)
	}
	var got, want []string
	for _, st := range states {
		got = append(got, st.ID)
	}
	for _, st := range assigned {
		want = append(want, st.ID)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Snapshot(%d) describes splits %q; want the assigned splits %q", id, got, want)
	}
	return states
}

func (rd *reader) close(t testing.TB, when string) {
	t.Helper()
	var err error
	within(t, "Close "+when, func() { err = rd.r.Close() })
	rd.closed = true
	if err != nil {
		t.Errorf("Close %s: %v", when, err)
	}
}

// checkRows compares what rd returned with want and checks that the
// returned rows were not modified.
func (rd *reader) checkRows(t testing.TB, what string, want []string) {
	t.Helper()
	if d := diff(rd.got.keys, want); d != "" {
		t.Errorf("%s: %s", what, d)
	}
	if i := rd.got.modified(rd.key); i >= 0 {
		t.Errorf("%s: row %d was modified after Read returned it: %s, now %s", what, i, rd.got.keys[i], rd.key(rd.got.rows[i]))
	}
}

func (s *sourceSuite) readAll(t testing.TB) {
	f := s.setup(t, "ReadAll")
	rd := s.open(t, f, s.source(t, f), fresh(f.splits))
	rd.readRest(t, len(f.want), f.bounded)
	rd.checkRows(t, "one reader of all splits", f.want)
	if cols := s.h.Columns; cols != nil {
		for i, r := range rd.got.rows {
			if err := connector.CheckRow(r, cols); err != nil {
				t.Errorf("row %d (%s) does not hold the declared columns: %v", i, rd.got.keys[i], err)
				break
			}
		}
	}
	rd.close(t, "after reading everything")
}

// interruptions are the ways the suite interrupts a Read.
type interruption int

const (
	cancelledBefore interruption = iota // the context is done before Read
	cancelledDuring                     // the context ends during Read
	notInterrupted
)

func (s *sourceSuite) rng(t testing.TB) *rand.Rand {
	seed := s.h.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("interruption seed %d (SourceHarness.Seed repeats it)", seed)
	return rand.New(rand.NewPCG(seed, seed>>32))
}

// interruptedRead calls Read once in the given way.
func (rd *reader) interruptedRead(t testing.TB, how interruption, rng *rand.Rand, bounded bool) bool {
	t.Helper()
	var ctx context.Context
	var cancel context.CancelFunc
	switch how {
	case cancelledBefore:
		ctx, cancel = context.WithCancel(background)
		cancel()
	case cancelledDuring:
		// From a few microseconds to a few milliseconds: before, during
		// and after the reader's own waits.
		d := time.Duration(rng.Int64N(int64(3*time.Millisecond))) + time.Microsecond
		ctx, cancel = context.WithTimeout(background, d)
	default:
		ctx, cancel = context.WithTimeout(background, hangTimeout/2)
	}
	defer cancel()
	return rd.readOnce(t, ctx, bounded)
}

// done reports whether rd has returned everything it should.
func (rd *reader) done(total int, bounded bool) bool {
	if bounded {
		return rd.eof
	}
	return len(rd.got.rows) >= total
}

func (s *sourceSuite) interruptedRead(t testing.TB) {
	f := s.setup(t, "InterruptedRead")
	rng := s.rng(t)
	assigned := fresh(f.splits)
	rd := s.open(t, f, s.source(t, f), assigned)
	var reads, interrupted, checkpoint int64
	deadline := time.Now().Add(2 * hangTimeout)
	for !rd.done(len(f.want), f.bounded) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v, %d reads interrupted, the reader has returned %d of %d rows", 2*hangTimeout, interrupted, len(rd.got.rows), len(f.want))
		}
		// The first Reads are interrupted whatever the seed says, so
		// that even a source that returns everything at once is
		// interrupted before and during a Read.
		how := interruption(rng.IntN(3))
		if reads < 2 {
			how = interruption(reads)
		}
		reads++
		if rd.interruptedRead(t, how, rng, f.bounded) {
			interrupted++
			// The runtime snapshots after most interruptions: it
			// interrupts to inject a barrier.
			if rng.IntN(2) == 0 {
				checkpoint++
				rd.snapshot(t, checkpoint, assigned)
			}
		}
	}
	if !f.bounded {
		rd.drain(t)
	}
	t.Logf("%d of %d reads interrupted, %d snapshots", interrupted, reads, checkpoint)
	rd.checkRows(t, "reads interrupted at random points", f.want)
	rd.close(t, "after interrupted reads")
}

// resume opens a new Source, as a restarted job would, and a reader of
// every split restored from states; it checks that the reader returns
// exactly the rows of want that are not in returned.
func (s *sourceSuite) resume(t testing.TB, f *fixture, states []connector.SplitState, returned []string, what string) {
	t.Helper()
	src := s.source(t, f)
	var splits []connector.Split
	within(t, "Source.Splits", func() {
		var err error
		if splits, err = src.Splits(background); err != nil {
			t.Errorf("Splits of a restarted source: %v", err)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	byID := map[string][]byte{}
	for _, st := range states {
		byID[st.ID] = st.State
	}
	restored := make([]connector.SplitState, len(splits))
	for i, sp := range splits {
		restored[i] = connector.SplitState{ID: sp.ID, State: byID[sp.ID]}
	}
	rd := s.open(t, f, src, restored)
	rest := remove(f.want, returned)
	rd.readRest(t, len(rest), f.bounded)
	if d := diff(append(slices.Clone(returned), rd.got.keys...), f.want); d != "" {
		t.Errorf("rows returned before a snapshot %s, plus the rows of a reader restored from it: %s", what, d)
	}
	rd.close(t, "of a restored reader")
}

// remove returns want without one occurrence of each key of got.
func remove(want, got []string) []string {
	count := map[string]int{}
	for _, k := range got {
		count[k]++
	}
	var out []string
	for _, k := range want {
		if count[k] > 0 {
			count[k]--
			continue
		}
		out = append(out, k)
	}
	return out
}

func (s *sourceSuite) snapshotResume(t testing.TB) {
	f := s.setup(t, "SnapshotResume")
	rng := s.rng(t)
	assigned := fresh(f.splits)
	rd := s.open(t, f, s.source(t, f), assigned)
	checkpoint := int64(1)
	s.resume(t, f, rd.snapshot(t, checkpoint, assigned), nil, "taken before the first Read")

	// Snapshots after the first Read that passes each mark, some after an
	// interrupted Read, some after one that returned rows.
	marks := []int{1, len(f.want) / 3, 2 * len(f.want) / 3}
	deadline := time.Now().Add(2 * hangTimeout)
	for !rd.done(len(f.want), f.bounded) {
		if time.Now().After(deadline) {
			t.Fatalf("after %v the reader has returned %d of %d rows", 2*hangTimeout, len(rd.got.rows), len(f.want))
		}
		rd.interruptedRead(t, interruption(rng.IntN(3)), rng, f.bounded)
		if len(marks) > 0 && len(rd.got.rows) >= marks[0] {
			for len(marks) > 0 && len(rd.got.rows) >= marks[0] {
				marks = marks[1:]
			}
			checkpoint++
			s.resume(t, f, rd.snapshot(t, checkpoint, assigned), slices.Clone(rd.got.keys),
				fmt.Sprintf("taken after %d of %d rows", len(rd.got.rows), len(f.want)))
		}
	}
	if !f.bounded {
		rd.drain(t)
	}
	rd.checkRows(t, "the reader that was snapshotted", f.want)
	checkpoint++
	s.resume(t, f, rd.snapshot(t, checkpoint, assigned), slices.Clone(rd.got.keys), "taken after the last row")
	rd.close(t, "after snapshots")
}

func (s *sourceSuite) splitsAcrossReaders(t testing.TB) {
	f := s.setup(t, "SplitsAcrossReaders")
	if len(f.splits) < 2 {
		t.Logf("the source has %d split; nothing to divide", len(f.splits))
		return
	}
	src := s.source(t, f)
	var even, odd []connector.Split
	for i, sp := range f.splits {
		if i%2 == 0 {
			even = append(even, sp)
		} else {
			odd = append(odd, sp)
		}
	}
	readers := []*reader{s.open(t, f, src, fresh(even)), s.open(t, f, src, fresh(odd))}
	total := func() int { return len(readers[0].got.rows) + len(readers[1].got.rows) }
	deadline := time.Now().Add(2 * hangTimeout)
	for {
		if f.bounded && readers[0].eof && readers[1].eof || !f.bounded && total() >= len(f.want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the readers have returned %d of %d rows", 2*hangTimeout, total(), len(f.want))
		}
		// Take turns, each Read bounded by a short wait: either reader
		// may have nothing to read.
		for _, rd := range readers {
			if rd.eof {
				continue
			}
			ctx, cancel := context.WithTimeout(background, 200*time.Millisecond)
			rd.readOnce(t, ctx, f.bounded)
			cancel()
		}
	}
	got := append(slices.Clone(readers[0].got.keys), readers[1].got.keys...)
	if !f.bounded {
		for _, rd := range readers {
			before := len(rd.got.keys)
			rd.drain(t)
			got = append(got, rd.got.keys[before:]...)
		}
	}
	if d := diff(got, f.want); d != "" {
		t.Errorf("readers of %d and %d of the %d splits: %s", len(even), len(odd), len(f.splits), d)
	}
	for _, rd := range readers {
		rd.close(t, "of a reader of some splits")
	}
}

func (s *sourceSuite) close(t testing.TB) {
	f := s.setup(t, "Close")
	src := s.source(t, f)
	s.open(t, f, src, fresh(f.splits)).close(t, "right after Open")
	rd := s.open(t, f, src, fresh(f.splits))
	rd.interruptedRead(t, cancelledBefore, nil, f.bounded)
	rd.close(t, "after a Read with a cancelled context")
	rd = s.open(t, f, src, fresh(f.splits))
	rng := rand.New(rand.NewPCG(1, 2))
	rd.interruptedRead(t, cancelledDuring, rng, f.bounded)
	rd.close(t, "after a Read interrupted by its context's deadline")
}
