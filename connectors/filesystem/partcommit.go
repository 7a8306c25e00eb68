package filesystem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/internal/javatime"
)

// Partition commit (sink.partition-commit.*): telling readers that a
// partition is complete, as Flink's filesystem sink does, by writing a
// success file into its directory. Files are committed as before, at each
// checkpoint; a partition is committed on top of that, when its trigger
// says it is ready, and only after every file of it that any sink task
// pre-committed up to then is committed.
//
// How: each writer of a partitioned table with a commit policy ends what
// PreCommit returns with a report (a committable of its own): the
// partitions it rolled files into since the last one, its watermark, and
// whether its input has ended. The runtime commits a checkpoint's
// committables in the order of (checkpoint, task, position), so when the
// committer has received the reports of every task of a checkpoint, every
// file of that checkpoint, and of the earlier ones, has been committed
// before them. Only then does it look at its pending partitions and
// commit those whose trigger is due: process-time, when the committer's
// clock passed the time it first heard of the partition plus the delay;
// partition-time, when the checkpoint's watermark (the least of the tasks')
// passed the time in the partition's values plus the delay; every pending
// one when every task's input has ended. This is Flink's PartitionCommitter,
// with the runtime's ordered commits in place of its single committer task.
//
// The pending partitions and their creation times are the committer's
// state: it writes them to a hidden file at the table's root
// ("_streamsql-partitions-<tag>.json", a local file replaced atomically or
// an object) before it acknowledges a report that changed them, and reads
// them back when a restarted job commits again, so a crash between a
// partition's files and its success file loses nothing.

// Partition commit triggers (sink.partition-commit.trigger).
const (
	triggerProcessTime   = "process-time"
	triggerPartitionTime = "partition-time"
)

// DefaultSuccessFileName is sink.partition-commit.success-file.name's
// default.
const DefaultSuccessFileName = "_SUCCESS"

// PartitionCommit configures the sink's partition commit; it is active
// when the table is partitioned and SuccessFile is set (a policy is
// configured), as in Flink.
type PartitionCommit struct {
	// Trigger is sink.partition-commit.trigger: "process-time" (the
	// default) or "partition-time".
	Trigger string
	// Delay is sink.partition-commit.delay.
	Delay time.Duration
	// SuccessFile is set when sink.partition-commit.policy.kind lists
	// success-file; SuccessFileName is the file's name.
	SuccessFile     bool
	SuccessFileName string
	// WatermarkZone is sink.partition-commit.watermark-time-zone: the zone
	// in which a partition's time is an instant, to compare with
	// watermarks (UTC by default).
	WatermarkZone *time.Location
	// TimestampPattern and TimestampFormatter are
	// partition.time-extractor.timestamp-pattern and -formatter.
	TimestampPattern, TimestampFormatter string
}

// active reports whether partitions are committed: a policy is set and
// the table is partitioned.
func (pc PartitionCommit) active(partitionKeys []int) bool {
	return pc.SuccessFile && len(partitionKeys) > 0
}

// parsePolicies reads sink.partition-commit.policy.kind: a comma-separated
// list of metastore, success-file and custom, as Flink reads it
// (case-insensitive). Only success-file is supported.
func parsePolicies(kind string) (successFile bool, err error) {
	if kind == "" {
		return false, nil
	}
	for p := range strings.SplitSeq(kind, ",") {
		switch strings.ToLower(strings.TrimSpace(p)) {
		case "success-file":
			successFile = true
		case "metastore":
			return false, fmt.Errorf("%w: 'sink.partition-commit.policy.kind' = '%s': a 'metastore' policy needs a Hive table's metastore; "+
				"a filesystem table's partitions are its directories (use success-file)", ErrConfig, kind)
		case "custom":
			return false, fmt.Errorf("%w: 'sink.partition-commit.policy.kind' = '%s': custom partition commit policies are not supported yet (use success-file)", ErrConfig, kind)
		default:
			return false, fmt.Errorf("%w: 'sink.partition-commit.policy.kind' = '%s': unknown policy %q (supported: success-file)", ErrConfig, kind, strings.TrimSpace(p))
		}
	}
	return successFile, nil
}

// parseZone reads a time zone as Java's ZoneId.of does for the forms
// people write: a region ("Asia/Shanghai"), "UTC", "Z", or an offset, bare
// or after UTC, GMT or UT ("+08:00", "GMT-08:00", "UTC+8").
func parseZone(s string) (*time.Location, error) {
	switch s {
	case "":
		return nil, errors.New("empty time zone")
	case "UTC", "Z", "GMT", "UT":
		return time.UTC, nil
	}
	off := s
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if rest, ok := strings.CutPrefix(s, p); ok && rest != "" {
			off = rest
			break
		}
	}
	if m := zoneOffset.FindStringSubmatch(off); m != nil {
		h, _ := strconv.Atoi(m[2])
		mins := 0
		if m[3] != "" {
			mins, _ = strconv.Atoi(m[3])
		}
		if h > 18 || mins > 59 {
			return nil, fmt.Errorf("time zone %q: offset out of range", s)
		}
		secs := h*3600 + mins*60
		if m[1] == "-" {
			secs = -secs
		}
		return time.FixedZone(s, secs), nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", s, err)
	}
	return loc, nil
}

