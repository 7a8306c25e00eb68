package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/types"
)

// valueDecoder puts the value as a string in field 0.
func valueDecoder(_, value []byte, row *types.Row) error {
	if string(value) == "poison" {
		return errors.New("poison record")
	}
	row.Fields[0] = types.Str(string(value))
	return nil
}

func srcConfig(b kafkatest.Broker, topic string, props ...string) sourceConfig {
	cfg := sourceConfig{Topics: []string{topic}, Properties: map[string]string{"bootstrap.servers": b.Addr, "fetch.max.wait.ms": "100"},
		StartupMode: startEarliest, BoundedMode: boundedLatest, RowWidth: 1, Decoder: valueDecoder}
	for i := 0; i+1 < len(props); i += 2 {
		cfg.Properties[props[i]] = props[i+1]
	}
	return cfg
}

// produceValues writes values to partition 0 of topic with the given timestamps
// (zero: now).
func produceValues(t *testing.T, b kafkatest.Broker, topic string, values ...string) {
	t.Helper()
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var recs []*kgo.Record
	for _, v := range values {
		recs = append(recs, &kgo.Record{Value: []byte(v), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("1")}, {Key: "h", Value: []byte(v)}}})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// openReader opens a reader of every split of src with the given states.
func openReader(t *testing.T, src *source, states map[string][]byte) *reader {
	t.Helper()
	ctx := context.Background()
	splits, err := src.Splits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ss []connector.SplitState
	for _, sp := range splits {
		ss = append(ss, connector.SplitState{ID: sp.ID, State: states[sp.ID]})
	}
	r, err := src.open(ctx, ss)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// readToEOF reads a bounded reader to its end and returns field 0 of
// every row.
func readToEOF(t *testing.T, r *reader) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	var out []string
	for {
		rs, err := r.Read(ctx)
		for _, row := range rs {
			out = append(out, row.Fields[0].Str())
		}
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Read after %d rows: %v", len(out), err)
		}
	}
}

func mustNewSource(t *testing.T, cfg sourceConfig) *source {
	t.Helper()
	s, err := newSource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSourceStartupModes(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	produceValues(t, b, topic, seq("e", 0, 5)...)
	time.Sleep(20 * time.Millisecond) // distinct timestamps for the timestamp mode
	mid := time.Now().UnixMilli()
	time.Sleep(20 * time.Millisecond)
	produceValues(t, b, topic, seq("f", 0, 5)...)
	all := append(seq("e", 0, 5), seq("f", 0, 5)...)

	cases := []struct {
		name string
		edit func(*sourceConfig)
		want []string
	}{
		{"earliest", func(*sourceConfig) {}, all},
		{"latest", func(c *sourceConfig) { c.StartupMode = startLatest }, nil},
		{"timestamp", func(c *sourceConfig) { c.StartupMode, c.StartupTimestampMillis = startTimestamp, mid }, all[5:]},
		{"specific-offsets", func(c *sourceConfig) {
			c.StartupMode, c.StartupSpecificOffsets = startSpecificOffsets, map[int32]int64{0: 3}
		}, all[3:]},
		{"bounded specific-offsets", func(c *sourceConfig) {
			c.BoundedMode, c.BoundedSpecificOffsets = boundedSpecificOffsets, map[int32]int64{0: 4}
		}, all[:4]},
		{"bounded timestamp", func(c *sourceConfig) { c.BoundedMode, c.BoundedTimestampMillis = boundedTimestamp, mid }, all[:5]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := srcConfig(b, topic)
			tc.edit(&cfg)
			got := readToEOF(t, openReader(t, mustNewSource(t, cfg), nil))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("read %q, want %q", got, tc.want)
			}
		})
	}

	t.Run("group-offsets", func(t *testing.T) {
		group := kafkatest.UniqueName(t)
		cfg := srcConfig(b, topic, "group.id", group)
		cfg.StartupMode = startGroupOffsets
		if _, err := newSource(cfg); err != nil {
			t.Fatal(err)
		}
		// No committed offset and no auto.offset.reset: a clear error.
		splits, _ := mustNewSource(t, cfg).Splits(context.Background())
		_, err := mustNewSource(t, cfg).open(context.Background(), []connector.SplitState{{ID: splits[0].ID}})
		if err == nil {
			t.Fatalf("group-offsets without a committed offset or auto.offset.reset opened")
		}
		t.Logf("%v", err)
		// auto.offset.reset is the fallback.
		cfg.Properties["auto.offset.reset"] = "earliest"
		if got := readToEOF(t, openReader(t, mustNewSource(t, cfg), nil)); !slices.Equal(got, all) {
			t.Fatalf("fallback earliest read %q", got)
		}
		// Committed offsets win.
		var offs kadm.Offsets
		offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 7, LeaderEpoch: -1})
		if _, err := b.Admin(t).CommitOffsets(context.Background(), group, offs); err != nil {
			t.Fatal(err)
		}
		if got := readToEOF(t, openReader(t, mustNewSource(t, cfg), nil)); !slices.Equal(got, all[7:]) {
			t.Fatalf("group offsets read %q, want %q", got, all[7:])
		}
		// Bounded by the group's offsets.
		cfg.StartupMode, cfg.BoundedMode = startEarliest, boundedGroupOffsets
		if got := readToEOF(t, openReader(t, mustNewSource(t, cfg), nil)); !slices.Equal(got, all[:7]) {
			t.Fatalf("bounded by group offsets read %q, want %q", got, all[:7])
		}
	})
}

