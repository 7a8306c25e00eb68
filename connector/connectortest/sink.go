package connectortest

import (
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// SinkHarness describes a sink under test.
type SinkHarness struct {
	// New makes a fresh destination for one check (a directory, a topic)
	// and returns how to write to it and read it back. Required.
	New func(t testing.TB) SinkFixture
	// Rows returns n distinct rows to write; nil means Rows.
	Rows func(n int) []types.Row
	// N is the number of rows a check writes; 0 means DefaultRows.
	N int
	// Key is the key rows are compared by; nil means RowKey.
	Key func(types.Row) string
}

// SinkFixture is one destination of a sink under test.
type SinkFixture struct {
	// NewSink creates a Sink writing to the destination. Each call stands
	// for a new run of the job (a restarted process): the suite uses one
	// Sink per run, with its Committer and writers. Required.
	NewSink func() (connector.Sink, error)
	// Committed returns the rows a reader of the destination sees now:
	// for a TwoPhaseSink only committed work. A destination that is read
	// asynchronously may read until it has seen expect rows and, when it
	// has seen fewer, give up after a short wait (a second or two): the
	// suite asks for 0 rows where nothing may be visible. Nil when the
	// output cannot be read back (the checks then skip their output
	// comparisons).
	Committed func(t testing.TB, expect int) []types.Row
	// Break, if set, makes writing to the destination fail from now on
	// (the suite checks that Write or PreCommit reports it). Nil skips
	// that check.
	Break func(t testing.TB)
}

func (h *SinkHarness) defaults() {
	if h.Rows == nil {
		h.Rows = Rows
	}
	if h.N <= 0 {
		h.N = DefaultRows
	}
	if h.Key == nil {
		h.Key = RowKey
	}
}

// RunSink runs SinkChecks(h) as subtests of t.
func RunSink(t *testing.T, h SinkHarness) {
	t.Helper()
	run(t, SinkChecks(h))
}

// SinkChecks returns the checks of the Writer and Committer contracts for
// the sink that h describes. For every sink:
//
//   - WriteCommit: rows written in several batches are in the output once
//     each after PreCommit (a sink that is not a TwoPhaseSink returns no
//     committables) and, for a TwoPhaseSink, invisible until Commit, once
//     each after it, and still once each after every committable is
//     committed again. Write does not modify the rows.
//   - EmptyPreCommit: PreCommit with nothing written succeeds and adds
//     nothing, before and after a checkpoint with rows.
//   - TwoTasks: two writers of one sink write half of the rows each.
//   - WriteFailure (with SinkFixture.Break): a destination that fails
//     makes Write or PreCommit return an error.
//   - Close: Close succeeds right after Open; for a TwoPhaseSink, rows
//     written but not pre-committed are discarded by Close.
//
// For a TwoPhaseSink also:
//
//   - Abort: aborted work stays invisible; aborting it again succeeds, and
//     so does aborting it from the committer of a later run that never saw
//     it; the sink then still writes.
//   - RecoverTwice: committables pre-committed by a run that crashed
//     before committing, recovered by two later runs in turn, are
//     committed once; the sink then still writes.
//   - CommitAfterRecover: Commit, Recover and Commit again of the same
//     committables (the runtime's order on restore, then a retried
//     notification) commit them once.
//   - RecoverAbortsLeftovers: work an earlier run pre-committed that is in
//     no checkpoint is discarded by Recover with no pending committables,
//     and does not hold back what the new run commits.
func SinkChecks(h SinkHarness) []Check {
	h.defaults()
	s := &sinkSuite{h: h}
	return []Check{
		{"WriteCommit", s.writeCommit},
		{"EmptyPreCommit", s.emptyPreCommit},
		{"TwoTasks", s.twoTasks},
		{"WriteFailure", s.writeFailure},
		{"Close", s.close},
		{"Abort", s.abort},
		{"RecoverTwice", s.recoverTwice},
		{"CommitAfterRecover", s.commitAfterRecover},
		{"RecoverAbortsLeftovers", s.recoverAbortsLeftovers},
	}
}

type sinkSuite struct{ h SinkHarness }

// destination is the fixture of one check with the suite's state.
type destination struct {
	SinkFixture
	s          *sinkSuite
	job        string
	checkpoint int64 // the last checkpoint id used, across runs
}

func (s *sinkSuite) setup(t testing.TB, check string) *destination {
	t.Helper()
	if s.h.New == nil {
		t.Fatal("connectortest: SinkHarness.New is required")
	}
	fx := s.h.New(t)
	if fx.NewSink == nil {
		t.Fatal("connectortest: SinkFixture.NewSink is required")
	}
	return &destination{SinkFixture: fx, s: s, job: uniqueJob(check)}
}

// sinkRun is one run of the job: a Sink, its Committer (for a
// TwoPhaseSink, after Recover) and the tracker of commit acknowledgements
// given to its writers.
type sinkRun struct {
	d         *destination
	sink      connector.Sink
	committer connector.Committer // nil for a plain sink
	tracker   *tracker
	restored  int64
}

// start starts a run that restores pending from the last checkpoint (none
// for a first run).
func (d *destination) start(t testing.TB, pending []connector.Committable) *sinkRun {
	t.Helper()
	sink, err := d.NewSink()
	if err != nil {
		t.Fatalf("creating the sink: %v", err)
	}
	if sink == nil {
		t.Fatal("creating the sink returned a nil Sink")
	}
	r := &sinkRun{d: d, sink: sink, tracker: &tracker{}, restored: d.checkpoint}
	two, ok := sink.(connector.TwoPhaseSink)
	if !ok {
		return r
	}
	within(t, "TwoPhaseSink.Committer", func() { r.committer, err = two.Committer(background, d.job) })
	if err != nil {
		t.Fatalf("Committer: %v", err)
	}
	if r.committer == nil {
		t.Fatal("Committer returned a nil Committer")
	}
	t.Cleanup(func() { _ = r.committer.Close() })
	r.recover(t, pending)
	// Recover committed or discarded everything of earlier runs.
	r.tracker.setDurable(r.restored)
	return r
}

func (r *sinkRun) twoPhase() bool { return r.committer != nil }

func (r *sinkRun) recover(t testing.TB, pending []connector.Committable) {
	t.Helper()
	var err error
	within(t, "Recover", func() { err = r.committer.Recover(background, pending) })
	if err != nil {
		t.Fatalf("Recover of %d pending committables: %v", len(pending), err)
	}
}

// open opens the writer of task index of parallelism tasks.
func (r *sinkRun) open(t testing.TB, index, parallelism int) *writer {
	t.Helper()
	task := taskInfo(t, r.d.job, index, parallelism)
	task.Commits = r.tracker
	task.RestoredCheckpoint = r.restored
	var w connector.Writer
	var err error
	within(t, "Sink.Open", func() { w, err = r.sink.Open(background, task) })
	if err != nil {
		t.Fatalf("Open writer %d of %d: %v", index, parallelism, err)
	}
	if w == nil {
		t.Fatal("Open returned a nil Writer")
	}
	wr := &writer{w: w, run: r}
	t.Cleanup(func() {
		if !wr.closed {
			_ = w.Close()
		}
	})
	return wr
}

type writer struct {
	w       connector.Writer
	run     *sinkRun
	written snapshotRows
	closed  bool
}

func (w *writer) write(t testing.TB, rows []types.Row) {
	t.Helper()
	var err error
	within(t, "Write", func() { err = w.w.Write(background, rows) })
	if err != nil {
		t.Fatalf("Write of %d rows: %v", len(rows), err)
	}
	w.written.add(rows, w.run.d.s.h.Key)
}

// writeBatches writes rows in three batches.
func (w *writer) writeBatches(t testing.TB, rows []types.Row) {
	t.Helper()
	a, b := len(rows)/3, 2*len(rows)/3
	for _, batch := range [][]types.Row{rows[:a], rows[a:b], rows[b:]} {
		if len(batch) > 0 {
			w.write(t, batch)
		}
	}
}

// preCommit runs PreCommit for the next checkpoint id of the destination.
func (w *writer) preCommit(t testing.TB) (int64, []connector.Committable) {
	t.Helper()
	w.run.d.checkpoint++
	return w.run.d.checkpoint, w.preCommitAt(t, w.run.d.checkpoint)
}

// preCommitAt runs PreCommit for checkpoint id.
func (w *writer) preCommitAt(t testing.TB, id int64) []connector.Committable {
	t.Helper()
	var cs []connector.Committable
	var err error
	within(t, "PreCommit", func() { cs, err = w.w.PreCommit(background, id) })
	if err != nil {
		t.Fatalf("PreCommit(%d): %v", id, err)
	}
	if !w.run.twoPhase() && len(cs) > 0 {
		t.Fatalf("PreCommit(%d) of a sink that is not a connector.TwoPhaseSink returned %d committables; they would never be committed", id, len(cs))
	}
	if i := w.written.modified(w.run.d.s.h.Key); i >= 0 {
		t.Fatalf("row %d was modified by the writer: %s, now %s", i, w.written.keys[i], w.run.d.s.h.Key(w.written.rows[i]))
	}
	return cs
}

func (w *writer) close(t testing.TB, when string) {
	t.Helper()
	var err error
	within(t, "Writer.Close", func() { err = w.w.Close() })
	w.closed = true
	if err != nil {
		t.Fatalf("Close %s: %v", when, err)
	}
}

// commit commits cs and marks checkpoint id durable.
func (r *sinkRun) commit(t testing.TB, id int64, cs []connector.Committable, what string) {
	t.Helper()
	for i, c := range cs {
		var err error
		within(t, "Commit", func() { err = r.committer.Commit(background, c) })
		if err != nil {
			t.Fatalf("Commit of committable %d of %d (%s): %v", i+1, len(cs), what, err)
		}
	}
	r.tracker.setDurable(id)
}

func (r *sinkRun) abort(t testing.TB, cs []connector.Committable, what string) {
	t.Helper()
	for i, c := range cs {
		var err error
		within(t, "Abort", func() { err = r.committer.Abort(background, c) })
		if err != nil {
			t.Fatalf("Abort of committable %d of %d (%s): %v", i+1, len(cs), what, err)
		}
	}
}

// expect checks that the committed output is want, as a multiset; it does
// nothing when the output cannot be read back.
func (d *destination) expect(t testing.TB, want []types.Row, what string) {
	t.Helper()
	if d.Committed == nil {
		return
	}
	var got []types.Row
	within(t, "SinkFixture.Committed", func() { got = d.Committed(t, len(want)) })
	if t.Failed() {
		t.FailNow()
	}
	key := d.s.h.Key
	if df := diff(keys(got, key), keys(want, key)); df != "" {
		t.Fatalf("committed output %s: %s", what, df)
	}
}

// tracker is the suite's connector.CommitTracker: Durable is true up to
// the last checkpoint whose committables the suite has all committed.
type tracker struct {
	mu      sync.Mutex
	durable int64
}

func (k *tracker) setDurable(id int64) {
	k.mu.Lock()
	k.durable = max(k.durable, id)
	k.mu.Unlock()
}

// Durable implements connector.CommitTracker.
func (k *tracker) Durable(id int64) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return id <= k.durable
}

