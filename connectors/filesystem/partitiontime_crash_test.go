package filesystem_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// The partition-time crash test: a child process (role "ptime") runs a
// job file whose two source tasks generate a row every 10 minutes of
// event time (WATERMARK FOR ts AS ts) into an hourly partitioned
// filesystem table, two sink tasks, committed by partition time with
// Flink's hourly settings (a success file once the least watermark of the
// checkpoint's tasks is past the hour's start plus an hour). The parent
// SIGKILLs it at the runtime's fault points in turn and at random moments.
// After every kill, each partition with a success file must hold all of
// its hour's rows, each once — a partition is committed only when its
// files are, and a restored job does not lose or repeat what it had
// committed — and at the end every row is committed once and every
// partition has its success file.
const (
	ptimeJobEnv = "STREAMSQL_FS_PTIME_JOB"
	ptimeRole   = "ptime"
)

// ptimeRowsPerHour is the rows of one hour's partition (one every 10
// minutes).
const ptimeRowsPerHour = 6

// ptimeJob returns the job file: rows ids 0..rows-1 at rate rows/s.
func ptimeJob(ckpt, out string, rows, rate int) string {
	return fmt.Sprintf(`SET 'execution.checkpointing.interval' = '50 ms';
SET 'execution.checkpointing.dir' = '%s';
SET 'table.local-time-zone' = 'UTC';
SET 'restart-strategy.type' = 'none';
CREATE TABLE gen (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 600000, 3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'datagen', 'rows-per-second' = '%d', 'number-of-rows' = '%d', 'scan.parallelism' = '2',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '%d');
CREATE TABLE out (id BIGINT, dt STRING, hr STRING) PARTITIONED BY (dt, hr) WITH (
  'connector' = 'filesystem', 'path' = '%s', 'format' = 'csv', 'sink.parallelism' = '2',
  'sink.rolling-policy.file-size' = '64b',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.delay' = '1 h',
  'sink.partition-commit.policy.kind' = 'success-file',
  'partition.time-extractor.timestamp-pattern' = '$dt $hr:00:00');
INSERT INTO out SELECT id, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH') FROM gen;
`, ckpt, rate, rows, rows-1, out)
}

// ptimeChild runs the job file of ptimeJobEnv with the faults of
// testkit.FaultsEnv; it exits 0 when the job finished.
func ptimeChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "ptime child:", err); return 3 }
	faults, err := testkit.FaultsFromEnv()
	if err != nil {
		return fail(err)
	}
	var fi runtime.FaultInjector
	if faults != nil {
		fi = faults
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := job.Compile(ctx, "ptime.sql", os.Getenv(ptimeJobEnv), job.Options{JobName: "ptime",
		Logger: slog.New(slog.DiscardHandler), Testing: job.Testing{Faults: fi}})
	if err != nil {
		return fail(err)
	}
	if err := j.Run(ctx); err != nil {
		return fail(err)
	}
	return 0
}

// checkCommittedPartitions checks that every partition with a success
// file under out holds exactly its hour's rows (ids unique, each in its
// hour: partitionTimeOutput), and, when final, that every row of 0..rows-1
// is committed and every partition has its success file. It returns the
// number of committed partitions.
func checkCommittedPartitions(t *testing.T, out string, rows int, final bool) int {
	t.Helper()
	ids, committed := partitionTimeOutput(t, out)
	perHour := map[int64]int{}
	for i, id := range ids {
		if i > 0 && ids[i-1] == id {
			t.Fatalf("id %d committed twice", id)
		}
		perHour[id*600000/3600000*3600000]++
	}
	n := 0
	for hour, c := range committed {
		want := ptimeRowsPerHour
		if last := int64(rows-1) * 600000 / 3600000 * 3600000; hour == last {
			want = (rows-1)%ptimeRowsPerHour + 1
		}
		switch {
		case c && perHour[hour] != want:
			t.Fatalf("partition %s has its success file but %d of its %d rows", time.UnixMilli(hour).UTC().Format("2006-01-02 15h"), perHour[hour], want)
		case c:
			n++
		case final:
			t.Errorf("partition %s has no success file after the job finished", time.UnixMilli(hour).UTC().Format("2006-01-02 15h"))
		}
	}
	if final && len(ids) != rows {
		t.Fatalf("%d rows committed, want %d", len(ids), rows)
	}
	return n
}

// TestPartitionTimeCrash SIGKILLs the partition-time job at every fault
// point of the two-phase commit in turn (at a random hit each) and twice
// at random moments, checking the committed partitions after every kill,
// then runs it to its end. STREAMSQL_SOAK=1 runs each point three times
// over more rows.
func TestPartitionTimeCrash(t *testing.T) {
	rng := crashtest.Rand(t, 29)
	rows, rate, rounds := 1500, 500, 1
	if os.Getenv("STREAMSQL_SOAK") == "1" {
		rows, rate, rounds = 6000, 500, 3
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	env := []string{ptimeJobEnv + "=" + ptimeJob(filepath.Join(dir, "checkpoints"), out, rows, rate)}
	run := func(faults string, killAfter time.Duration) bool {
		t.Helper()
		return crashtest.Run(t, crashtest.Spec{Role: ptimeRole, Env: append(env, testkit.FaultsEnv+"="+faults)}, killAfter)
	}
	var points []string
	for _, p := range runtime.FaultPoints() {
		// No stateful operator, and one sink: the points of operator
		// state and the one between two sinks' commits are never reached.
		if !p.OperatorState() && p != runtime.BetweenSinkCommits {
			points = append(points, string(p))
		}
	}
	var kills []string
	committedMax := 0
	for range rounds {
		for _, p := range points {
			at := 1 + rng.IntN(3)
			rule := fmt.Sprintf("%s@%d:kill", p, at)
			switch runtime.FaultPoint(p) {
			case runtime.DuringRecovery:
				if !run(fmt.Sprintf("%s@%d:kill", runtime.AfterCheckpointWritten, at), 0) {
					t.Fatalf("the job finished before %s@%d (kills so far: %s)", runtime.AfterCheckpointWritten, at, strings.Join(kills, ", "))
				}
				rule = p + "@1:kill"
			case runtime.CommitDelay:
				rule += ":150ms"
			}
			if !run(rule, 0) {
				t.Fatalf("the job finished before %s (kills so far: %s)", rule, strings.Join(kills, ", "))
			}
			kills = append(kills, rule)
			committedMax = max(committedMax, checkCommittedPartitions(t, out, rows, false))
		}
	}
	for range 2 {
		if !run("", time.Duration(150+rng.IntN(400))*time.Millisecond) {
			break
		}
		kills = append(kills, "random")
		checkCommittedPartitions(t, out, rows, false)
	}
	t.Logf("killed at %s; up to %d partitions committed between kills", strings.Join(kills, ", "), committedMax)
	if committedMax == 0 {
		t.Fatal("no partition was committed before the last run: the kills never fell between partition commits")
	}
	if run("", 0) {
		t.Fatal("the job was killed without a fault")
	}
	if n := checkCommittedPartitions(t, out, rows, true); n != (rows+ptimeRowsPerHour-1)/ptimeRowsPerHour {
		t.Fatalf("%d partitions committed, want %d", n, (rows+ptimeRowsPerHour-1)/ptimeRowsPerHour)
	}
}