// TestSourceBoundedReadCommitted: a partition ends with transaction
// markers (a committed then an aborted transaction). A read_committed
// bounded reader still ends, with only the committed records.
func TestSourceBoundedReadCommitted(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		topic := b.Topic(t, 1)
		ctx := context.Background()
		for i, commit := range []kgo.TransactionEndTry{kgo.TryCommit, kgo.TryAbort} {
			cl := b.Client(t, kgo.TransactionalID(kafkatest.UniqueName(t)+strconv.Itoa(i)), kgo.DefaultProduceTopic(topic))
			if err := cl.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			if err := cl.ProduceSync(ctx, kgo.StringRecord("t"+strconv.Itoa(i)+"a"), kgo.StringRecord("t"+strconv.Itoa(i)+"b")).FirstErr(); err != nil {
				t.Fatal(err)
			}
			if err := cl.EndTransaction(ctx, commit); err != nil {
				t.Fatal(err)
			}
		}
		// EndTxn returns before the markers are written: wait for them, or
		// the read_committed reader's end is the last stable offset before
		// the abort marker (3, not 6).
		b.AwaitStable(t, topic)
		for _, rc := range []bool{true, false} {
			iso := "read_uncommitted"
			want := []string{"t0a", "t0b", "t1a", "t1b"}
			if rc {
				iso, want = "read_committed", []string{"t0a", "t0b"}
			}
			r := openReader(t, mustNewSource(t, srcConfig(b, topic, "isolation.level", iso)), nil)
			if got := readToEOF(t, r); !slices.Equal(got, want) {
				t.Fatalf("%s read %q, want %q", iso, got, want)
			}
			// The position is past the last marker: the end offset.
			ss, _ := r.Snapshot(1)
			if offsetsOf(ss[0].State) != "6/6" {
				t.Fatalf("%s: position %s after the end, want 6/6 (next/end)", iso, ss[0].State)
			}
		}
	})
}