// rows returns the check's rows: n of them starting at the offset-th.
func (s *sinkSuite) rows(offset, n int) []types.Row {
	return s.h.Rows(offset + n)[offset:]
}

func (s *sinkSuite) writeCommit(t testing.TB) {
	d := s.setup(t, "WriteCommit")
	r := d.start(t, nil)
	rows := s.rows(0, s.h.N)
	w := r.open(t, 0, 1)
	w.writeBatches(t, rows)
	id, cs := w.preCommit(t)
	if !r.twoPhase() {
		d.expect(t, rows, "after PreCommit")
		w.close(t, "after PreCommit")
		return
	}
	d.expect(t, nil, "after PreCommit, before Commit (pre-committed work must not be visible)")
	r.commit(t, id, cs, "after PreCommit")
	d.expect(t, rows, "after Commit")
	r.commit(t, id, cs, "committing the same committables again")
	d.expect(t, rows, "after a second Commit of the same committables")
	w.close(t, "after Commit")
}

func (s *sinkSuite) emptyPreCommit(t testing.TB) {
	d := s.setup(t, "EmptyPreCommit")
	r := d.start(t, nil)
	rows := s.rows(0, s.h.N)
	w := r.open(t, 0, 1)
	id, cs := w.preCommit(t)
	if r.twoPhase() {
		r.commit(t, id, cs, "of an empty checkpoint")
	}
	d.expect(t, nil, "after PreCommit with nothing written")
	w.writeBatches(t, rows)
	id, cs = w.preCommit(t)
	if r.twoPhase() {
		r.commit(t, id, cs, "of a checkpoint with rows")
	}
	id, cs = w.preCommit(t)
	if r.twoPhase() {
		r.commit(t, id, cs, "of an empty checkpoint after one with rows")
	}
	d.expect(t, rows, "after empty, full and empty checkpoints")
	w.close(t, "after empty checkpoints")
}

