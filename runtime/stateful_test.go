package runtime_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/state"
	_ "github.com/streamsql/streamsql/state/heap" // the keyed-state backends the tests use
	_ "github.com/streamsql/streamsql/state/lsm"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// countKeys is the number of keys of the stateful rig: row (p, seq) of
// the SeqSource has key seq mod countKeys, so that every key gets rows of
// every partition, from both source tasks.
const countKeys = 37

func countKey(row types.Row) int64 { return row.Fields[1].Int64() % countKeys }

func countKeyBytes(dst []byte, k int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(k)) }

// The row kinds of countOp's output, as its first field (the file sink
// writes fields only).
const (
	kindInsert = iota
	kindUpdateBefore
	kindUpdateAfter
)

// countOp is a keyed running count, the smallest stateful operator: for
// each row it emits +I[k, 1] for a key's first row, else -U[k, n] and
// +U[k, n+1], each as [kind, key, count], keeping the counts in its keyed
// state.
type countOp struct {
	stream.Base
	ctx   *stream.Context
	tbl   state.ValueTable
	key   []byte
	value []byte
}

func newCountOp(stream.TaskInfo) (stream.Operator, error) { return &countOp{}, nil }

func (o *countOp) Open(ctx *stream.Context) error {
	o.ctx = ctx
	o.tbl = ctx.State.Value("count")
	return nil
}

func (o *countOp) Process(_ int, rows []types.Row, out *stream.Output) error {
	maxP := o.ctx.Task.MaxParallelism
	for _, r := range rows {
		k := countKey(r)
		o.key = countKeyBytes(o.key[:0], k)
		kg := state.KeyGroupOf(o.key, maxP)
		if !o.ctx.Task.KeyGroups.Contains(kg) {
			return fmt.Errorf("key %d (group %d) reached task %d, which owns %s", k, kg, o.ctx.Task.Index, o.ctx.Task.KeyGroups)
		}
		v, ok, err := o.tbl.Get(kg, o.key)
		if err != nil {
			return err
		}
		var n uint64
		if ok {
			n, _ = binary.Uvarint(v)
		}
		o.value = binary.AppendUvarint(o.value[:0], n+1)
		if err := o.tbl.Put(kg, o.key, o.value); err != nil {
			return err
		}
		if n == 0 {
			out.Emit(types.Row{Kind: types.Insert, Fields: []types.Value{types.Int64(kindInsert), types.Int64(k), types.Int64(1)}})
			continue
		}
		out.Emit(types.Row{Kind: types.UpdateBefore, Fields: []types.Value{types.Int64(kindUpdateBefore), types.Int64(k), types.Int64(int64(n))}})
		out.Emit(types.Row{Kind: types.UpdateAfter, Fields: []types.Value{types.Int64(kindUpdateAfter), types.Int64(k), types.Int64(int64(n + 1))}})
	}
	return nil
}

// countRig is the rig's SeqSource (2 tasks, 4 partitions) → a hash
// exchange by key → countOp (opPar tasks, stateful) → the 2PC FileSink
// (as many tasks, fused with the operator).
func countRig(t testing.TB, dir string, opPar int) *graphRig {
	if dir == "" {
		dir = t.TempDir()
	}
	r := &rig{dir: dir, partitions: 4, per: 800, srcPar: 2, sinks: 1,
		interval: 10 * time.Millisecond, delay: 200 * time.Microsecond, batch: 8}
	g := &graphRig{rig: r, sinkPar: opPar}
	g.fileSinks = []*testkit.FileSink{{Dir: filepath.Join(g.dir, "out")}}
	g.ops = []runtime.Vertex{{ID: "main/count", Name: "count", Parallelism: opPar,
		Operator: &runtime.OperatorVertex{New: newCountOp, Stateful: true, Copies: true}}}
	g.edges = []runtime.Exchange{{Kind: runtime.Hash, Key: func(row types.Row, dst []byte) []byte { return countKeyBytes(dst, countKey(row)) }},
		{Kind: runtime.Forward}}
	return g
}

