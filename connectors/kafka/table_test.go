package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/types"
)

// The tests here go through the factory registry, as the planner does:
// factory-created sources and sinks against the real broker.

func brokerTable(b kafkatest.Broker, name string, cols []factory.Column, pk []string, kv ...string) factory.Table {
	opts := map[string]string{"properties.bootstrap.servers": b.Addr}
	for i := 0; i+1 < len(kv); i += 2 {
		opts[kv[i]] = kv[i+1]
	}
	return factory.Table{Name: "cat.db." + name, Options: opts, Schema: factory.Schema{Columns: cols, PrimaryKey: pk}}
}

func createSink(t *testing.T, tbl factory.Table) connector.Writer {
	t.Helper()
	sink, _, err := factory.Default.CreateSink(context.Background(), tbl)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sink.Open(context.Background(), task(0))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// readTable reads a factory-created bounded source to its end.
func readTable(t *testing.T, tbl factory.Table) ([]types.Row, *reader, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	src, _, err := factory.Default.CreateSource(ctx, tbl)
	if err != nil {
		t.Fatal(err)
	}
	splits, err := src.Splits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ss := make([]connector.SplitState, len(splits))
	for i, sp := range splits {
		ss[i] = connector.SplitState{ID: sp.ID}
	}
	r, err := src.Open(ctx, task(0), ss)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	var out []types.Row
	for {
		rs, err := r.Read(ctx)
		out = append(out, rs...)
		if errors.Is(err, io.EOF) {
			return out, r.(*reader), nil
		}
		if err != nil {
			return out, r.(*reader), err
		}
	}
}

func TestTableKeyValueFormatsAndMetadata(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 2)
	cols := []factory.Column{
		{Name: "k_id", Type: types.BigInt()},
		{Name: "name", Type: types.String()},
		{Name: "ts", Type: types.TimestampLTZ(3), Kind: factory.Metadata, MetadataKey: "timestamp"},
		{Name: "hdrs", Type: types.Map(types.String(), types.Bytes()), Kind: factory.Metadata, MetadataKey: "headers"},
		{Name: "upper", Type: types.String(), Kind: factory.Computed, Expr: "UPPER(name)"},
		{Name: "part", Type: types.Int(), Kind: factory.Metadata, MetadataKey: "partition", Virtual: true},
		{Name: "offset", Type: types.BigInt(), Kind: factory.Metadata, Virtual: true},
		{Name: "tt", Type: types.String(), Kind: factory.Metadata, MetadataKey: "timestamp-type", Virtual: true},
		{Name: "topic", Type: types.String(), Kind: factory.Metadata, Virtual: true},
		{Name: "le", Type: types.Int(), Kind: factory.Metadata, MetadataKey: "leader-epoch", Virtual: true},
	}
	tbl := brokerTable(b, "kv", cols, nil, "connector", "kafka", "topic", topic,
		"key.format", "json", "key.fields", "k_id", "key.fields-prefix", "k_", "value.fields-include", "EXCEPT_KEY",
		"value.format", "json", "scan.startup.mode", "earliest-offset", "scan.bounded.mode", "latest-offset")

	base := time.UnixMilli(1_700_000_000_000)
	var in []types.Row
	for i := range 6 {
		hdrs := &types.MapData{Keys: []types.Value{types.Str("n")}, Values: []types.Value{types.BytesValue([]byte{byte('0' + i)})}}
		in = append(in, types.Row{Fields: []types.Value{types.Int64(int64(i)), types.Str(fmt.Sprintf("name-%d", i)),
			types.TimestampValue(types.TimestampFromTime(base.Add(time.Duration(i) * time.Second))), types.MapValue(hdrs)}})
	}
	w := createSink(t, tbl)
	mustWrite(t, w, in)
	if _, err := w.PreCommit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// The records as any Kafka client sees them.
	raw := b.Consume(t, topic, false, waitLong, func(r []*kgo.Record) bool { return len(r) >= len(in) })
	byKey := map[string]*kgo.Record{}
	var rawBytes int64
	for _, r := range raw {
		byKey[string(r.Key)] = r
		rawBytes += int64(len(r.Key) + len(r.Value))
	}
	if got := w.(connector.ByteCounter).Bytes(); got != rawBytes {
		t.Errorf("writer counted %d bytes, the records hold %d", got, rawBytes)
	}
	for i := range in {
		key := fmt.Sprintf(`{"id":%d}`, i)
		r := byKey[key]
		if r == nil {
			t.Fatalf("no record with key %s among %d records (keys are the key format over the prefix-stripped key columns)", key, len(raw))
		}
		if want := fmt.Sprintf(`{"name":"name-%d"}`, i); string(r.Value) != want {
			t.Errorf("value %s, want %s (EXCEPT_KEY leaves the key out)", r.Value, want)
		}
		if !r.Timestamp.Equal(base.Add(time.Duration(i) * time.Second)) {
			t.Errorf("record %d timestamp %v", i, r.Timestamp)
		}
		if len(r.Headers) != 1 || r.Headers[0].Key != "n" || string(r.Headers[0].Value) != string(rune('0'+i)) {
			t.Errorf("record %d headers %v", i, r.Headers)
		}
		if want := int32(murmurPartition([]byte(key), 2)); r.Partition != want {
			t.Errorf("key %s went to partition %d, the Java producer's is %d", key, r.Partition, want)
		}
	}

	// Read back through the source: every physical and metadata column.
	got, reader, err := readTable(t, tbl)
	if err != nil {
		t.Fatal(err)
	}
	if reader.Bytes() != rawBytes {
		t.Errorf("reader counted %d bytes, the records hold %d", reader.Bytes(), rawBytes)
	}
	if len(got) != len(in) {
		t.Fatalf("read %d rows, want %d", len(got), len(in))
	}
	for _, row := range got {
		if len(row.Fields) != 9 {
			t.Fatalf("source row has %d fields, want 9 (physical and metadata columns, no computed ones)", len(row.Fields))
		}
		i := row.Fields[0].Int64()
		r := byKey[fmt.Sprintf(`{"id":%d}`, i)]
		if row.Fields[1].Str() != fmt.Sprintf("name-%d", i) {
			t.Errorf("row %d name %v", i, row.Fields[1])
		}
		if !row.Fields[2].Timestamp().Time().Equal(r.Timestamp) {
			t.Errorf("row %d timestamp %v, want %v", i, row.Fields[2].Timestamp().Time(), r.Timestamp)
		}
		if md := row.Fields[3].Map(); md == nil || md.Len() != 1 || md.Keys[0].Str() != "n" || string(md.Values[0].Bytes()) != string(rune('0'+i)) {
			t.Errorf("row %d headers %v", i, row.Fields[3])
		}
		if row.Fields[4].Int64() != int64(r.Partition) || row.Fields[5].Int64() != r.Offset {
			t.Errorf("row %d partition/offset %d/%d, want %d/%d", i, row.Fields[4].Int64(), row.Fields[5].Int64(), r.Partition, r.Offset)
		}
		if row.Fields[6].Str() != "CreateTime" || row.Fields[7].Str() != topic || row.Fields[8].IsNull() {
			t.Errorf("row %d timestamp-type %v topic %v leader-epoch %v", i, row.Fields[6], row.Fields[7], row.Fields[8])
		}
	}
}