var zoneOffset = regexp.MustCompile(`^([+-])(\d{1,2})(?::?(\d{2}))?$`)

// timeExtractor is Flink's default partition time extractor
// (partition.time-extractor.kind = 'default'): the timestamp pattern with
// each "$column" replaced by the partition's value (or, without a
// pattern, the first partition value), read with the timestamp formatter
// (a Java date-time pattern) or, without one, as "yyyy-M-d[ H:m:s[.f]]"
// with lenient field values, a date alone being midnight.
type timeExtractor struct {
	keys      []string // the partition columns, in order
	pattern   string
	formatter *javatime.Pattern // nil: the default form
}

func newTimeExtractor(keys []string, pattern, formatter string) (*timeExtractor, error) {
	e := &timeExtractor{keys: keys, pattern: pattern}
	if formatter != "" {
		p, err := javatime.Compile(formatter)
		if err != nil {
			return nil, fmt.Errorf("%w: 'partition.time-extractor.timestamp-formatter' = '%s': %v", ErrConfig, formatter, err)
		}
		e.formatter = p
	}
	return e, nil
}

// extract returns the local date-time of a partition from its values, as
// a time in UTC whose clock reads it.
func (e *timeExtractor) extract(values []string) (time.Time, error) {
	s := values[0]
	if e.pattern != "" {
		s = e.pattern
		for i, k := range e.keys {
			s = strings.ReplaceAll(s, "$"+k, values[i])
		}
	}
	if e.formatter != nil {
		f, ok := e.formatter.Parse(s)
		if !ok {
			return time.Time{}, fmt.Errorf("partition time %q does not match 'partition.time-extractor.timestamp-formatter'", s)
		}
		return f.LocalTime(), nil
	}
	m := defaultPartTime.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, fmt.Errorf("partition time %q is neither yyyy-MM-dd nor yyyy-MM-dd HH:mm:ss[.fraction] (set 'partition.time-extractor.timestamp-pattern' or -formatter)", s)
	}
	n := func(i int) int {
		v, _ := strconv.Atoi(m[i])
		return v
	}
	nanos := 0
	if m[7] != "" {
		frac := m[7] + strings.Repeat("0", 9-len(m[7]))
		nanos, _ = strconv.Atoi(frac)
	}
	// Field values out of range roll over, as Java's lenient resolver does.
	return time.Date(n(1), time.Month(n(2)), n(3), n(4), n(5), n(6), nanos, time.UTC), nil
}

var defaultPartTime = regexp.MustCompile(`^(\d{1,10})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?)?$`)

// partitionValues splits a partition directory ("a=1/b=x%3Ay") into its
// values, unescaped, in the order of the partition columns.
func partitionValues(dir string) []string {
	var out []string
	for seg := range strings.SplitSeq(dir, "/") {
		_, v, _ := strings.Cut(seg, "=")
		out = append(out, unescapePartitionValue(v))
	}
	return out
}

// report is what a writer tells the committer at each checkpoint when
// partitions are committed: one per task and checkpoint, committed after
// the task's files of that checkpoint.
type report struct {
	Checkpoint int64 `json:"checkpoint"`
	Task       int   `json:"task"`
	Tasks      int   `json:"tasks"`
	// Partitions are the partition directories the task rolled files
	// into since its last report.
	Partitions []string `json:"partitions,omitempty"`
	// Watermark is the task's event-time watermark at the barrier
	// (math.MinInt64 before any).
	Watermark int64 `json:"watermark"`
	// Ended is set when the task's input has ended for good.
	Ended bool `json:"ended,omitempty"`
}

// commitState is the committer's state file.
type commitState struct {
	Version int `json:"version"`
	// Pending maps each partition not yet committed to the time (ms since
	// the epoch) the committer first heard of it.
	Pending map[string]int64 `json:"pending"`
}

// checkpointReports collects the reports of one checkpoint.
type checkpointReports struct {
	tasks     int
	seen      map[int]bool
	watermark int64
	ended     int
}

// partitionCommitter commits the partitions of one sink (one tag): the
// committer's part for reports.
type partitionCommitter struct {
	sink *Sink
	tag  string
	ext  *timeExtractor

	mu      sync.Mutex
	loaded  bool
	dirty   bool // pending changed since the state file was written
	pending map[string]int64
	reports map[int64]*checkpointReports
}

func newPartitionCommitter(s *Sink, tag string) (*partitionCommitter, error) {
	keys := make([]string, len(s.cfg.PartitionKeys))
	for i, k := range s.cfg.PartitionKeys {
		keys[i] = s.columns[k].Name
	}
	ext, err := newTimeExtractor(keys, s.cfg.Commit.TimestampPattern, s.cfg.Commit.TimestampFormatter)
	if err != nil {
		return nil, err
	}
	return &partitionCommitter{sink: s, tag: tag, ext: ext, pending: map[string]int64{}, reports: map[int64]*checkpointReports{}}, nil
}