func (s *sinkSuite) twoTasks(t testing.TB) {
	d := s.setup(t, "TwoTasks")
	r := d.start(t, nil)
	rows := s.rows(0, s.h.N)
	half := len(rows) / 2
	ws := []*writer{r.open(t, 0, 2), r.open(t, 1, 2)}
	ws[0].writeBatches(t, rows[:half])
	ws[1].writeBatches(t, rows[half:])
	// Both tasks pre-commit the same checkpoint.
	var all []connector.Committable
	d.checkpoint++
	id := d.checkpoint
	for _, w := range ws {
		all = append(all, w.preCommitAt(t, id)...)
	}
	if r.twoPhase() {
		r.commit(t, id, all, "of two tasks")
	}
	d.expect(t, rows, "of two tasks")
	for _, w := range ws {
		w.close(t, "after two tasks committed")
	}
}

func (s *sinkSuite) writeFailure(t testing.TB) {
	d := s.setup(t, "WriteFailure")
	if d.Break == nil {
		t.Logf("SinkFixture.Break is not set; nothing to check")
		return
	}
	r := d.start(t, nil)
	w := r.open(t, 0, 1)
	d.Break(t)
	rows := s.rows(0, s.h.N)
	var werr, perr error
	var cs []connector.Committable
	within(t, "Write", func() { werr = w.w.Write(background, rows) })
	if werr == nil {
		d.checkpoint++
		within(t, "PreCommit", func() { cs, perr = w.w.PreCommit(background, d.checkpoint) })
	}
	if werr == nil && perr == nil {
		t.Fatalf("the destination failed, yet Write and PreCommit succeeded (PreCommit returned %d committables): the checkpoint would complete without the rows", len(cs))
	}
	t.Logf("reported: Write: %s; PreCommit: %s", errorString(werr), errorString(perr))
	if err := w.w.Close(); err != nil {
		t.Logf("Close after the failure: %v", err)
	}
	w.closed = true
}