// murmurPartition is the Java producer's choice for a keyed record.
func murmurPartition(key []byte, n int32) int32 {
	return int32(murmur2(key)&0x7fffffff) % n
}

func TestTableDecodeErrors(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	produceValues(t, b, topic, `{"id":1,"name":"a"}`, `{"id":`, `{"id":3,"name":"c"}`)
	cols := []factory.Column{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}}
	opts := []string{"connector", "kafka", "topic", topic, "format", "json", "scan.startup.mode", "earliest-offset", "scan.bounded.mode", "latest-offset"}

	_, _, err := readTable(t, brokerTable(b, "strict", cols, nil, opts...))
	var de *factory.DecodeError
	if err == nil || !errors.As(err, &de) || !strings.Contains(err.Error(), fmt.Sprintf("topic %s partition 0 offset 1", topic)) {
		t.Fatalf("error = %v, want a *factory.DecodeError naming topic, partition and offset", err)
	}

	got, r, err := readTable(t, brokerTable(b, "lenient", cols, nil, append(opts, "json.ignore-parse-errors", "true")...))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Fields[0].Int64() != 1 || got[1].Fields[0].Int64() != 3 {
		t.Errorf("rows %v, want ids 1 and 3", got)
	}
	if r.Skipped() != 1 {
		t.Errorf("Skipped() = %d, want 1", r.Skipped())
	}
}

