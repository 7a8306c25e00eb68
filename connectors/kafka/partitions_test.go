package kafka

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// reopenRestored opens a reader of every split of src as the runtime does
// on a restored run: splits in states get their state, the others are
// marked Added (unknown to the restored checkpoint).
func reopenRestored(t *testing.T, src *source, states map[string][]byte) (*reader, error) {
	t.Helper()
	ctx := context.Background()
	splits, err := src.Splits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ss []connector.SplitState
	for _, sp := range splits {
		st, ok := states[sp.ID]
		ss = append(ss, connector.SplitState{ID: sp.ID, State: st, Added: !ok})
	}
	r, err := src.open(ctx, ss)
	if err == nil {
		t.Cleanup(func() { r.Close() })
	}
	return r, err
}

// addPartitionWith adds one partition to topic (which has n) and writes
// values to it.
func addPartitionWith(t *testing.T, b kafkatest.Broker, topic string, n int32, values ...string) {
	t.Helper()
	ctx := context.Background()
	resp, err := b.Admin(t).CreatePartitions(ctx, 1, topic)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("adding a partition: %v", err)
	}
	// The new partition reaches the broker's metadata a little after
	// CreatePartitions returns; a client that has not seen it refuses the
	// record.
	b.AwaitPartitions(t, topic, n+1)
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for _, v := range values {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(v), Partition: n}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshotStates maps split ids to the states of r's snapshot.
func snapshotStates(t *testing.T, r *reader) map[string][]byte {
	t.Helper()
	ss, err := r.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, s := range ss {
		out[s.ID] = s.State
	}
	return out
}

// TestSourceUnknownPartitionsFromEarliest (issue 15.5, review #6): a
// partition added while the job was down is unknown to the restored
// checkpoint; it is read from its earliest offset whatever the startup
// mode (FLIP-288), so that none of its records is skipped and a
// group-offsets source without auto.offset.reset does not fail at Open.
func TestSourceUnknownPartitionsFromEarliest(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	added := seq("new", 0, 5)
	for _, tc := range []struct {
		name string
		edit func(*sourceConfig, string)
	}{
		{"latest-offset", func(c *sourceConfig, _ string) { c.StartupMode = startLatest }},
		{"timestamp", func(c *sourceConfig, _ string) { c.StartupMode, c.StartupTimestampMillis = startTimestamp, 1<<50 }},
		{"group-offsets auto.offset.reset latest", func(c *sourceConfig, g string) {
			c.StartupMode, c.Properties["group.id"], c.Properties["auto.offset.reset"] = startGroupOffsets, g, "latest"
		}},
		{"group-offsets without auto.offset.reset", func(c *sourceConfig, g string) {
			c.StartupMode, c.Properties["group.id"] = startGroupOffsets, g
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topic := b.Topic(t, 1)
			produceValues(t, b, topic, "old0", "old1")
			group := kafkatest.UniqueName(t)
			// The first run: partition 0 is known to the group (the
			// group-offsets cases start from it) and to the checkpoint.
			var offs kadm.Offsets
			offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 2, LeaderEpoch: -1})
			if _, err := b.Admin(t).CommitOffsets(context.Background(), group, offs); err != nil {
				t.Fatal(err)
			}
			cfg := srcConfig(b, topic)
			tc.edit(&cfg, group)
			if got := readToEOF(t, openReader(t, mustNewSource(t, cfg), nil)); len(got) != 0 {
				t.Fatalf("first run read %q, want nothing (it starts at the end)", got)
			}
			first, _ := reopenRestored(t, mustNewSource(t, cfg), map[string][]byte{topic + ":0": []byte("2")})
			states := snapshotStates(t, first)
			// While the job is down a partition is added and written to.
			addPartitionWith(t, b, topic, 1, added...)
			r, err := reopenRestored(t, mustNewSource(t, cfg), states)
			if err != nil {
				t.Fatalf("restored run: Open: %v", err)
			}
			if got := readToEOF(t, r); !slices.Equal(got, added) {
				t.Fatalf("restored run read %q, want the new partition's %q", got, added)
			}
		})
	}
}

