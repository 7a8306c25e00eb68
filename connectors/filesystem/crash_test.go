package filesystem_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors/filesystem"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// Crash tests (internal/testrig/crashtest): the test binary re-executes
// itself as the child role "crash" (crashChild), with crashDirEnv naming
// its directory. The
// child runs the job datagen (sequence, seeded) → filesystem (json,
// partitioned, small files) with checkpoints in the directory, with the
// faults of testkit.FaultsEnv, and exits 0 when the job finished. The
// parent SIGKILLs it (by a fault rule or a timer), restarts it until it
// finishes, and checks that the committed files hold every generated row
// exactly once.
const (
	crashDirEnv  = "STREAMSQL_FS_CRASH_DIR"
	crashRowsEnv = "STREAMSQL_FS_CRASH_ROWS"
	crashRateEnv = "STREAMSQL_FS_CRASH_RATE"
)

var crashSchema = factory.Schema{Columns: []factory.Column{
	{Name: "id", Type: types.BigInt()},
	{Name: "name", Type: types.VarChar(12)},
	{Name: "amount", Type: types.DecimalType(8, 2)},
	{Name: "bucket", Type: types.Int()},
}}

var crashTypes = []types.Type{types.BigInt(), types.VarChar(12), types.DecimalType(8, 2), types.Int()}

// crashGenTable is the datagen table of the crash job: rows ids 0..rows-1,
// seeded random values, rate rows per second (0: unlimited).
func crashGenTable(rows, rate int64) factory.Table {
	return factory.Table{Name: "gen", Schema: crashSchema, Options: map[string]string{
		"connector": "datagen", "seed": "11", "scan.parallelism": "4",
		"rows-per-second": strconv.FormatInt(rate, 10),
		"fields.id.kind":  "sequence", "fields.id.start": "0", "fields.id.end": strconv.FormatInt(rows-1, 10),
		"fields.name.length": "12", "fields.name.var-len": "true", "fields.name.null-rate": "0.05",
		"fields.amount.min": "-1000", "fields.amount.max": "1000",
		"fields.bucket.min": "0", "fields.bucket.max": "2", "fields.bucket.null-rate": "0.1",
	}}
}

// crashSinks names the crash job's two sink tables: two, so that a
// checkpoint's commits can be cut between sinks. The second commits its
// partitions too (crashCommitSink).
var crashSinks = []string{"out_a", "out_b"}

// crashCommitSink is the crash job's sink whose partitions are committed,
// with a success file, 30 ms after they are first written (three
// checkpoint intervals), so that kills fall between a partition's files
// and its success file, and every partition gets its success file when
// the input ends.
const crashCommitSink = "out_b"

// crashOutTable is a filesystem table the crash job writes, in dir/name.
// Files are small, so that they roll between checkpoints too; for the
// soak's many rows less so, to keep the number of files reasonable.
func crashOutTable(dir, name string, rows int64) factory.Table {
	size := "2kb"
	if rows > 100000 {
		size = "256kb"
	}
	schema := crashSchema
	schema.PartitionKeys = []string{"bucket"}
	opts := map[string]string{
		"connector": "filesystem", "path": filepath.Join(dir, name), "format": "json",
		"sink.rolling-policy.file-size": size,
	}
	if name == crashCommitSink {
		opts["sink.partition-commit.policy.kind"] = "success-file"
		opts["sink.partition-commit.delay"] = "30 ms"
	}
	return factory.Table{Name: name, Schema: schema, Options: opts}
}

