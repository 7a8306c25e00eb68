package kafka

import (
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// projectedDecoder returns the record decoder of a kafka table (id BIGINT
// in the json key and value, name STRING, n INT, ts metadata) that reads
// the source row positions read marks.
func projectedDecoder(t *testing.T, read []bool) *rowDecoder {
	t.Helper()
	tbl := kafkaTable("key.format", "json", "key.fields", "id")
	tbl.Schema.Columns = append(tbl.Schema.Columns,
		factory.Column{Name: "n", Type: types.Int()},
		factory.Column{Name: "ts", Type: types.TimestampLTZ(3), Kind: factory.Metadata, MetadataKey: "timestamp"})
	v, err := factory.Default.Validate(tbl)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tableLayout(factory.Context{Table: tbl.Name, Schema: tbl.Schema, Options: v.Config, ReadFields: read}, false)
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.newRowDecoder()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestProjectedRecordDecode: with ReadFields the key and value formats
// decode only the fields read, so a record whose unread column holds a
// value of the wrong type is read (as Flink's projection pushdown does),
// while the same record fails a reader of every column.
func TestProjectedRecordDecode(t *testing.T) {
	key, value := []byte(`{"id":"not a number"}`), []byte(`{"id":7,"name":"a","n":"abc"}`)
	full := projectedDecoder(t, nil)
	row := types.NewRow(4)
	if err := full.decode(key, value, &row); err == nil {
		t.Fatalf("a reader of every column read %v", row.Fields)
	}
	proj := projectedDecoder(t, []bool{false, true, false, true})
	row = types.NewRow(4)
	if err := proj.decode(key, value, &row); err != nil {
		t.Fatalf("projected: %v", err)
	}
	if got := row.Fields[1]; got.IsNull() || got.Str() != "a" {
		t.Errorf("name = %v, want a", got)
	}
	if !row.Fields[0].IsNull() || !row.Fields[2].IsNull() {
		t.Errorf("unread fields id, n = %v, %v; want NULL", row.Fields[0], row.Fields[2])
	}
	// A bad value in a read column still fails.
	if err := proj.decode(nil, []byte(`{"name":5.5e}`), &row); err == nil {
		t.Error("malformed read value decoded")
	}
}