// changelog is an upsert stream with an update (and its UPDATE_BEFORE) and
// a delete.
func changelog() []types.Row {
	row := func(k types.RowKind, id int64, name string) types.Row {
		return types.Row{Kind: k, Fields: []types.Value{types.Int64(id), types.Str(name)}}
	}
	return []types.Row{
		row(types.Insert, 1, "a"), row(types.Insert, 2, "b"), row(types.UpdateBefore, 1, "a"), row(types.UpdateAfter, 1, "a2"),
		row(types.Insert, 3, "c"), row(types.Delete, 2, "b"), row(types.Insert, 4, "d"), row(types.UpdateBefore, 3, "c"),
		row(types.UpdateAfter, 3, "c2"),
	}
}

// expected is the table the changelog leaves.
var expectedUpsert = map[int64]string{1: "a2", 3: "c2", 4: "d"}

// fold applies an upsert source's rows to a table keyed by id, checking
// that a value is an INSERT exactly when its key is absent.
func fold(t *testing.T, rows []types.Row) map[int64]string {
	t.Helper()
	table := map[int64]string{}
	for _, r := range rows {
		id := r.Fields[0].Int64()
		_, present := table[id]
		switch r.Kind {
		case types.Insert, types.UpdateAfter:
			if (r.Kind == types.Insert) == present {
				t.Errorf("%v row for id %d, which is present: %v", r.Kind, id, present)
			}
			table[id] = r.Fields[1].Str()
		case types.Delete:
			if !r.Fields[1].IsNull() {
				t.Errorf("a DELETE row carries a value: %v", r.Fields)
			}
			delete(table, r.Fields[0].Int64())
		default:
			t.Errorf("upsert source emitted a %v row", r.Kind)
		}
	}
	return table
}

func TestUpsertKafkaEndToEnd(t *testing.T) {
	for _, b := range kafkatest.RequireAll(t) {
		t.Run(b.Name, func(t *testing.T) {
			cols := []factory.Column{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}}
			topic := b.Topic(t, 3)
			tbl := brokerTable(b, "up", cols, []string{"id"}, "connector", "upsert-kafka", "topic", topic,
				"key.format", "json", "value.format", "json", "scan.bounded.mode", "latest-offset")

			// At-least-once with a replay: the run fails after its second
			// checkpoint and the next run writes the rows after it again.
			cl := changelog()
			w := createSink(t, tbl)
			mustWrite(t, w, cl[:4])
			flushAt(t, w, 1)
			mustWrite(t, w, cl[4:])
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			w = createSink(t, tbl)
			mustWrite(t, w, cl[4:])
			flushAt(t, w, 2)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}

			// No record for UPDATE_BEFORE, a tombstone for DELETE.
			raw := b.Consume(t, topic, false, waitLong, func(r []*kgo.Record) bool { return len(r) >= 11 })
			if len(raw) != 11 {
				t.Errorf("%d records, want 11 (7 upserts and deletes, 4 replayed)", len(raw))
			}
			tombstones := 0
			for _, r := range raw {
				if r.Value == nil {
					tombstones++
					if string(r.Key) != `{"id":2}` {
						t.Errorf("tombstone key %s", r.Key)
					}
				}
			}
			if tombstones != 2 {
				t.Errorf("%d tombstones, want 2 (one replayed)", tombstones)
			}

			rows, _, err := readTable(t, tbl)
			if err != nil {
				t.Fatal(err)
			}
			if got := fold(t, rows); !equalTables(got, expectedUpsert) {
				t.Errorf("final table %v, want %v", got, expectedUpsert)
			}

			// Buffered: the latest row per key only, flushed at the checkpoint.
			topic2 := b.Topic(t, 1)
			buffered := brokerTable(b, "up2", cols, []string{"id"}, "connector", "upsert-kafka", "topic", topic2,
				"key.format", "json", "value.format", "json", "scan.bounded.mode", "latest-offset",
				"sink.buffer-flush.max-rows", "100", "sink.buffer-flush.interval", "1 h", "value.fields-include", "EXCEPT_KEY")
			w = createSink(t, buffered)
			mustWrite(t, w, cl)
			flushAt(t, w, 1)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			raw = b.Consume(t, topic2, false, waitLong, func(r []*kgo.Record) bool { return len(r) >= 4 })
			var vals []string
			for _, r := range raw {
				vals = append(vals, string(r.Key)+"="+string(r.Value))
			}
			slices.Sort(vals)
			want := []string{`{"id":1}={"name":"a2"}`, `{"id":2}=`, `{"id":3}={"name":"c2"}`, `{"id":4}={"name":"d"}`}
			if !slices.Equal(vals, want) {
				t.Errorf("buffered records %v, want %v", vals, want)
			}
			rows, _, err = readTable(t, buffered)
			if err != nil {
				t.Fatal(err)
			}
			if got := fold(t, rows); !equalTables(got, expectedUpsert) {
				t.Errorf("final table (buffered, EXCEPT_KEY) %v, want %v", got, expectedUpsert)
			}
		})
	}
}