// checkCounts checks the committed output of a countRig against the
// oracle: per key, the changelog +I(1), -U(1), +U(2), ..., -U(n-1), +U(n)
// in commit order, where n is the number of input rows of the key (full:
// the whole input; otherwise any prefix of that changelog is right, as
// after a stop). It returns the number of input rows the output counts.
func checkCounts(t testing.TB, g *graphRig, full bool) int64 {
	t.Helper()
	rows, err := testkit.ReadCommitted(g.fileSinks[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]int64{}
	for seq := range g.per {
		want[seq%countKeys] += int64(g.partitions)
	}
	count := map[int64]int64{}
	pending := map[int64]bool{} // a -U waiting for its +U
	for i, r := range rows {
		if len(r) != 3 {
			t.Fatalf("row %d: %v is not [kind, key, count]", i, r)
		}
		kind, k, n := r[0], r[1], r[2]
		switch {
		case kind == kindInsert && count[k] == 0 && n == 1 && !pending[k]:
			count[k] = 1
		case kind == kindUpdateBefore && n == count[k] && n > 0 && !pending[k]:
			pending[k] = true
		case kind == kindUpdateAfter && pending[k] && n == count[k]+1:
			pending[k] = false
			count[k] = n
		default:
			t.Fatalf("row %d: %v after key %d's count %d (retraction pending: %v): not exactly once", i, r, k, count[k], pending[k])
		}
	}
	var total int64
	for k, n := range count {
		if pending[k] {
			t.Fatalf("key %d: a -U without its +U", k)
		}
		if n > want[k] {
			t.Fatalf("key %d counted %d rows; the input has %d", k, n, want[k])
		}
		total += n
	}
	if full {
		for k, n := range want {
			if count[k] != n {
				t.Fatalf("key %d counted %d rows, want %d", k, count[k], n)
			}
		}
		left, err := testkit.PendingFiles(g.fileSinks[0].Dir)
		if err != nil || len(left) > 0 {
			t.Fatalf("transactions neither committed nor aborted: %v %v", left, err)
		}
	}
	return total
}

// TestStatefulBoundedJob runs the keyed count to the end at parallelism 1
// and 4: the committed changelog equals the oracle's, the checkpoints held
// the operator's state, and the state files of older checkpoints were
// deleted as checkpoints were pruned.
func TestStatefulBoundedJob(t *testing.T) {
	for _, c := range []struct {
		backend string
		par     int
	}{{"heap", 1}, {"heap", 4}, {"pebble", 1}, {"pebble", 4}} {
		t.Run(fmt.Sprintf("%s/%d", c.backend, c.par), func(t *testing.T) {
			par := c.par
			g := countRig(t, "", par)
			g.backend = c.backend
			var withState int
			g.tweak = func(s *runtime.JobSpec) {
				s.Config.Checkpoint.Retention = jobconfig.RetainOnCancellation
			}
			j := g.job(t)
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			checkCounts(t, g, true)
			st := j.Status()
			if st.Checkpoints.Completed < 2 {
				t.Fatalf("%d checkpoints completed", st.Checkpoints.Completed)
			}
			store, err := openStore(g.dir)
			if err != nil {
				t.Fatal(err)
			}
			md, err := store.Latest()
			if err != nil || md == nil {
				t.Fatalf("latest checkpoint: %v %v", md, err)
			}
			op := md.Operators["main/count"]
			if md.Version != 2 || md.MaxParallelism != 128 || len(op.Tasks) != par {
				t.Fatalf("checkpoint %d: version %d, max parallelism %d, %d operator tasks; want 2, 128, %d", md.ID, md.Version, md.MaxParallelism, len(op.Tasks), par)
			}
			for _, ts := range op.Tasks {
				if ts.Parallelism != par || ts.Handle.KeyGroups != state.RangeOf(ts.Task, par, 128) || ts.Handle.Kind != c.backend {
					t.Fatalf("task state %+v", ts)
				}
				withState += len(ts.Handle.Files)
			}
			files, err := store.ListFiles(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			referenced := map[string]bool{}
			for _, n := range md.StateFiles() {
				referenced[n] = true
			}
			for _, n := range files {
				if !referenced[n] {
					t.Errorf("state file %s is not referenced by the retained checkpoint %d", n, md.ID)
				}
			}
			if withState == 0 || len(files) != len(referenced) {
				t.Fatalf("%d state files stored, the checkpoint references %d (%d references)", len(files), len(referenced), withState)
			}
			// The status's state size is the latest checkpoint's files'.
			var size int64
			for _, ts := range op.Tasks {
				for _, f := range ts.Handle.Files {
					size += f.Size
				}
			}
			if cs := st.Checkpoints; cs.LastID != md.ID || cs.LastStateSize != size || size == 0 || cs.LastStateWritten <= 0 || cs.LastStateWritten > size {
				t.Fatalf("status: checkpoint %d, state %d bytes, %d written; the latest checkpoint %d references %d bytes",
					cs.LastID, cs.LastStateSize, cs.LastStateWritten, md.ID, size)
			}
		})
	}
}

// openStore opens the checkpoint storage of a rig's job ("testjob" under
// <dir>/checkpoints).
func openStore(dir string) (*checkpoint.Dir, error) {
	return checkpoint.OpenDir(filepath.Join(dir, "checkpoints"), "testjob")
}

// stateFaultPoints are the failure points of a stateful job: every point
// of a one-sink job, and those of operator state.
func stateFaultPoints() []runtime.FaultPoint {
	return []runtime.FaultPoint{runtime.BeforePreCommit, runtime.AfterPreCommit, runtime.AfterCheckpointWritten,
		runtime.AfterCommit, runtime.DuringRecovery, runtime.CommitDelay,
		runtime.DuringStateWrite, runtime.AfterStateWrite, runtime.BeforeCheckpointWrite, runtime.DuringPrune}
}

// TestStatefulFailurePointsInProcess makes the keyed count fail at every
// failure point, old and new, at parallelism 1 and 4; the job restarts
// within the process from its last checkpoint (state restored into fresh
// backends), and the committed changelog equals the oracle's: no count
// lost, none twice (R1).
func TestStatefulFailurePointsInProcess(t *testing.T) {
	for _, c := range []struct {
		backend string
		par     int
	}{{"heap", 1}, {"heap", 4}, {"pebble", 4}} {
		for _, p := range stateFaultPoints() {
			t.Run(fmt.Sprintf("%s/%d/%s", c.backend, c.par, p), func(t *testing.T) {
				g := countRig(t, "", c.par)
				g.backend = c.backend
				g.per = 1500
				f := &testkit.Faults{}
				switch p {
				case runtime.DuringRecovery:
					f.On(runtime.AfterCheckpointWritten, 3, testkit.Fail, 0)
					f.On(p, 1, testkit.Fail, 0)
				case runtime.CommitDelay:
					f.On(p, 2, testkit.Delay, 30*time.Millisecond).On(runtime.AfterPreCommit, 4, testkit.Fail, 0)
				default:
					f.On(p, 3, testkit.Fail, 0)
				}
				g.faults = f
				j := g.job(t)
				if err := runJob(t, j, 2*time.Minute); err != nil {
					t.Fatal(err)
				}
				if !f.Fired(p) {
					t.Fatalf("failure point %s was not reached", p)
				}
				if j.Status().Restarts < 1 {
					t.Fatal("no restart")
				}
				checkCounts(t, g, true)
			})
		}
	}
}

// TestStatefulRescale stops the keyed count at parallelism 4 after a few
// checkpoints and resumes it at 2 (and the other way round): each task of
// the new run restores the key groups it owns now from the handles of the
// old tasks, and the committed changelog equals the oracle's.
func TestStatefulRescale(t *testing.T) {
	for _, c := range []struct {
		backend  string
		from, to int
	}{{"heap", 4, 2}, {"heap", 2, 4}, {"heap", 1, 3}, {"pebble", 4, 2}, {"pebble", 1, 3}} {
		t.Run(fmt.Sprintf("%s/%d-%d", c.backend, c.from, c.to), func(t *testing.T) {
			dir := t.TempDir()
			g := countRig(t, dir, c.from)
			g.per = 4000
			g.backend = c.backend
			j := g.job(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- j.Run(ctx) }()
			deadline := time.Now().Add(time.Minute)
			for j.Status().Checkpoints.Completed < 3 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			var entries, bytes int64
			for _, ts := range j.Status().Tasks {
				if ts.Kind == runtime.OperatorTask {
					entries, bytes = entries+ts.StateEntries, bytes+ts.StateBytes
				}
			}
			cancel()
			if entries == 0 || entries > countKeys || bytes == 0 {
				t.Errorf("the operator tasks' status shows %d state entries in %d bytes; want 1 to %d keys", entries, bytes, countKeys)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if n := checkCounts(t, g, false); n == 0 || n == int64(g.partitions)*g.per {
				t.Fatalf("the first run counted %d of %d rows; want a part", n, int64(g.partitions)*g.per)
			}
			g2 := countRig(t, dir, c.to)
			g2.per = g.per
			g2.backend = c.backend
			if err := runJob(t, g2.job(t), 2*time.Minute); err != nil {
				t.Fatal(err)
			}
			checkCounts(t, g2, true)
		})
	}
}

// TestStatefulRestoreRefusals: a checkpoint with operator state restores
// only into a job that has the operator (unless non-restored state is
// allowed) and the same number of key groups.
func TestStatefulRestoreRefusals(t *testing.T) {
	dir := t.TempDir()
	g := countRig(t, dir, 2)
	g.per = 4000
	j := g.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for j.Status().Checkpoints.Completed < 2 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	run := func(tweak func(*runtime.JobSpec)) error {
		g := countRig(t, dir, 2)
		g.per = 4000
		g.tweak = func(s *runtime.JobSpec) {
			s.Config.Restart.Strategy = jobconfig.RestartNone
			tweak(s)
		}
		return runJob(t, g.job(t), time.Minute)
	}
	renamed := func(s *runtime.JobSpec) { s.Graph.Vertices[1].ID = "main/count2" }
	if err := run(renamed); !errors.Is(err, runtime.ErrInvalidSpec) || !strings.Contains(err.Error(), `"main/count"`) ||
		!strings.Contains(err.Error(), "allow-non-restored-state") {
		t.Fatalf("renamed operator: %v", err)
	}
	if err := run(func(s *runtime.JobSpec) { s.Config.MaxParallelism = 64 }); !errors.Is(err, runtime.ErrInvalidSpec) ||
		!strings.Contains(err.Error(), "set pipeline.max-parallelism to 128") {
		t.Fatalf("max parallelism changed: %v", err)
	}
	// A source the checkpoint holds no positions of, feeding the operator
	// whose state it restores (a job planned otherwise: scans shared, or no
	// longer): it would count again what the state holds. Refused, naming
	// both, with the spec's hint.
	added := func(s *runtime.JobSpec) {
		src := s.Graph.Vertices[0]
		src.ID = "main/seq#2"
		s.Graph.Vertices = append(s.Graph.Vertices, src)
		e := s.Graph.Edges[0]
		e.From = len(s.Graph.Vertices) - 1
		s.Graph.Edges = append(s.Graph.Edges, e)
		s.RestoreHint = "the hint"
	}
	if err := run(added); !errors.Is(err, runtime.ErrInvalidSpec) || !strings.Contains(err.Error(), `operator "main/count", and source "main/seq#2"`) ||
		!strings.HasSuffix(err.Error(), "; the hint") {
		t.Fatalf("a new source into restored state: %v", err)
	}
	// Allowed: the renamed operator starts empty; its counts start again
	// (what the user asked for), so the output is not checked here.
	if err := run(func(s *runtime.JobSpec) { renamed(s); s.AllowNonRestoredState = true }); err != nil {
		t.Fatalf("renamed operator, non-restored state allowed: %v", err)
	}
}

// statelessFaultPoints are the failure points a job without operator state
// reaches: all but those of state writes and state file deletion.
func statelessFaultPoints() []runtime.FaultPoint {
	var ps []runtime.FaultPoint
	for _, p := range runtime.FaultPoints() {
		switch p {
		case runtime.DuringStateWrite, runtime.AfterStateWrite, runtime.DuringPrune:
		default:
			ps = append(ps, p)
		}
	}
	return ps
}

// childOpParEnv is the parallelism of the keyed count in a "count" child,
// childBackendEnv its state.backend.type.
const (
	childOpParEnv   = "STREAMSQL_RUNTIME_CHILD_OP_PAR"
	childBackendEnv = "STREAMSQL_RUNTIME_CHILD_BACKEND"
)

// countChild runs the keyed count (countRig) in a child process: 0 when
// the job finished, 2 for a bad environment, 3 when it failed.
func countChild() int {
	dir := os.Getenv(childDirEnv)
	per, err1 := strconv.ParseInt(os.Getenv(childPerEnv), 10, 64)
	par, err2 := strconv.Atoi(os.Getenv(childOpParEnv))
	f, err3 := testkit.FaultsFromEnv()
	if err := errors.Join(err1, err2, err3); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	g := countRig(nil, dir, par)
	g.per = per
	g.backend = os.Getenv(childBackendEnv)
	if f != nil {
		g.faults = f
	}
	g.tweak = func(s *runtime.JobSpec) { s.Config.Restart.Strategy = jobconfig.RestartNone }
	j, err := runtime.NewJob(g.graphSpec())
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		err = j.Run(ctx)
		cancel()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	return 0
}

// runCountChild runs the keyed count at parallelism par in a child
// process with faults, SIGKILLing it after killAfter when positive; it
// reports whether the child died of SIGKILL.
func runCountChild(t *testing.T, dir, backend string, per int64, par int, faults string, killAfter time.Duration) bool {
	t.Helper()
	return crashtest.Run(t, crashtest.Spec{Role: "count", Env: []string{childDirEnv + "=" + dir,
		childPerEnv + "=" + strconv.FormatInt(per, 10), childOpParEnv + "=" + strconv.Itoa(par),
		childBackendEnv + "=" + backend, testkit.FaultsEnv + "=" + faults}}, killAfter)
}

// TestStatefulSIGKILL kills a child process running the keyed count at
// each failure point of a stateful job (at two different hits), at
// parallelism 1 and 4 on the heap backend and 4 on pebble, then runs it to
// the end in a new process: the committed changelog equals the oracle's
// (R1). The random cases kill it at random times at parallelism 4 and
// finish it at 2, a restore at another parallelism after crashes.
func TestStatefulSIGKILL(t *testing.T) {
	const per = 1500
	for _, c := range []struct {
		backend string
		par     int
		hits    []int
	}{{"heap", 1, []int{2, 3}}, {"heap", 4, []int{2, 3}}, {"pebble", 4, []int{2}}} {
		for _, p := range stateFaultPoints() {
			for _, at := range c.hits {
				t.Run(fmt.Sprintf("%s/%d/%s@%d", c.backend, c.par, p, at), func(t *testing.T) {
					dir := t.TempDir()
					rule := fmt.Sprintf("%s@%d:kill", p, at)
					switch p {
					case runtime.DuringRecovery:
						if !runCountChild(t, dir, c.backend, per, c.par, fmt.Sprintf("%s@%d:kill", runtime.AfterCheckpointWritten, at), 0) {
							t.Fatal("child was not killed after a checkpoint was written")
						}
						rule = fmt.Sprintf("%s@1:kill", p)
					case runtime.CommitDelay:
						rule = fmt.Sprintf("%s@%d:kill:60ms", p, at)
					}
					if !runCountChild(t, dir, c.backend, per, c.par, rule, 0) {
						t.Fatalf("child was not killed at %s", rule)
					}
					if runCountChild(t, dir, c.backend, per, c.par, "", 0) {
						t.Fatal("child killed without a fault")
					}
					g := countRig(t, dir, c.par)
					g.per = per
					checkCounts(t, g, true)
				})
			}
		}
	}
	for _, backend := range []string{"heap", "pebble"} {
		t.Run("random/4-2/"+backend, func(t *testing.T) {
			const per = 4000
			dir := t.TempDir()
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
			kills := 0
			for kills < 4 {
				if !runCountChild(t, dir, backend, per, 4, "", time.Duration(50+rng.IntN(250))*time.Millisecond) {
					break // finished before the kill
				}
				kills++
			}
			if runCountChild(t, dir, backend, per, 2, "", 0) {
				t.Fatal("child killed without a fault")
			}
			g := countRig(t, dir, 2)
			g.per = per
			checkCounts(t, g, true)
			t.Logf("%d SIGKILLs at parallelism 4, finished at 2; changelog exactly once", kills)
		})
	}
}

// TestStatefulEndOfInputCheckpoint runs the keyed count to the end of its
// input with the default retention (checkpoints deleted once the job
// finishes), failing right after the final checkpoint is durable, with no
// restart: that checkpoint says the input ended and holds no operator
// state, but the sink's pending commits. A second run restores it: it
// commits them and finishes without reading anything (the changelog is
// exactly once, no row is read, the finished record is written). With
// RETAIN_ON_CANCELLATION the final checkpoint keeps the state, as a later
// run may go on from it.
func TestStatefulEndOfInputCheckpoint(t *testing.T) {
	for _, backend := range []string{"heap", "pebble"} {
		t.Run(backend, func(t *testing.T) {
			g := countRig(t, "", 2)
			g.backend = backend
			f := (&testkit.Faults{}).OnFinal(runtime.AfterCheckpointWritten, testkit.Fail, 0)
			g.faults = f
			g.tweak = func(s *runtime.JobSpec) {
				s.Config.Checkpoint.Retention = jobconfig.NoExternalizedCheckpoints
				s.Config.Restart.Strategy = jobconfig.RestartNone
			}
			if err := runJob(t, g.job(t), time.Minute); !errors.Is(err, testkit.ErrInjected) {
				t.Fatalf("first run: %v, want the injected failure", err)
			}
			store, err := openStore(g.dir)
			if err != nil {
				t.Fatal(err)
			}
			md, err := store.Latest()
			if err != nil || md == nil {
				t.Fatalf("latest checkpoint: %v %v", md, err)
			}
			if !md.InputEnded || len(md.Operators) != 0 {
				t.Fatalf("final checkpoint %d: input ended %v, %d operators; want true, 0", md.ID, md.InputEnded, len(md.Operators))
			}
			// The second run's source has more rows past the positions
			// restored (as a bounded Kafka source's latest offsets may
			// have moved on): it must not read them, it has no state.
			per := g.per
			g.per += 100
			g.faults = nil
			g.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.Retention = jobconfig.NoExternalizedCheckpoints }
			j := g.job(t)
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			g.per = per
			checkCounts(t, g, true)
			for _, ts := range j.Status().Tasks {
				if ts.RecordsIn != 0 {
					t.Fatalf("task %s read %d rows after restoring the final checkpoint", ts.Name, ts.RecordsIn)
				}
			}
			if fin, err := store.Finished(); err != nil || fin == nil {
				t.Fatalf("no finished record: %v %v", fin, err)
			}

			// Retained checkpoints keep the state of the final one.
			g = countRig(t, "", 2)
			g.backend = backend
			g.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.Retention = jobconfig.RetainOnCancellation }
			if err := runJob(t, g.job(t), time.Minute); err != nil {
				t.Fatal(err)
			}
			checkCounts(t, g, true)
			if store, err = openStore(g.dir); err != nil {
				t.Fatal(err)
			}
			if md, err = store.Latest(); err != nil || md == nil || md.InputEnded || len(md.Operators["main/count"].Tasks) != 2 {
				t.Fatalf("retained final checkpoint: %+v, %v; want the operator's state of 2 tasks", md, err)
			}
		})
	}
}

// TestStatefulFallbackKeepsItsState holds the commits of a checkpoint back
// while the keyed count goes on with one retained checkpoint: retention
// keeps the fallback checkpoint (the newest with its commits done) beside
// the newest, and the deletion of old state files keeps every file either
// references; released, the job finishes exactly once.
func TestStatefulFallbackKeepsItsState(t *testing.T) {
	g := countRig(t, "", 2)
	g.per = 3000
	f := (&testkit.Faults{}).On(runtime.CommitDelay, 2, testkit.Block, 0)
	g.faults = f
	g.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.Retention = jobconfig.RetainOnCancellation }
	j := g.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	deadline := time.Now().Add(time.Minute)
	for !j.Status().TriggeringPaused {
		if time.Now().After(deadline) {
			t.Fatal("triggering never paused while a commit was held back")
		}
		time.Sleep(2 * time.Millisecond)
	}
	store, err := openStore(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := store.List()
	if err != nil || len(refs) < 2 {
		t.Fatalf("retained checkpoints %v (%v); want the newest and the fallback", refs, err)
	}
	files, err := store.ListFiles(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		md, err := store.Read(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range md.StateFiles() {
			if _, ok := slices.BinarySearch(files, n); !ok {
				t.Fatalf("%s references state file %s, which was deleted", r, n)
			}
		}
	}
	f.Release(runtime.CommitDelay)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the job did not finish")
	}
	checkCounts(t, g, true)
}

// TestStatefulRestorePath stops the keyed count, copies its checkpoint
// folder elsewhere, and runs the job from the copy's checkpoint file
// (JobSpec.RestorePath) under another checkpoint folder: the state files
// the checkpoint references come along into the new storage, and the
// committed changelog equals the oracle's.
func TestStatefulRestorePath(t *testing.T) {
	dir := t.TempDir()
	g := countRig(t, dir, 2)
	g.per = 4000
	g.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.Retention = jobconfig.RetainOnCancellation }
	j := g.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for j.Status().Checkpoints.Completed < 3 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	store, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := store.List()
	if err != nil || len(refs) == 0 {
		t.Fatal(refs, err)
	}
	g2 := countRig(t, dir, 2)
	g2.per = g.per
	g2.tweak = func(s *runtime.JobSpec) {
		s.Config.Checkpoint.Dir = filepath.Join(dir, "elsewhere")
		s.RestorePath = refs[len(refs)-1].Path
	}
	if err := runJob(t, g2.job(t), 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, g2, true)
}