// TestSourceMetadataAndState reads metadata columns, snapshots the
// position, resumes from it, and commits offsets to the group when the
// checkpoint completes.
func TestSourceMetadataAndState(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	produceValues(t, b, topic, "m0", "m1", "m2")
	group := kafkatest.UniqueName(t)
	cfg := srcConfig(b, topic, "group.id", group, "max.poll.records", "2")
	cfg.BoundedMode = unbounded
	cfg.RowWidth = 8
	for i := metaTopic; i <= metaLeaderEpoch; i++ {
		cfg.Metadata = append(cfg.Metadata, metadataColumn{Key: i, Index: int(i) + 1})
	}
	src := mustNewSource(t, cfg)
	if src.Bounded() {
		t.Fatal("unbounded source reports bounded")
	}
	r := openReader(t, src, nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	var got []types.Row
	for len(got) < 2 {
		rs, err := r.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rs...)
	}
	row := got[1]
	if row.Fields[0].Str() != "m1" || row.Fields[1].Str() != topic || row.Fields[2].Int64() != 0 || row.Fields[3].Int64() != 1 ||
		row.Fields[5].Str() != "CreateTime" || row.Fields[7].IsNull() {
		t.Fatalf("metadata row %+v", row)
	}
	if ts := row.Fields[4].Timestamp().Millis; time.Since(time.UnixMilli(ts)) > time.Hour || ts <= 0 {
		t.Fatalf("timestamp metadata %d", ts)
	}
	h := row.Fields[6].Map()
	if h.Len() != 1 || h.Keys[0].Str() != "h" || string(h.Values[0].Bytes()) != "m1" {
		t.Fatalf("headers metadata %+v, want h=m1 (duplicates collapse, last wins)", h)
	}
	ss, err := r.Snapshot(1)
	if err != nil || len(ss) != 1 || offsetsOf(ss[0].State) != "2" {
		t.Fatalf("Snapshot = %+v, %v; want next offset 2", ss, err)
	}
	gp, ok := r.GroupPositions()
	if !ok || gp.Group != group || gp.Generation != -1 || gp.Cluster == "" || len(gp.Offsets) != 1 || gp.Offsets[0].Offset != 2 {
		t.Fatalf("GroupPositions = %+v, %v; want group %q at offset 2 with the cluster id", gp, ok, group)
	}
	if err := r.CommitGroupPositions(context.Background(), gp); err != nil {
		t.Fatal(err)
	}
	committed, err := b.Admin(t).FetchOffsets(context.Background(), group)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := committed.Lookup(topic, 0); !ok || o.At != 2 {
		t.Fatalf("group offset %+v after the checkpoint, want 2", o)
	}
	// Resume from the checkpointed position.
	cfg.BoundedMode = boundedLatest
	resumed := readToEOF(t, openReader(t, mustNewSource(t, cfg), map[string][]byte{ss[0].ID: ss[0].State}))
	if !slices.Equal(resumed, []string{"m2"}) {
		t.Fatalf("resumed read %q, want [m2]", resumed)
	}
}