func crashChild(dir string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	rows, err := strconv.ParseInt(os.Getenv(crashRowsEnv), 10, 64)
	if err != nil {
		return fail(err)
	}
	rate, err := strconv.ParseInt(os.Getenv(crashRateEnv), 10, 64)
	if err != nil {
		return fail(err)
	}
	faults, err := testkit.FaultsFromEnv()
	if err != nil {
		return fail(err)
	}
	ctx := context.Background()
	reg := factory.Default.Clone()
	src, _, err := reg.CreateSource(ctx, crashGenTable(rows, rate))
	if err != nil {
		return fail(err)
	}
	var sinks []runtime.SinkSpec
	for _, name := range crashSinks {
		sink, _, err := reg.CreateSink(ctx, crashOutTable(dir, name, rows))
		if err != nil {
			return fail(err)
		}
		sinks = append(sinks, runtime.SinkSpec{Name: name, Sink: sink, Parallelism: 2})
	}
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 10 * time.Millisecond
	cfg.Checkpoint.Dir = filepath.Join(dir, "checkpoints")
	cfg.Checkpoint.Retention = jobconfig.RetainOnCancellation
	cfg.Restart.Strategy = jobconfig.RestartNone
	spec := runtime.JobSpec{
		Name:   "fsjob",
		Config: cfg,
		Pipelines: []runtime.Pipeline{{
			Name:    "main",
			Sources: []runtime.SourceSpec{{Name: "gen", Source: src, Parallelism: 2}},
			Sinks:   sinks,
		}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if faults != nil {
		spec.Faults = faults
	}
	j, err := runtime.NewJob(spec)
	if err != nil {
		return fail(err)
	}
	runCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := j.Run(runCtx); err != nil {
		return fail(err)
	}
	return 0
}

// crashRig runs the crash job in child processes over one directory.
type crashRig struct {
	dir        string
	rows, rate int64
}

// run runs the job in a child process, SIGKILLing it after killAfter when
// that is positive. It reports whether the child died of SIGKILL.
//
// A run with fault rules generates at a tenth of the rate, so that its
// input lasts (2 s for the CI rig) well past the checkpoints the rules
// wait for even when checkpoints are slow (-race, a loaded machine):
// at the full rate the job could end before a rule's third checkpoint
// committed, and the child was not killed. The rows, and so what verify
// expects, do not depend on the rate; a rule fires within the first
// checkpoints, so the slower input costs no time.
func (r crashRig) run(t *testing.T, faults string, killAfter time.Duration) (killed bool) {
	t.Helper()
	rate := r.rate
	if faults != "" {
		rate = max(1, rate/10)
	}
	return crashtest.Run(t, crashtest.Spec{Role: "crash", Env: []string{crashDirEnv + "=" + r.dir,
		crashRowsEnv + "=" + strconv.FormatInt(r.rows, 10), crashRateEnv + "=" + strconv.FormatInt(rate, 10),
		testkit.FaultsEnv + "=" + faults}}, killAfter)
}

// finish runs the job without faults until it ends.
func (r crashRig) finish(t *testing.T) {
	t.Helper()
	if r.run(t, "", 0) {
		t.Fatal("child killed without a fault")
	}
}

// verify checks that the committed files hold exactly the rows datagen
// generates, each once, and that no in-progress file is left.
func (r crashRig) verify(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	reg := factory.Default.Clone()
	gen, _, err := reg.CreateSource(ctx, crashGenTable(r.rows, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := drain(t, openAll(t, gen), crashTypes)
	slices.Sort(want)
	for _, name := range crashSinks {
		r.verifySink(t, name, want)
	}
}

// verifySink checks one sink's committed files against want (sorted).
func (r crashRig) verifySink(t *testing.T, name string, want []string) {
	t.Helper()
	src, _, err := factory.Default.Clone().CreateSource(context.Background(), crashOutTable(r.dir, name, r.rows))
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, openAll(t, src), crashTypes)
	if n := src.(*filesystem.Source).Skipped(); n != 0 {
		t.Errorf("%s: %d committed records were skipped", name, n)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		seen := map[string]int{}
		for _, g := range got {
			seen[g]++
		}
		var dup, missing []string
		for _, w := range want {
			switch seen[w] {
			case 0:
				missing = append(missing, w)
			case 1:
			default:
				dup = append(dup, w)
			}
			delete(seen, w)
		}
		t.Fatalf("%s: committed %d rows, generated %d: %d missing (first %q), %d duplicated (first %q), %d unexpected",
			name, len(got), len(want), len(missing), missing[:min(2, len(missing))], len(dup), dup[:min(2, len(dup))], len(seen))
	}
	var left []string
	err = filepath.WalkDir(filepath.Join(r.dir, name), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".inprogress") {
			left = append(left, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Fatalf("%s: in-progress files left after the job finished: %v", name, left)
	}
	r.verifyPartitionCommits(t, name)
}

// verifyPartitionCommits checks that every partition of the committing
// sink has its success file once the job finished (the end of the input
// commits every pending one), that its commit state holds nothing
// pending, and that the other sink wrote no success file.
func (r crashRig) verifyPartitionCommits(t *testing.T, name string) {
	t.Helper()
	root := filepath.Join(r.dir, name)
	parts, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range parts {
		if !p.IsDir() || !strings.HasPrefix(p.Name(), "bucket=") {
			continue
		}
		n++
		_, err := os.Stat(filepath.Join(root, p.Name(), "_SUCCESS"))
		if name == crashCommitSink && err != nil {
			t.Errorf("%s: partition %s has no success file after the job finished: %v", name, p.Name(), err)
		}
		if name != crashCommitSink && err == nil {
			t.Errorf("%s: partition %s has a success file, but the table has no commit policy", name, p.Name())
		}
	}
	if n == 0 {
		t.Fatalf("%s: no partition directory", name)
	}
	if name != crashCommitSink {
		return
	}
	states, _ := filepath.Glob(filepath.Join(root, "_streamsql-partitions-*.json"))
	if len(states) != 1 {
		t.Fatalf("%s: partition commit state files %v, want one", name, states)
	}
	b, err := os.ReadFile(states[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"pending":{}`) {
		t.Errorf("%s: partitions still pending after the job finished: %s", name, b)
	}
}

// TestCrashAtFailurePoints SIGKILLs the job at each failure point of the
// runtime, three times each at different hits, restarts it until it
// finishes, and checks the committed files hold every row exactly once.
func TestCrashAtFailurePoints(t *testing.T) {
	for _, p := range runtime.FaultPoints() {
		if p.OperatorState() {
			continue // the job has no stateful operator: never reached
		}
		for at := 1; at <= 3; at++ {
			t.Run(fmt.Sprintf("%s@%d", p, at), func(t *testing.T) {
				r := crashRig{dir: t.TempDir(), rows: 3000, rate: 15000}
				rule := fmt.Sprintf("%s@%d:kill", p, at)
				switch p {
				case runtime.DuringRecovery:
					// Die once after a checkpoint, then again while
					// recovering from it.
					if !r.run(t, fmt.Sprintf("%s@%d:kill", runtime.AfterCheckpointWritten, at), 0) {
						t.Fatal("child was not killed after a checkpoint was written")
					}
					rule = fmt.Sprintf("%s@1:kill", p)
				case runtime.CommitDelay:
					// Hold the commit back for several intervals, then die.
					rule = fmt.Sprintf("%s@%d:kill:60ms", p, at)
				}
				if !r.run(t, rule, 0) {
					t.Fatalf("child was not killed at %s", rule)
				}
				r.finish(t)
				r.verify(t)
			})
		}
	}
}

// TestCrashAtRandomTimes SIGKILLs the job at random times, restarting it
// after each kill, then lets it finish and checks the files.
// STREAMSQL_SOAK=1 makes it a soak of 100 kills over more rows.
func TestCrashAtRandomTimes(t *testing.T) {
	kills, r := 6, crashRig{dir: t.TempDir(), rows: 6000, rate: 15000}
	if os.Getenv("STREAMSQL_SOAK") == "1" {
		kills, r.rows, r.rate = 100, 400000, 50000
	}
	rng := crashtest.Rand(t, 1)
	// A lister watches the output while the children run and die: every
	// file it can see must be complete and never change.
	stop := make(chan struct{})
	stopLister := sync.OnceFunc(func() { close(stop) })
	defer stopLister() // also when a run fails the test
	listed := make(chan error, 1)
	go func() { listed <- listComplete(r.dir, stop) }()
	got, runs := killRandomly(t, kills, func() bool {
		return r.run(t, "", time.Duration(20+rng.IntN(180))*time.Millisecond)
	})
	r.finish(t)
	stopLister()
	if err := <-listed; err != nil {
		t.Fatal(err)
	}
	r.verify(t)
	t.Logf("%d SIGKILLs in %d runs; committed files hold every row exactly once", got, runs)
	if os.Getenv("STREAMSQL_SOAK") == "1" && got < kills {
		t.Fatalf("only %d kills before the job finished", got)
	}
}

// killRandomly calls run, which runs a child and SIGKILLs it at a random
// moment, until the child has been killed kills times or one run ends
// without a kill (the job finished). It returns the kills and the runs,
// and fails t when the job finished before the first kill: nothing was
// tested then.
func killRandomly(t *testing.T, kills int, run func() (killed bool)) (got, runs int) {
	t.Helper()
	for got < kills {
		runs++
		if !run() {
			break // the job finished before the kill
		}
		got++
	}
	if got == 0 {
		t.Fatal("the job finished before the first kill: no SIGKILL was tested")
	}
	return got, runs
}

// listComplete lists the sinks' directories until stop is closed and
// returns an error when a visible (not hidden) file is incomplete — empty
// or not ending with a line break — or changes after it was first seen.
func listComplete(dir string, stop <-chan struct{}) error {
	seen := map[string]int64{} // size of each file seen
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			if len(seen) == 0 {
				return errors.New("the lister saw no committed file")
			}
			return nil
		case <-tick.C:
		}
		for _, name := range crashSinks {
			err := filepath.WalkDir(filepath.Join(dir, name), func(p string, d fs.DirEntry, err error) error {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				if err != nil {
					return err
				}
				if d.IsDir() || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
					return nil // hidden: in-progress files, success files, the commit state
				}
				if prev, ok := seen[p]; ok {
					info, err := d.Info()
					if err != nil {
						return err
					}
					if info.Size() != prev {
						return fmt.Errorf("%s changed size from %d to %d after it became visible", p, prev, info.Size())
					}
					return nil
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if len(b) == 0 || b[len(b)-1] != '\n' {
					return fmt.Errorf("%s is visible but incomplete (%d bytes)", p, len(b))
				}
				seen[p] = int64(len(b))
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
}