// TestSourceGroupOffsetsNewPartition: with no checkpoint (the group's
// committed offsets are the job's position) a partition the group has no
// offset for, while it has offsets for the topic's other partitions, is
// new to the job: it is read from its earliest offset instead of failing
// (no auto.offset.reset) or skipping (auto.offset.reset latest). A group
// that knows none of the partitions is a first start: auto.offset.reset
// applies, and without it Open fails as before.
func TestSourceGroupOffsetsNewPartition(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	produceValues(t, b, topic, "old0", "old1", "old2")
	added := seq("new", 0, 5)
	addPartitionWith(t, b, topic, 1, added...)
	fresh := srcConfig(b, topic, "group.id", kafkatest.UniqueName(t))
	fresh.StartupMode = startGroupOffsets
	if _, err := mustNewSource(t, fresh).open(context.Background(), []connector.SplitState{{ID: topic + ":0"}, {ID: topic + ":1"}}); err == nil {
		t.Fatal("a group without any committed offset and no auto.offset.reset opened")
	}
	for _, reset := range []string{"", "latest", "earliest"} {
		t.Run(fmt.Sprintf("auto.offset.reset=%q", reset), func(t *testing.T) {
			group := kafkatest.UniqueName(t)
			var offs kadm.Offsets
			offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 2, LeaderEpoch: -1})
			if _, err := b.Admin(t).CommitOffsets(context.Background(), group, offs); err != nil {
				t.Fatal(err)
			}
			cfg := srcConfig(b, topic, "group.id", group)
			cfg.StartupMode = startGroupOffsets
			if reset != "" {
				cfg.Properties["auto.offset.reset"] = reset
			}
			src := mustNewSource(t, cfg)
			splits, err := src.Splits(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var ss []connector.SplitState
			for _, sp := range splits {
				ss = append(ss, connector.SplitState{ID: sp.ID})
			}
			r, err := src.open(context.Background(), ss)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer r.Close()
			got := readToEOF(t, r)
			slices.Sort(got)
			want := append([]string{"old2"}, added...)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("read %q, want %q (partition 0 from the group's offset, the new partition 1 from its start)", got, want)
			}
		})
	}
}

// TestSourceBoundedEndInState (review #12): the end offset of a bounded
// read is part of the split state, so a restored bounded job stops where
// the original run would have, not at the end resolved again at restart.
func TestSourceBoundedEndInState(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	produceValues(t, b, topic, seq("a", 0, 5)...)
	cfg := srcConfig(b, topic, "max.poll.records", "2")
	r := openReader(t, mustNewSource(t, cfg), nil)
	rows, err := r.Read(context.Background())
	if err != nil || len(rows) == 0 {
		t.Fatalf("Read = %d rows, %v", len(rows), err)
	}
	n := len(rows)
	states := snapshotStates(t, r)
	if got, want := offsetsOf(states[topic+":0"]), fmt.Sprintf("%d/5", n); got != want {
		t.Fatalf("state %q, want %q (next/end)", got, want)
	}
	produceValues(t, b, topic, seq("b", 0, 5)...) // after the original run's end
	got := readToEOF(t, openReader(t, mustNewSource(t, cfg), states))
	if want := seq("a", n, 5); !slices.Equal(got, want) {
		t.Fatalf("restored bounded read %q, want %q (up to the original end)", got, want)
	}
	// A state without an end (an unbounded job's, or one written before
	// the end was stored) resolves the end at open.
	got = readToEOF(t, openReader(t, mustNewSource(t, cfg), map[string][]byte{topic + ":0": []byte(fmt.Sprint(n))}))
	if want := append(seq("a", n, 5), seq("b", 0, 5)...); !slices.Equal(got, want) {
		t.Fatalf("read from a state without end %q, want %q", got, want)
	}
	// An unbounded job restoring a bounded one's state ignores the end.
	ucfg := cfg
	ucfg.BoundedMode = unbounded
	u := openReader(t, mustNewSource(t, ucfg), states)
	if u.order[0].end != -1 || u.order[0].next != int64(n) {
		t.Fatalf("unbounded reader restored next %d end %d, want %d and -1", u.order[0].next, u.order[0].end, n)
	}
	for _, bad := range []string{"x", "3/", "-1", "3/-2", "/4"} {
		if _, err := mustNewSource(t, cfg).open(context.Background(), []connector.SplitState{{ID: topic + ":0", State: []byte(bad)}}); err == nil {
			t.Errorf("state %q accepted", bad)
		}
	}
}