func (s *sinkSuite) close(t testing.TB) {
	d := s.setup(t, "Close")
	r := d.start(t, nil)
	r.open(t, 0, 1).close(t, "right after Open")
	if !r.twoPhase() {
		return
	}
	w := r.open(t, 0, 1)
	w.writeBatches(t, s.rows(0, s.h.N))
	w.close(t, "with rows written but not pre-committed")
	d.expect(t, nil, "after Close of a writer whose rows were not pre-committed")
	// The sink still writes.
	rows := s.rows(s.h.N, s.h.N)
	w = r.open(t, 0, 1)
	w.writeBatches(t, rows)
	id, cs := w.preCommit(t)
	r.commit(t, id, cs, "after a writer was closed with rows not pre-committed")
	d.expect(t, rows, "of a writer opened after one was closed with rows not pre-committed")
	w.close(t, "after Commit")
}

// crashedRun writes rows in a first run and pre-commits them, then closes
// the writer without committing, as a run that fails before its commit
// notification does; it returns the committables.
func (s *sinkSuite) crashedRun(t testing.TB, d *destination, rows []types.Row) ([]connector.Committable, bool) {
	t.Helper()
	r := d.start(t, nil)
	if !r.twoPhase() {
		t.Logf("the sink is not a connector.TwoPhaseSink; nothing to check")
		return nil, false
	}
	w := r.open(t, 0, 1)
	w.writeBatches(t, rows)
	_, cs := w.preCommit(t)
	w.close(t, "after PreCommit, before Commit")
	var err error
	within(t, "Committer.Close", func() { err = r.committer.Close() })
	if err != nil {
		t.Fatalf("Committer.Close: %v", err)
	}
	return cs, true
}