// flushAt pre-commits a writer that returns no committables.
func flushAt(t *testing.T, w connector.Writer, cp int64) {
	t.Helper()
	if cs, err := w.PreCommit(context.Background(), cp); err != nil || len(cs) != 0 {
		t.Fatalf("PreCommit(%d) = %d committables, %v", cp, len(cs), err)
	}
}

func equalTables(a, b map[int64]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestTableExactlyOnce runs factory-created exactly-once sinks, one with
// 'sink.semantic' and no prefix (derived from the job name and the table),
// and a buffered upsert-kafka one, and reads them back read_committed.
func TestTableExactlyOnce(t *testing.T) {
	b := kafkatest.Require(t)
	ctx := context.Background()
	cols := []factory.Column{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}}
	job := kafkatest.UniqueName(t)
	for _, tc := range []struct {
		name  string
		table factory.Table
	}{
		{"semantic without prefix", brokerTable(b, "eos", cols, nil, "connector", "kafka", "topic", b.Topic(t, 2),
			"format", "json", "sink.semantic", "exactly-once", "scan.startup.mode", "earliest-offset",
			"scan.bounded.mode", "latest-offset", "properties.isolation.level", "read_committed")},
		{"upsert buffered", brokerTable(b, "eosup", cols, []string{"id"}, "connector", "upsert-kafka", "topic", b.Topic(t, 2),
			"key.format", "json", "value.format", "json", "sink.delivery-guarantee", "exactly-once",
			"sink.buffer-flush.max-rows", "2", "sink.buffer-flush.interval", "1 h",
			"scan.bounded.mode", "latest-offset", "properties.isolation.level", "read_committed")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink, _, err := factory.Default.CreateSink(ctx, tc.table)
			if err != nil {
				t.Fatal(err)
			}
			ts := sink.(*exactlyOnceSink)
			ack := &memoryAckTracker{}
			ts.SetAckTracker(ack)
			cm, err := ts.Committer(ctx, job)
			if err != nil {
				t.Fatal(err)
			}
			defer cm.Close()
			if err := cm.Recover(ctx, nil); err != nil {
				t.Fatal(err)
			}
			info := task(0)
			info.Job = job
			w, err := ts.Open(ctx, info)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			upsert := len(tc.table.Schema.PrimaryKey) > 0
			in := changelog()
			if !upsert {
				in = nil
				for i := range 10 {
					in = append(in, types.Row{Fields: []types.Value{types.Int64(int64(i)), types.Str(fmt.Sprint("n", i))}})
				}
			}
			mustWrite(t, w, in)
			c := mustPreCommit(t, w, 1)
			if id := mustDecode(t, c).TransactionalID; !strings.HasPrefix(id, job+"-cat.db.") {
				t.Errorf("transactional id %q does not start with the derived prefix %s-<table>", id, job)
			}
			// Nothing is visible read_committed before the commit.
			if rows, _, err := readTable(t, tc.table); err != nil || len(rows) != 0 {
				t.Fatalf("read %d rows before the commit (%v)", len(rows), err)
			}
			if err := cm.Commit(ctx, c); err != nil {
				t.Fatal(err)
			}
			ack.MarkDurable(c)
			b.AwaitStable(t, tc.table.Options["topic"])
			rows, _, err := readTable(t, tc.table)
			if err != nil {
				t.Fatal(err)
			}
			if upsert {
				if got := fold(t, rows); !equalTables(got, expectedUpsert) {
					t.Errorf("final table %v, want %v", got, expectedUpsert)
				}
				return
			}
			var ids []int64
			for _, r := range rows {
				ids = append(ids, r.Fields[0].Int64())
			}
			slices.Sort(ids)
			if len(ids) != 10 || ids[0] != 0 || ids[9] != 9 {
				t.Errorf("read ids %v, want 0..9", ids)
			}
		})
	}
}