// TestRuntimeReadsPartitionAddedWhileDown (issue 15.5, through the
// runtime): a latest-offset job runs, stops with its checkpoint retained,
// a partition is added and written to while it is down, and the restarted
// job reads all of the new partition's records (none of the old ones).
func TestRuntimeReadsPartitionAddedWhileDown(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	cl := b.Client(t, kgo.DefaultProduceTopic(topic))
	if err := cl.ProduceSync(context.Background(), kgo.StringRecord(`{"p":0,"seq":0}`), kgo.StringRecord(`{"p":0,"seq":1}`)).FirstErr(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := &testkit.FileSink{Dir: filepath.Join(dir, "out")}
	run := func() {
		t.Helper()
		src, _, err := factory.Default.CreateSource(context.Background(), factory.Table{Name: "in", Options: map[string]string{
			"connector": "kafka", "topic": topic, "properties.bootstrap.servers": b.Addr, "value.format": "json",
			"scan.startup.mode": "latest-offset", "scan.bounded.mode": "latest-offset"},
			Schema: factory.Schema{Columns: []factory.Column{{Name: "p", Type: types.BigInt()}, {Name: "seq", Type: types.BigInt()}}}})
		if err != nil {
			t.Fatal(err)
		}
		cfg := jobconfig.DefaultConfig()
		cfg.Checkpoint.Interval = 50 * time.Millisecond
		cfg.Checkpoint.Dir = filepath.Join(dir, "checkpoints")
		cfg.Checkpoint.Retention = jobconfig.RetainOnCancellation
		j, err := runtime.NewJob(runtime.JobSpec{Name: "added-partition", Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Pipelines: []runtime.Pipeline{{Name: "main", Sources: []runtime.SourceSpec{{Name: "in", Source: src}},
				Sinks: []runtime.SinkSpec{{Name: "out", Sink: out}}}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), waitLong)
		defer cancel()
		if err := j.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if rows, err := testkit.ReadCommitted(out.Dir); err != nil || len(rows) != 0 {
		t.Fatalf("first run committed %v, %v; want nothing (it starts at the end)", rows, err)
	}
	var added []string
	for s := range 5 {
		added = append(added, fmt.Sprintf(`{"p":1,"seq":%d}`, s))
	}
	addPartitionWith(t, b, topic, 1, added...)
	run()
	rows, err := testkit.ReadCommitted(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int64{{1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}}
	if !slices.EqualFunc(rows, want, slices.Equal) {
		t.Fatalf("restarted job committed %v, want the new partition's %v", rows, want)
	}
}

// TestSourceGroupOffsetsLatestStartIsDurable: a group-offsets source whose
// group has no offsets starts at the end ('properties.auto.offset.reset' =
// latest). That start is committed to the group before the first read, so
// a process killed before its first commit resumes there on restart (no
// checkpoint: the group is the job's position) instead of at a newer end,
// which would skip every record written since the first start. Found by a
// SIGKILL run of a Kafka → Kafka exactly-once job without a checkpoint
// directory: 5,000 of 5,000 records written after the first start were lost.
func TestSourceGroupOffsetsLatestStartIsDurable(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	produceValues(t, b, topic, "old0", "old1")
	cfg := srcConfig(b, topic, "group.id", kafkatest.UniqueName(t), "auto.offset.reset", "latest")
	cfg.StartupMode, cfg.BoundedMode = startGroupOffsets, unbounded
	// The first run opens (resolving its start at the end) and dies
	// before any checkpoint commits a position.
	openReader(t, mustNewSource(t, cfg), nil).Close()
	written := seq("new", 0, 5)
	produceValues(t, b, topic, written...)
	cfg.BoundedMode = boundedLatest
	if got := readToEOF(t, openReader(t, mustNewSource(t, cfg), nil)); !slices.Equal(got, written) {
		t.Fatalf("restarted run read %q; want the records written after the first start %q", got, written)
	}

	// Two tasks of a first start, each with a partition: the start the
	// first commits does not make the second's partition "new to the
	// group" (read from the earliest offset); it starts at the end too.
	two := b.Topic(t, 1)
	produceValues(t, b, two, "old-p0")
	addPartitionWith(t, b, two, 1, "old-p1")
	cfg = srcConfig(b, two, "group.id", kafkatest.UniqueName(t), "auto.offset.reset", "latest")
	cfg.StartupMode = startGroupOffsets
	for _, split := range []string{two + ":0", two + ":1"} {
		r, err := mustNewSource(t, cfg).open(context.Background(), []connector.SplitState{{ID: split}})
		if err != nil {
			t.Fatalf("Open %s: %v", split, err)
		}
		got := readToEOF(t, r)
		r.Close()
		if len(got) != 0 {
			t.Fatalf("task of %s read %q; want nothing (it starts at the end)", split, got)
		}
	}
}