// stateFile is the state file's path relative to the table's root.
func (pc *partitionCommitter) stateFile() string {
	return "_streamsql-partitions-" + pc.tag + ".json"
}

// load reads the state file once.
func (pc *partitionCommitter) load(ctx context.Context) error {
	if pc.loaded {
		return nil
	}
	b, err := pc.sink.st.readSmall(ctx, pc.stateFile())
	if errors.Is(err, fs.ErrNotExist) {
		pc.loaded = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("filesystem sink: reading the partition commit state: %w", err)
	}
	var st commitState
	if err := json.Unmarshal(b, &st); err != nil || st.Version != 1 {
		return fmt.Errorf("filesystem sink: partition commit state %s in %s is damaged (%v); delete it to start afresh "+
			"(pending partitions then get their success file when they next receive rows)", pc.stateFile(), pc.sink.st, err)
	}
	for p, t := range st.Pending {
		if _, ok := pc.pending[p]; !ok {
			pc.pending[p] = t
		}
	}
	pc.loaded = true
	return nil
}

// save writes the state file when pending changed.
func (pc *partitionCommitter) save(ctx context.Context) error {
	if !pc.dirty {
		return nil
	}
	b, err := json.Marshal(commitState{Version: 1, Pending: pc.pending})
	if err != nil {
		return err
	}
	if err := pc.sink.st.writeAtomic(ctx, pc.stateFile(), b); err != nil {
		return fmt.Errorf("filesystem sink: writing the partition commit state: %w", err)
	}
	pc.dirty = false
	return nil
}

// report handles one task's report: its partitions become pending, and
// when every task of the checkpoint has reported, the due partitions are
// committed. It is idempotent: a report committed again (a retry, or a
// recovery of a checkpoint whose commits were not all acknowledged) adds
// nothing.
func (pc *partitionCommitter) report(ctx context.Context, r report) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if err := pc.load(ctx); err != nil {
		return err
	}
	now := pc.sink.now().UnixMilli()
	for _, p := range r.Partitions {
		if _, ok := pc.pending[p]; !ok {
			pc.pending[p] = now
			pc.dirty = true
		}
	}
	cr := pc.reports[r.Checkpoint]
	if cr == nil {
		cr = &checkpointReports{tasks: max(1, r.Tasks), seen: map[int]bool{}, watermark: math.MaxInt64}
		pc.reports[r.Checkpoint] = cr
	}
	if !cr.seen[r.Task] {
		cr.seen[r.Task] = true
		cr.watermark = min(cr.watermark, r.Watermark)
		if r.Ended {
			cr.ended++
		}
	}
	if len(cr.seen) >= cr.tasks {
		// Every file of this checkpoint and the earlier ones is committed:
		// the reports of earlier checkpoints still waiting are settled too.
		for id := range pc.reports {
			if id <= r.Checkpoint {
				delete(pc.reports, id)
			}
		}
		if err := pc.commitDue(ctx, now, cr.watermark, cr.ended >= cr.tasks); err != nil {
			return err
		}
	}
	return pc.save(ctx)
}

// commitDue commits the pending partitions whose trigger is due at now
// (process-time) or watermark (partition-time), or all of them when the
// input ended.
func (pc *partitionCommitter) commitDue(ctx context.Context, now, watermark int64, ended bool) error {
	cfg := pc.sink.cfg.Commit
	delay := cfg.Delay.Milliseconds()
	for _, p := range slices.Sorted(maps.Keys(pc.pending)) {
		due := ended
		if !due {
			switch cfg.Trigger {
			case triggerPartitionTime:
				t, err := pc.partitionTime(p)
				if err != nil {
					return err
				}
				due = watermark != math.MinInt64 && watermark > t+delay
			default:
				due = delay == 0 || now > pc.pending[p]+delay
			}
		}
		if !due {
			continue
		}
		if err := pc.sink.st.writeSuccessFile(ctx, p, cfg.SuccessFileName); err != nil {
			return fmt.Errorf("filesystem sink: committing partition %s: %w", p, err)
		}
		delete(pc.pending, p)
		pc.dirty = true
	}
	return nil
}

// partitionTime returns the instant (ms since the epoch) of a partition's
// time in the watermark's zone.
func (pc *partitionCommitter) partitionTime(dir string) (int64, error) {
	t, err := pc.ext.extract(partitionValues(dir))
	if err != nil {
		return 0, fmt.Errorf("filesystem sink: partition %s: %w", dir, err)
	}
	zone := pc.sink.cfg.Commit.WatermarkZone
	if zone == nil {
		zone = time.UTC
	}
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), zone).UnixMilli(), nil
}

// recover loads the state file, so that a restarted job commits the
// partitions an earlier run left pending.
func (pc *partitionCommitter) recover(ctx context.Context) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if err := pc.load(ctx); err != nil {
		return err
	}
	return pc.save(ctx)
}