// TestStatusGraph: Status.Graph is the graph the run runs — a stateful
// operator behind a hash exchange with its sink fused to it; a pipeline's
// transform shown as part of its source, and the sink fused with the
// source or not as the parallelisms say.
func TestStatusGraph(t *testing.T) {
	t.Run("graph", func(t *testing.T) {
		g := countRig(t, "", 2)
		g.backend = "heap"
		j := g.job(t)
		if st := j.Status(); st.Graph != nil {
			t.Fatalf("a job that has not run has a graph: %+v", st.Graph)
		}
		if err := runJob(t, j, time.Minute); err != nil {
			t.Fatal(err)
		}
		want := &runtime.GraphStatus{
			Vertices: []runtime.VertexStatus{
				{Kind: runtime.SourceTask, ID: "main/seq", Name: "seq", Parallelism: 2},
				{Kind: runtime.OperatorTask, ID: "main/count", Name: "count", Parallelism: 2, Stateful: true},
				{Kind: runtime.SinkTask, ID: "main/out", Name: "out", Parallelism: 2},
			},
			Edges: []runtime.EdgeStatus{{From: 0, To: 1, Exchange: "hash"}, {From: 1, To: 2, Exchange: "forward", Fused: true}},
		}
		if got := j.Status().Graph; !reflect.DeepEqual(got, want) {
			t.Fatalf("graph %+v, want %+v", got, want)
		}
	})
	for _, c := range []struct {
		sinkPar int
		fused   bool
	}{{2, true}, {1, false}} {
		t.Run(fmt.Sprintf("pipeline/%d", c.sinkPar), func(t *testing.T) {
			r := newRig(t)
			r.sinkPar = c.sinkPar
			r.tweak = func(s *runtime.JobSpec) {
				s.Pipelines[0].Transform = func(in types.Row, out []types.Row) ([]types.Row, error) { return append(out, in), nil }
			}
			j := r.job(t)
			if err := runJob(t, j, time.Minute); err != nil {
				t.Fatal(err)
			}
			want := &runtime.GraphStatus{
				Vertices: []runtime.VertexStatus{
					{Kind: runtime.SinkTask, ID: "main/out-a", Name: "out-a", Parallelism: c.sinkPar},
					{Kind: runtime.SourceTask, ID: "main/seq", Name: "seq", Parallelism: 2},
				},
				Edges: []runtime.EdgeStatus{{From: 1, To: 0, Exchange: "forward", Fused: c.fused}},
			}
			st := j.Status()
			if !reflect.DeepEqual(st.Graph, want) {
				t.Fatalf("graph %+v, want %+v", st.Graph, want)
			}
			for _, ts := range st.Tasks {
				if ts.Kind == runtime.OperatorTask {
					t.Fatalf("the transform is a task of its own in the status: %+v", ts)
				}
			}
		})
	}
}

