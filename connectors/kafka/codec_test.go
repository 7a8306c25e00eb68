package kafka

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// TestRowEncoderLayouts checks the sink's row → record mapping when the
// key and value fields are a run of the row's positions (the encoder is
// given that part of the row) and when they are not (they are copied out
// in the format's order): key fields named out of order, a key column in
// the middle with EXCEPT_KEY, a metadata column between value columns, and
// upsert-kafka's tombstone.
func TestRowEncoderLayouts(t *testing.T) {
	cols := []factory.Column{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}, {Name: "n", Type: types.Int()}}
	withMeta := append(cols[:1:1], factory.Column{Name: "ts", Type: types.TimestampLTZ(3), Kind: factory.Metadata, MetadataKey: "timestamp"})
	withMeta = append(withMeta, cols[1:]...)
	ts := types.Timestamp{Millis: 1_700_000_000_000}
	for _, c := range []struct {
		name       string
		table      factory.Table
		cols       []factory.Column
		row        types.Row
		key, value string // "<nil>": none
	}{
		{"value only", kafkaTable(), cols,
			types.Row{Fields: []types.Value{types.Int64(1), types.Str("a"), types.Int64(3)}}, "<nil>", `{"id":1,"name":"a","n":3}`},
		{"key fields out of order", kafkaTable("key.format", "json", "key.fields", "n;id"), cols,
			types.Row{Fields: []types.Value{types.Int64(1), types.Str("a"), types.Int64(3)}}, `{"n":3,"id":1}`, `{"id":1,"name":"a","n":3}`},
		{"key in the middle, except key", kafkaTable("key.format", "json", "key.fields", "name", "value.fields-include", "EXCEPT_KEY"), cols,
			types.Row{Fields: []types.Value{types.Int64(1), types.Str("a"), types.Int64(3)}}, `{"name":"a"}`, `{"id":1,"n":3}`},
		{"metadata between value columns", kafkaTable("key.format", "json", "key.fields", "name;n"), withMeta,
			types.Row{Fields: []types.Value{types.Int64(1), types.TimestampValue(ts), types.Str("a"), types.Int64(3)}}, `{"name":"a","n":3}`, `{"id":1,"name":"a","n":3}`},
		{"upsert tombstone", upsertTable(), cols[:2],
			types.Row{Kind: types.Delete, Fields: []types.Value{types.Int64(1), types.Str("a")}}, `{"id":1}`, "<nil>"},
		{"upsert update", upsertTable(), cols[:2],
			types.Row{Kind: types.UpdateAfter, Fields: []types.Value{types.Int64(1), types.Str("a")}}, `{"id":1}`, `{"id":1,"name":"a"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			tbl := c.table
			tbl.Schema.Columns = c.cols
			v, err := factory.Default.Validate(tbl)
			if err != nil {
				t.Fatal(err)
			}
			l, err := tableLayout(factory.Context{Table: tbl.Name, Schema: tbl.Schema, Options: v.Config}, tbl.Options["connector"] == "upsert-kafka")
			if err != nil {
				t.Fatal(err)
			}
			enc, err := l.newEncoder()
			if err != nil {
				t.Fatal(err)
			}
			rec := &kgo.Record{Key: []byte("stale key"), Value: []byte("stale value")}
			before := c.row.Clone()
			// Twice: the second encoding reuses the record's buffers.
			for range 2 {
				if err := enc.EncodeRecord(&c.row, rec); err != nil {
					t.Fatal(err)
				}
				if got := str(rec.Key); got != c.key {
					t.Errorf("key %s, want %s", got, c.key)
				}
				if got := str(rec.Value); got != c.value {
					t.Errorf("value %s, want %s", got, c.value)
				}
			}
			if !rowsEqual(before, c.row) {
				t.Errorf("the row changed: %v, was %v", c.row, before)
			}
		})
	}
}

func str(b []byte) string {
	if b == nil {
		return "<nil>"
	}
	return string(b)
}

func rowsEqual(a, b types.Row) bool {
	if a.Kind != b.Kind || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		if a.Fields[i] != b.Fields[i] {
			return false
		}
	}
	return true
}
