package filesystem

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// partCols are the columns of the partitioned test table: dt and hm are
// the partition columns, as in Nexmark's q10.
var partCols = []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "dt", Type: types.String()}, {Name: "hm", Type: types.String()}}

func partRow(id int64, dt, hm string) types.Row {
	return types.Row{Fields: []types.Value{types.Int64(id), types.Str(dt), types.Str(hm)}}
}

// partSink returns a sink of partCols partitioned by (dt, hm), committing
// partitions with a success file, and a clock the test moves.
func partSink(t *testing.T, dir string, delay time.Duration) (*Sink, *time.Time) {
	t.Helper()
	cfg := Config{Path: dir, Table: "t", PartitionKeys: []int{1, 2},
		Commit: PartitionCommit{SuccessFile: true, Delay: delay}}
	s, err := NewSink(cfg, partCols, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	return s, &now
}

func success(dir, partition string) bool {
	_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(partition), DefaultSuccessFileName))
	return err == nil
}

// preCommit writes rows through w and pre-commits checkpoint id; it
// returns the committables, the report last.
func preCommit(t *testing.T, w connector.Writer, id int64, rows ...types.Row) []connector.Committable {
	t.Helper()
	if len(rows) > 0 {
		if err := w.Write(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := w.PreCommit(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Fatal("no report")
	}
	var last committable
	if err := json.Unmarshal(cs[len(cs)-1], &last); err != nil || last.Report == nil || last.Report.Checkpoint != id {
		t.Fatalf("the last committable is not the report of checkpoint %d: %s", id, cs[len(cs)-1])
	}
	return cs
}

// TestPartitionCommittedAfterEveryTasksFiles has two tasks write into one
// partition and commits their committables in the runtime's order (task
// 0's files and report, then task 1's): the success file appears only
// with the last report, after every file, never after task 0's report
// alone while task 1's file is still in progress.
func TestPartitionCommittedAfterEveryTasksFiles(t *testing.T) {
	dir := t.TempDir()
	s, _ := partSink(t, dir, 0)
	w0, _ := s.Open(ctx, connector.TaskInfo{Job: "job", Sink: "p/t", Index: 0, Parallelism: 2})
	w1, _ := s.Open(ctx, connector.TaskInfo{Job: "job", Sink: "p/t", Index: 1, Parallelism: 2})
	c0 := preCommit(t, w0, 1, partRow(1, "2024-01-01", "10:00"))
	c1 := preCommit(t, w1, 1, partRow(2, "2024-01-01", "10:00"))
	cm, err := s.ScopedCommitter(ctx, "job", "p/t")
	if err != nil {
		t.Fatal(err)
	}
	const p = "dt=2024-01-01/hm=10%3A00"
	for _, c := range c0 {
		if err := cm.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if success(dir, p) {
		t.Fatal("the partition was committed after task 0's report while task 1's file was not committed")
	}
	for i, c := range c1 {
		if i == len(c1)-1 && success(dir, p) {
			t.Fatal("the partition was committed before task 1's report")
		}
		if err := cm.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if !success(dir, p) {
		t.Fatal("no success file after every task's report")
	}
	if got := readRows(t, dir, Config{PartitionKeys: []int{1, 2}}, partCols); len(got) != 2 {
		t.Fatalf("committed rows %v, want 2", got)
	}
	// The success file is hidden from readers and empty, as Flink's.
	if b, err := os.ReadFile(filepath.Join(dir, "dt=2024-01-01", "hm=10%3A00", "_SUCCESS")); err != nil || len(b) != 0 {
		t.Fatalf("success file: %q, %v", b, err)
	}
	// Committing the same report again (a retry, a recovery) changes
	// nothing and does not fail.
	if err := cm.Commit(ctx, c1[len(c1)-1]); err != nil {
		t.Fatal(err)
	}
}

// TestProcessTimeDelayAndState commits a partition only once the
// committer's clock passed the time it first heard of it plus the delay,
// at a checkpoint after the one that wrote it, also across a restart: the
// pending partition is in the state file when the first committer goes.
func TestProcessTimeDelayAndState(t *testing.T) {
	dir := t.TempDir()
	s, now := partSink(t, dir, time.Minute)
	info := connector.TaskInfo{Job: "job", Sink: "p/t", Index: 0, Parallelism: 1}
	w, _ := s.Open(ctx, info)
	cm, _ := s.ScopedCommitter(ctx, "job", "p/t")
	commitAll := func(cm connector.Committer, cs []connector.Committable) {
		t.Helper()
		for _, c := range cs {
			if err := cm.Commit(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	const p = "dt=2024-01-01/hm=10%3A00"
	commitAll(cm, preCommit(t, w, 1, partRow(1, "2024-01-01", "10:00")))
	if success(dir, p) {
		t.Fatal("committed before the delay")
	}
	*now = now.Add(time.Minute) // not past: Flink commits when now > created + delay
	commitAll(cm, preCommit(t, w, 2))
	if success(dir, p) {
		t.Fatal("committed at exactly the delay")
	}
	// The job dies; a new run's committer recovers the pending partition
	// from the state file and commits it once the delay has passed.
	cm2, _ := s.ScopedCommitter(ctx, "job", "p/t")
	if err := cm2.Recover(ctx, nil); err != nil {
		t.Fatal(err)
	}
	w2, _ := s.Open(ctx, info)
	*now = now.Add(time.Second)
	commitAll(cm2, preCommit(t, w2, 3))
	if !success(dir, p) {
		t.Fatal("not committed after the delay by the restarted committer")
	}
	var st commitState
	b, err := os.ReadFile(filepath.Join(dir, "_streamsql-partitions-"+fileTag("job", "p/t")+".json"))
	if err != nil || json.Unmarshal(b, &st) != nil || len(st.Pending) != 0 {
		t.Fatalf("state file after the commit: %s, %v; want no pending partition", b, err)
	}
	// New rows into a committed partition make it pending again, and it is
	// committed again after the delay (Flink re-commits too).
	if err := os.Remove(filepath.Join(dir, "dt=2024-01-01", "hm=10%3A00", "_SUCCESS")); err != nil {
		t.Fatal(err)
	}
	commitAll(cm2, preCommit(t, w2, 4, partRow(3, "2024-01-01", "10:00")))
	if success(dir, p) {
		t.Fatal("re-committed before the delay")
	}
	*now = now.Add(2 * time.Minute)
	commitAll(cm2, preCommit(t, w2, 5))
	if !success(dir, p) {
		t.Fatal("not re-committed after the delay")
	}
}

// TestEndOfInputCommitsEveryPartition: when every task's input has ended
// (connector.InputEnder), the final checkpoint commits every pending
// partition whatever the delay, as Flink does at the end of a bounded
// input; one task's end alone does not.
func TestEndOfInputCommitsEveryPartition(t *testing.T) {
	dir := t.TempDir()
	s, _ := partSink(t, dir, time.Hour)
	w0, _ := s.Open(ctx, connector.TaskInfo{Job: "job", Sink: "p/t", Index: 0, Parallelism: 2})
	w1, _ := s.Open(ctx, connector.TaskInfo{Job: "job", Sink: "p/t", Index: 1, Parallelism: 2})
	cm, _ := s.ScopedCommitter(ctx, "job", "p/t")
	if err := w0.(connector.InputEnder).EndInput(ctx); err != nil {
		t.Fatal(err)
	}
	cs := append(preCommit(t, w0, 1, partRow(1, "2024-01-01", "10:00"), partRow(2, "2024-01-02", "11:00")),
		preCommit(t, w1, 1, partRow(3, "2024-01-03", "12:00"))...)
	for _, c := range cs {
		if err := cm.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if success(dir, "dt=2024-01-01/hm=10%3A00") {
		t.Fatal("committed with one task's input ended and a delay of an hour")
	}
	_ = w1.(connector.InputEnder).EndInput(ctx)
	cs = append(preCommit(t, w0, 2), preCommit(t, w1, 2)...)
	for _, c := range cs {
		if err := cm.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"dt=2024-01-01/hm=10%3A00", "dt=2024-01-02/hm=11%3A00", "dt=2024-01-03/hm=12%3A00"} {
		if !success(dir, p) {
			t.Errorf("%s not committed at the end of the input", p)
		}
	}
}

// TestNoReportsWithoutPolicy: a partitioned table without a policy, or a
// policy on an unpartitioned table, writes no reports and no success file
// (Flink ignores the policy there too).
func TestNoReportsWithoutPolicy(t *testing.T) {
	for _, cfg := range []Config{
		{PartitionKeys: []int{1, 2}},
		{Commit: PartitionCommit{SuccessFile: true}},
	} {
		dir := t.TempDir()
		cfg.Path, cfg.Table = dir, "t"
		s, err := NewSink(cfg, partCols, csvFormat(t))
		if err != nil {
			t.Fatal(err)
		}
		w, _ := s.Open(ctx, connector.TaskInfo{Job: "job"})
		if err := w.Write(ctx, []types.Row{partRow(1, "2024-01-01", "10:00")}); err != nil {
			t.Fatal(err)
		}
		cs, err := w.PreCommit(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if strings.Contains(string(c), "report") {
				t.Errorf("%+v: a report %s", cfg, c)
			}
		}
	}
}

func TestParsePolicies(t *testing.T) {
	for kind, want := range map[string]bool{"": false, "success-file": true, "SUCCESS-FILE": true} {
		got, err := parsePolicies(kind)
		if err != nil || got != want {
			t.Errorf("parsePolicies(%q) = %v, %v; want %v", kind, got, err, want)
		}
	}
	for kind, msg := range map[string]string{"metastore": "Hive", "metastore,success-file": "Hive", "custom": "not supported yet", "bogus": "unknown policy"} {
		if _, err := parsePolicies(kind); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("parsePolicies(%q) = %v, want an error mentioning %q", kind, err, msg)
		}
	}
}

func TestParseZone(t *testing.T) {
	at := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	for zone, offset := range map[string]int{"UTC": 0, "Z": 0, "GMT-08:00": -8 * 3600, "UTC+8": 8 * 3600, "+05:30": 19800, "Asia/Shanghai": 8 * 3600} {
		loc, err := parseZone(zone)
		if err != nil {
			t.Errorf("%s: %v", zone, err)
			continue
		}
		if _, off := at.In(loc).Zone(); off != offset {
			t.Errorf("%s: offset %d, want %d", zone, off, offset)
		}
	}
	for _, bad := range []string{"Mars/Olympus", "GMT+25", ""} {
		if _, err := parseZone(bad); err == nil {
			t.Errorf("parseZone(%q) accepted", bad)
		}
	}
}

// TestTimeExtractor checks the default extractor's reading of partition
// values (TestFlinkPartitionTimeGolden compares it with Flink's own).
func TestTimeExtractor(t *testing.T) {
	keys := []string{"dt", "hm"}
	for _, c := range []struct {
		pattern, formatter string
		values             []string
		want               string // RFC 3339 in UTC, or "error"
	}{
		{"$dt $hm:00", "", []string{"2024-01-02", "10:30"}, "2024-01-02T10:30:00Z"},
		{"", "", []string{"2024-01-02", "x"}, "2024-01-02T00:00:00Z"},
		{"", "", []string{"2024-1-2 3:4:5", "x"}, "2024-01-02T03:04:05Z"},
		{"", "", []string{"2024-01-02 03:04:05.123", "x"}, "2024-01-02T03:04:05.123Z"},
		{"", "", []string{"2024-13-01", "x"}, "2025-01-01T00:00:00Z"}, // lenient: month 13 rolls over
		{"", "", []string{"2024-01-02 10:30", "x"}, "error"},
		{"", "", []string{"20240102", "x"}, "error"},
		{"$dt$hm", "yyyyMMddHH", []string{"20240102", "07"}, "2024-01-02T07:00:00Z"},
		{"$dt", "yyyyMMdd", []string{"20240102", "07"}, "2024-01-02T00:00:00Z"},
	} {
		e, err := newTimeExtractor(keys, c.pattern, c.formatter)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.extract(c.values)
		s := "error"
		if err == nil {
			s = got.Format(time.RFC3339Nano)
		}
		if s != c.want {
			t.Errorf("pattern %q formatter %q values %v: %s (%v), want %s", c.pattern, c.formatter, c.values, s, err, c.want)
		}
	}
}

// TestPartitionTimeDue checks the partition-time predicate: due once the
// watermark is past the partition's time plus the delay, in the watermark
// time zone; never before a watermark.
func TestPartitionTimeDue(t *testing.T) {
	dir := t.TempDir()
	s, _ := partSink(t, dir, time.Minute)
	s.cfg.Commit.Trigger = triggerPartitionTime
	s.cfg.Commit.TimestampPattern = "$dt $hm:00"
	s.cfg.Commit.WatermarkZone = time.FixedZone("GMT+1", 3600)
	pc, err := newPartitionCommitter(s, "tag")
	if err != nil {
		t.Fatal(err)
	}
	const p = "dt=2024-01-01/hm=10%3A00"
	pt, err := pc.partitionTime(p)
	if err != nil {
		t.Fatal(err)
	}
	// 10:00 at GMT+1 is 09:00 UTC.
	if want := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC).UnixMilli(); pt != want {
		t.Fatalf("partition time %d, want %d", pt, want)
	}
	commitAt := func(ckpt, wm int64) bool {
		t.Helper()
		r := report{Checkpoint: ckpt, Task: 0, Tasks: 1, Partitions: []string{p}, Watermark: wm}
		if err := pc.report(ctx, r); err != nil {
			t.Fatal(err)
		}
		return success(dir, p)
	}
	if commitAt(1, math.MinInt64) || commitAt(2, pt+time.Minute.Milliseconds()) {
		t.Fatal("committed before the watermark passed partition time + delay")
	}
	if !commitAt(3, pt+time.Minute.Milliseconds()+1) {
		t.Fatal("not committed once the watermark passed partition time + delay")
	}
	if len(pc.pending) != 0 {
		t.Fatalf("still pending: %v", pc.pending)
	}
}

// TestPartitionTimeByTasksWatermarks drives the partition-time trigger
// through the writers (connector.WatermarkWriter): a partition is
// committed at the checkpoint whose least task watermark is past its
// time plus the delay, not when only one task's is; the watermark a
// writer reports is the one it had at its pre-commit, never less; and a
// restarted committer commits what the first one left pending.
func TestPartitionTimeByTasksWatermarks(t *testing.T) {
	dir := t.TempDir()
	s, _ := partSink(t, dir, time.Hour)
	s.cfg.Commit.Trigger = triggerPartitionTime
	s.cfg.Commit.TimestampPattern = "$dt $hm:00"
	open := func(i int) connector.Writer {
		t.Helper()
		w, err := s.Open(ctx, connector.TaskInfo{Job: "job", Sink: "p/t", Index: i, Parallelism: 2})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w0, w1 := open(0), open(1)
	watermark := func(w connector.Writer, at string) {
		t.Helper()
		ts, err := time.Parse("2006-01-02 15:04:05", at)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.(connector.WatermarkWriter).Watermark(ctx, ts.UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(cm connector.Committer, cs []connector.Committable) {
		t.Helper()
		for _, c := range cs {
			if err := cm.Commit(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	cm, _ := s.ScopedCommitter(ctx, "job", "p/t")
	const p10, p11 = "dt=2024-01-01/hm=10%3A00", "dt=2024-01-01/hm=11%3A00"
	// Checkpoint 1: both partitions written; task 0 is past 10:00 + 1 h,
	// task 1 is not.
	watermark(w0, "2024-01-01 11:30:00")
	watermark(w1, "2024-01-01 10:59:59")
	commit(cm, append(preCommit(t, w0, 1, partRow(1, "2024-01-01", "10:00")), preCommit(t, w1, 1, partRow(2, "2024-01-01", "11:00"))...))
	if success(dir, p10) || success(dir, p11) {
		t.Fatal("committed by one task's watermark while the other's is behind")
	}
	// Checkpoint 2: task 1 reaches exactly 10:00 + 1 h (not past), and an
	// older watermark does not take task 0's back.
	watermark(w1, "2024-01-01 11:00:00")
	watermark(w0, "2024-01-01 09:00:00")
	commit(cm, append(preCommit(t, w0, 2), preCommit(t, w1, 2)...))
	if success(dir, p10) {
		t.Fatal("committed at exactly partition time + delay (Flink commits once the watermark is past it)")
	}
	// Checkpoint 3: both past 10:00 + 1 h, neither past 11:00 + 1 h.
	watermark(w1, "2024-01-01 11:00:01")
	commit(cm, append(preCommit(t, w0, 3), preCommit(t, w1, 3)...))
	if !success(dir, p10) {
		t.Fatal("10:00 not committed once every task's watermark passed 11:00")
	}
	if success(dir, p11) {
		t.Fatal("11:00 committed before any watermark passed 12:00")
	}
	// The job dies: a new run's committer and writers go on from the state
	// file and commit 11:00 once their watermarks pass 12:00.
	cm2, _ := s.ScopedCommitter(ctx, "job", "p/t")
	if err := cm2.Recover(ctx, nil); err != nil {
		t.Fatal(err)
	}
	w0, w1 = open(0), open(1)
	commit(cm2, append(preCommit(t, w0, 4), preCommit(t, w1, 4)...))
	if success(dir, p11) {
		t.Fatal("11:00 committed by a restarted run before any watermark")
	}
	watermark(w0, "2024-01-01 12:00:01")
	watermark(w1, "2024-01-01 12:30:00")
	commit(cm2, append(preCommit(t, w0, 5), preCommit(t, w1, 5)...))
	if !success(dir, p11) {
		t.Fatal("11:00 not committed by the restarted run once the watermarks passed 12:00")
	}
}

// TestFlinkPartitionTimeGolden compares the extractor with what Flink's
// own DefaultPartTimeExtractor gives for the same partitions
// (testdata/flink/parttime.txt, written by tools/flink-formats-gen).
func TestFlinkPartitionTimeGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "flink", "parttime.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("bad golden line %q", line)
		}
		pattern, formatter := f[0], f[1]
		if pattern == "-" {
			pattern = ""
		}
		if formatter == "-" {
			formatter = ""
		}
		e, err := newTimeExtractor([]string{"dt", "hm"}, pattern, formatter)
		if err != nil {
			t.Fatal(err)
		}
		got := "error"
		if tm, err := e.extract(strings.SplitN(f[2], ",", 2)); err == nil {
			got = javaLocalDateTime(tm)
		}
		if got != f[3] {
			t.Errorf("pattern %q formatter %q values %s: %s, Flink %s", pattern, formatter, f[2], got, f[3])
		}
		n++
	}
	if n < 20 {
		t.Fatalf("%d golden cases", n)
	}
}

// javaLocalDateTime formats t as Java's LocalDateTime.toString does:
// seconds only when not zero (or a fraction follows), the fraction in
// groups of three digits.
func javaLocalDateTime(t time.Time) string {
	s := t.Format("2006-01-02T15:04")
	if t.Second() == 0 && t.Nanosecond() == 0 {
		return s
	}
	s += t.Format(":05")
	switch ns := t.Nanosecond(); {
	case ns == 0:
	case ns%1_000_000 == 0:
		s += "." + strconv.Itoa(ns/1_000_000 + 1000)[1:]
	case ns%1000 == 0:
		s += "." + strconv.Itoa(ns/1000 + 1_000_000)[1:]
	default:
		s += "." + strconv.Itoa(ns + 1_000_000_000)[1:]
	}
	return s
}

// TestS3PartitionCommit commits partitions of an s3:// table: the success
// object appears with the last task's report, and the commit state (an
// object at the table's root) carries a pending partition to a restarted
// committer.
func TestS3PartitionCommit(t *testing.T) {
	srv, loc, cfg := s3Dir(t)
	cfg.Table, cfg.PartitionKeys = "t", []int{1, 2}
	cfg.Commit = PartitionCommit{SuccessFile: true, Delay: time.Minute}
	s, err := NewSink(cfg, partCols, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	info := connector.TaskInfo{Job: "job", Sink: "p/t", Index: 0, Parallelism: 1}
	w, _ := s.Open(ctx, info)
	cm, _ := s.ScopedCommitter(ctx, "job", "p/t")
	for _, c := range preCommit(t, w, 1, partRow(1, "2024-01-01", "10:00")) {
		if err := cm.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	const okKey = "dt=2024-01-01/hm=10%3A00/_SUCCESS"
	has := func(key string) bool {
		return slices.Contains(srv.Keys(t, loc), key)
	}
	if has(okKey) {
		t.Fatal("committed before the delay")
	}
	stateKey := "_streamsql-partitions-" + fileTag("job", "p/t") + ".json"
	if !has(stateKey) {
		t.Fatalf("no commit state object; objects: %v", srv.Keys(t, loc))
	}
	cm2, _ := s.ScopedCommitter(ctx, "job", "p/t")
	if err := cm2.Recover(ctx, nil); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	w2, _ := s.Open(ctx, info)
	for _, c := range preCommit(t, w2, 2) {
		if err := cm2.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if !has(okKey) {
		t.Fatalf("no success object after the delay; objects: %v", srv.Keys(t, loc))
	}
	if got := readRows(t, loc.String(), Config{S3: cfg.S3, PartitionKeys: []int{1, 2}}, partCols); len(got) != 1 {
		t.Fatalf("rows read back %v, want 1 (the success and state objects are hidden)", got)
	}
}