// TestOneProcFusesHashEdge: with GOMAXPROCS 1, a hash exchange from one
// task into a keyed operator of one task fuses (the operator runs in the
// source's task), with the same exactly-once changelog; a checkpoint of
// the fused run restores into a run with more processors, where the edge
// keeps its channel, and the changelog goes on as the oracle's.
func TestOneProcFusesHashEdge(t *testing.T) {
	dir := t.TempDir()
	rig := func() *graphRig {
		g := countRig(t, dir, 1)
		g.srcPar, g.per = 1, 3000
		return g
	}
	prev := goruntime.GOMAXPROCS(1)
	defer goruntime.GOMAXPROCS(prev)
	g := rig()
	g.tweak = func(s *runtime.JobSpec) { s.Config.Checkpoint.Retention = jobconfig.RetainOnCancellation }
	j := g.job(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for j.Status().Checkpoints.Completed < 2 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	edges := []runtime.EdgeStatus{{From: 0, To: 1, Exchange: "hash", Fused: true}, {From: 1, To: 2, Exchange: "forward", Fused: true}}
	if got := j.Status().Graph.Edges; !reflect.DeepEqual(got, edges) {
		t.Fatalf("GOMAXPROCS 1: edges %+v, want %+v", got, edges)
	}
	if n := checkCounts(t, g, false); n == 0 || n == int64(g.partitions)*g.per {
		t.Fatalf("the first run counted %d rows: want a part of the input", n)
	}
	store, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := store.List()
	if err != nil || len(refs) == 0 {
		t.Fatal(refs, err)
	}
	goruntime.GOMAXPROCS(max(prev, 2))
	g2 := rig()
	g2.tweak = func(s *runtime.JobSpec) {
		s.Config.Checkpoint.Dir = filepath.Join(dir, "elsewhere")
		s.RestorePath = refs[len(refs)-1].Path
	}
	j2 := g2.job(t)
	if err := runJob(t, j2, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	edges[0].Fused = false
	if got := j2.Status().Graph.Edges; !reflect.DeepEqual(got, edges) {
		t.Fatalf("GOMAXPROCS %d: edges %+v, want %+v", max(prev, 2), got, edges)
	}
	checkCounts(t, g2, true)
}