func TestSourceDecodeError(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	produceValues(t, b, topic, "ok", "poison")
	r := openReader(t, mustNewSource(t, srcConfig(b, topic)), nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	for {
		_, err := r.Read(ctx)
		if err == nil {
			continue
		}
		want := "topic " + topic + " partition 0 offset 1"
		if !errors.Is(err, io.EOF) && strings.Contains(err.Error(), want) {
			return
		}
		t.Fatalf("Read: %v, want a decode error naming %q", err, want)
	}
}

func TestParseSpecificOffsets(t *testing.T) {
	got, err := parseSpecificOffsets("partition:0,offset:42;partition:1,offset:300")
	if err != nil || got[0] != 42 || got[1] != 300 || len(got) != 2 {
		t.Fatalf("ParseSpecificOffsets = %v, %v", got, err)
	}
	for _, bad := range []string{"", "partition:0", "partition:x,offset:1", "offset:1,partition:0"} {
		if _, err := parseSpecificOffsets(bad); err == nil {
			t.Errorf("ParseSpecificOffsets(%q) accepted", bad)
		}
	}
}

// TestSourcePartitionDiscovery adds partitions while two readers run: each
// new partition is read by exactly one of them, from its start, and is in
// that reader's snapshots.
func TestSourcePartitionDiscovery(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	cfg := srcConfig(b, topic)
	cfg.BoundedMode, cfg.DiscoveryInterval = unbounded, 50*time.Millisecond
	src := mustNewSource(t, cfg)
	ctx := context.Background()
	splits, err := src.Splits(ctx)
	if err != nil || len(splits) != 1 {
		t.Fatalf("Splits = %v, %v", splits, err)
	}
	var readers []*reader
	for i, ss := range [][]connector.SplitState{{{ID: splits[0].ID}}, nil} {
		info := task(i)
		info.Parallelism = 2
		r, err := src.Open(ctx, info, ss)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		readers = append(readers, r.(*reader))
	}
	produceValues(t, b, topic, "p0-a")
	resp, err := b.Admin(t).CreatePartitions(ctx, 3, topic)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("adding partitions: %v", err)
	}
	// A producer that fetched its metadata before the broker learned of
	// the new partitions refuses to write to them.
	b.AwaitPartitions(t, topic, 4)
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	want := map[string]bool{"p0-a": true}
	for p := int32(1); p < 4; p++ {
		v := fmt.Sprintf("p%d-a", p)
		want[v] = true
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(v), Partition: p}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]int{}
	deadline := time.Now().Add(waitLong)
	for len(got) < len(want) && time.Now().Before(deadline) {
		for _, r := range readers {
			rctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			rs, err := r.Read(rctx)
			cancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatal(err)
			}
			for _, row := range rs {
				got[row.Fields[0].Str()]++
			}
		}
	}
	for v := range want {
		if got[v] != 1 {
			t.Errorf("%s read %d times, want once", v, got[v])
		}
	}
	owned := map[string]int{}
	for _, r := range readers {
		states, err := r.Snapshot(1)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range states {
			owned[st.ID]++
			if offsetsOf(st.State) != "1" {
				t.Errorf("split %s state %q, want 1 (after its one record)", st.ID, st.State)
			}
		}
	}
	if len(owned) != 4 {
		t.Errorf("snapshots cover splits %v, want all 4 partitions once", owned)
	}
	for id, n := range owned {
		if n != 1 {
			t.Errorf("split %s in %d readers' snapshots", id, n)
		}
	}
}

// TestSourceInterruptedReads reads with contexts cancelled almost at once,
// as the runtime interrupts a blocked Read to inject a barrier: no row is
// lost or repeated, and each snapshot matches the rows returned. (The race
// this guards against — the context ending between the client handing over
// records and the reader looking at the context — is too narrow to force.)
func TestSourceInterruptedReads(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	want := seq("v", 0, 300)
	produceValues(t, b, topic, want...)
	// Small polls: many Reads, each under a context that expires within
	// 0–2 ms, before, during or after the fetch.
	cfg := srcConfig(b, topic, "max.poll.records", "10")
	cfg.BoundedMode = unbounded
	r := openReader(t, mustNewSource(t, cfg), nil)
	var got []string
	deadline := time.Now().Add(waitLong)
	for i := 0; len(got) < len(want) && time.Now().Before(deadline); i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%3)*time.Millisecond)
		rs, err := r.Read(ctx)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatal(err)
		}
		for _, row := range rs {
			got = append(got, row.Fields[0].Str())
		}
		states, err := r.Snapshot(int64(i))
		if err != nil {
			t.Fatal(err)
		}
		if s := offsetsOf(states[0].State); s != strconv.Itoa(len(got)) {
			t.Fatalf("after %d rows the snapshot says next offset %s", len(got), s)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("read %d rows %s, want %d in order", len(got), trunc(got), len(want))
	}
}