// stillWrites checks that run r writes, pre-commits and commits more rows
// on top of before.
func (s *sinkSuite) stillWrites(t testing.TB, r *sinkRun, before []types.Row, what string) {
	t.Helper()
	more := s.rows(len(before)+s.h.N, s.h.N)
	w := r.open(t, 0, 1)
	w.writeBatches(t, more)
	id, cs := w.preCommit(t)
	r.commit(t, id, cs, what)
	r.d.expect(t, append(append([]types.Row(nil), before...), more...), what)
	w.close(t, what)
}

func (s *sinkSuite) abort(t testing.TB) {
	d := s.setup(t, "Abort")
	r := d.start(t, nil)
	if !r.twoPhase() {
		t.Logf("the sink is not a connector.TwoPhaseSink; nothing to check")
		return
	}
	w := r.open(t, 0, 1)
	w.writeBatches(t, s.rows(0, s.h.N))
	_, cs := w.preCommit(t)
	w.close(t, "after PreCommit")
	r.abort(t, cs, "pre-committed work")
	d.expect(t, nil, "after Abort")
	r.abort(t, cs, "work already aborted")
	// A later run's committer has never seen the committables; the work
	// they name is gone.
	later := d.start(t, nil)
	later.abort(t, cs, "work unknown to this committer")
	d.expect(t, nil, "after Abort of unknown work")
	s.stillWrites(t, later, nil, "after aborts")
}

func (s *sinkSuite) recoverTwice(t testing.TB) {
	d := s.setup(t, "RecoverTwice")
	rows := s.rows(0, s.h.N)
	cs, ok := s.crashedRun(t, d, rows)
	if !ok {
		return
	}
	first := d.start(t, cs)
	d.expect(t, rows, "after Recover")
	// The first recovery's run dies too; the next one recovers the same
	// committables.
	if err := first.committer.Close(); err != nil {
		t.Fatalf("Committer.Close: %v", err)
	}
	second := d.start(t, cs)
	d.expect(t, rows, "after a second Recover of the same committables")
	s.stillWrites(t, second, rows, "after two recoveries")
}

func (s *sinkSuite) commitAfterRecover(t testing.TB) {
	d := s.setup(t, "CommitAfterRecover")
	rows := s.rows(0, s.h.N)
	cs, ok := s.crashedRun(t, d, rows)
	if !ok {
		return
	}
	// As the runtime restores: a committer is created, the pending
	// committables committed, then Recover; then a retried Commit.
	sink, err := d.NewSink()
	if err != nil {
		t.Fatalf("creating the sink: %v", err)
	}
	r := &sinkRun{d: d, sink: sink, tracker: &tracker{}, restored: d.checkpoint}
	within(t, "TwoPhaseSink.Committer", func() {
		r.committer, err = sink.(connector.TwoPhaseSink).Committer(background, d.job)
	})
	if err != nil {
		t.Fatalf("Committer: %v", err)
	}
	t.Cleanup(func() { _ = r.committer.Close() })
	r.commit(t, d.checkpoint, cs, "restored from the checkpoint, before Recover")
	r.recover(t, cs)
	r.commit(t, d.checkpoint, cs, "after Recover of the same committables")
	d.expect(t, rows, "after Commit, Recover and Commit of the same committables")
	s.stillWrites(t, r, rows, "after Commit, Recover and Commit")
}

func (s *sinkSuite) recoverAbortsLeftovers(t testing.TB) {
	d := s.setup(t, "RecoverAbortsLeftovers")
	if _, ok := s.crashedRun(t, d, s.rows(0, s.h.N)); !ok {
		return
	}
	// The committables never reached a checkpoint: the new run restores
	// none.
	r := d.start(t, nil)
	d.expect(t, nil, "after Recover with no pending committables")
	s.stillWrites(t, r, nil, "after Recover discarded an earlier run's work")
}

var _ connector.CommitTracker = (*tracker)(nil)