// TestSourceSmallFetchesManyPartitions reads three partitions through
// fetches of about one record each and polls of three rows, so that Reads
// take from the pending fetch of one partition, then another, and the
// client prefetches while rows go out: every record once, in order per
// partition, never more than max.poll.records rows per Read.
func TestSourceSmallFetchesManyPartitions(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 3)
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	want := map[int32][]string{}
	var recs []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for _, v := range seq(fmt.Sprintf("p%d-", p), 0, 40) {
			want[p] = append(want[p], v)
			recs = append(recs, &kgo.Record{Partition: p, Value: []byte(v)})
		}
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cfg := srcConfig(b, topic, "max.poll.records", "3", "max.partition.fetch.bytes", "1", "fetch.max.bytes", "200")
	r := openReader(t, mustNewSource(t, cfg), nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	got := map[int32][]string{}
	for {
		rs, err := r.Read(ctx)
		if len(rs) > 3 {
			t.Fatalf("one Read returned %d rows, more than max.poll.records 3", len(rs))
		}
		for _, row := range rs {
			v := row.Fields[0].Str()
			p, _ := strconv.Atoi(v[1:2])
			got[int32(p)] = append(got[int32(p)], v)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for p := int32(0); p < 3; p++ {
		if !slices.Equal(got[p], want[p]) {
			t.Errorf("partition %d: read %s, want %d values in order", p, trunc(got[p]), len(want[p]))
		}
	}
}

// TestReaderRecyclesOnlyItsLastBatch checks the memory a reader reuses:
// the slab and row slice of the batch it returned last, zeroed, once the
// runtime hands that batch back; never rows it did not return last.
func TestReaderRecyclesOnlyItsLastBatch(t *testing.T) {
	r := &reader{}
	slab, out := r.batchMemory(3, 2)
	for i := range 3 {
		row := types.Row{Fields: rowFields(slab, i, 2)}
		row.Fields[0], row.Fields[1] = types.Int64(int64(i)), types.Str("x")
		out = append(out, row)
	}
	r.Recycle([]types.Row{{Fields: make([]types.Value, 2)}}) // not its batch
	if r.free != nil {
		t.Fatal("recycled rows the reader did not return")
	}
	r.lastSlab = slab
	r.Recycle(out)
	slab2, out2 := r.batchMemory(2, 2)
	if &slab2[0] != &slab[0] || cap(out2) != cap(out) || len(out2) != 0 {
		t.Fatal("the recycled batch's memory was not reused")
	}
	for i, v := range slab2 {
		if !v.IsNull() {
			t.Fatalf("reused slab field %d = %v, want NULL", i, v)
		}
	}
	if slab3, _ := r.batchMemory(2, 2); &slab3[0] == &slab2[0] {
		t.Fatal("a batch not handed back was reused")
	}
}

// TestReaderRowSplit reads a topic of three partitions, each record's value
// naming its partition, in batches that may mix them: RowSplit(i) is the index,
// among the splits the reader was opened with, of row i's partition
// (connector.RowSplitter, what the runtime's per-split watermarks use).
func TestReaderRowSplit(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.Topic(t, 3)
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var recs []*kgo.Record
	for i := range 90 {
		p := int32(i % 3)
		recs = append(recs, &kgo.Record{Partition: p, Value: []byte(strconv.Itoa(int(p)))})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	src := mustNewSource(t, srcConfig(b, topic))
	splits, err := src.Splits(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Open with the splits in an order of their own: the index is the
	// position in it, not the partition number.
	slices.Reverse(splits)
	ss := make([]connector.SplitState, len(splits))
	for i, sp := range splits {
		ss[i] = connector.SplitState{ID: sp.ID}
	}
	r, err := src.open(context.Background(), ss)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	rows := 0
	for {
		rs, err := r.Read(ctx)
		for i, row := range rs {
			s := r.RowSplit(i)
			if s < 0 || s >= len(splits) || splits[s].ID != topic+":"+row.Fields[0].Str() {
				t.Fatalf("row %d (partition %s): RowSplit %d names split %v", i, row.Fields[0].Str(), s, splits)
			}
			rows++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if rows != 90 {
		t.Fatalf("read %d rows, want 90", rows)
	}
	if r.RowSplit(0) != -1 && r.RowSplit(90) != -1 {
		t.Fatal("RowSplit out of the last batch's range")
	}
}
