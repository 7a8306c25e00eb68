package cdc

import (
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// TestProjectedChangeEvents: with FormatContext.ReadFields the row's
// unread fields are NULL in every row of a change event and a bad value
// there fails no record, as Flink 1.20.3's DebeziumJsonFormatFactory does
// with a projection (a probe read {"before":null,"after":{"id":1,
// "n":"abc","s":"a","nn":3},"op":"c"} projected to id, s as +I(1,a) and
// failed it without the projection); a bad value in a read field still
// fails.
func TestProjectedChangeEvents(t *testing.T) {
	fields := []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "n", Type: types.Int()}, {Name: "s", Type: types.String()}}
	read := []bool{true, false, true}
	for _, c := range []struct {
		id, opts, good, bad string
		rows                int
	}{
		{Debezium, "", `{"before":{"id":1,"n":"x","s":"a"},"after":{"id":1,"n":"abc","s":"b"},"op":"u"}`, `{"before":null,"after":{"id":"abc","n":1,"s":"a"},"op":"c"}`, 2},
		{Debezium, "schema-include", `{"schema":{},"payload":{"before":null,"after":{"id":1,"n":"abc","s":"b"},"op":"c"}}`, `{"schema":{},"payload":{"before":null,"after":{"id":"abc"},"op":"c"}}`, 1},
		{Canal, "", `{"data":[{"id":1,"n":"abc","s":"b"}],"old":[{"n":"x"}],"type":"UPDATE","database":"d","table":"t"}`, `{"data":[{"id":"abc"}],"old":null,"type":"INSERT","database":"d","table":"t"}`, 2},
		{Maxwell, "", `{"data":{"id":1,"n":"abc","s":"b"},"old":{"n":"x"},"type":"update","database":"d","table":"t"}`, `{"data":{"id":"abc"},"type":"insert","database":"d","table":"t"}`, 2},
	} {
		var kv []string
		if c.opts != "" {
			kv = []string{"schema-include", "true"}
		}
		f, err := resolve(t, c.id, kv...)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []([]bool){nil, read} {
			dec, err := f.NewProjectedDecoder(fields, r, nil)
			if err != nil {
				t.Fatal(err)
			}
			var row types.Row
			err = dec.Decode([]byte(c.good), &row)
			if r == nil {
				if err == nil {
					t.Errorf("%s %s: a decoder of every field read %v", c.id, c.opts, row.Fields)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %s: projected: %v", c.id, c.opts, err)
				continue
			}
			n := 1
			for {
				if !row.Fields[1].IsNull() || row.Fields[0].IsNull() || row.Fields[2].IsNull() {
					t.Errorf("%s %s: row %d is %v: want id and s set, n NULL", c.id, c.opts, n, row.Fields)
				}
				m, ok := dec.(factory.MultiRowDecoder)
				if !ok || !m.Next(&row) {
					break
				}
				n++
			}
			if n != c.rows {
				t.Errorf("%s %s: %d rows, want %d", c.id, c.opts, n, c.rows)
			}
			if err := dec.Decode([]byte(c.bad), &row); err == nil {
				t.Errorf("%s %s: a bad value in a read field decoded: %v", c.id, c.opts, row.Fields)
			}
		}
	}
}

// TestNestedProjectedChangeEvents: with FormatContext.ReadRows the unread
// fields of a ROW column are NULL in every row of a change event (before
// and after, data and old) and a bad value there fails no record, while
// malformed JSON there still fails it; a bad value in a read nested field
// fails as before.
func TestNestedProjectedChangeEvents(t *testing.T) {
	rt := types.RowType(types.Field{Name: "x", Type: types.Int()}, types.Field{Name: "y", Type: types.Int()})
	fields := []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "r", Type: rt}}
	rows := []*factory.RowRead{nil, {Fields: []bool{true, false}}}
	for _, c := range []struct {
		id, good, malformed, bad string
		rows                     int
	}{
		{Debezium, `{"before":{"id":1,"r":{"x":1,"y":"a"}},"after":{"id":1,"r":{"x":2,"y":"b"}},"op":"u"}`,
			`{"before":null,"after":{"id":1,"r":{"x":2,"y":tru}},"op":"c"}`, `{"before":null,"after":{"id":1,"r":{"x":"a"}},"op":"c"}`, 2},
		{Canal, `{"data":[{"id":1,"r":{"x":2,"y":"b"}}],"old":[{"r":{"x":1,"y":"a"}}],"type":"UPDATE","database":"d","table":"t"}`,
			`{"data":[{"id":1,"r":{"x":2,"y":[}}],"old":null,"type":"INSERT","database":"d","table":"t"}`, `{"data":[{"id":1,"r":{"x":"a"}}],"old":null,"type":"INSERT","database":"d","table":"t"}`, 2},
		{Maxwell, `{"data":{"id":1,"r":{"x":2,"y":"b"}},"old":{"r":{"x":1,"y":"a"}},"type":"update","database":"d","table":"t"}`,
			`{"data":{"id":1,"r":{"x":2,"y":"\q"}},"type":"insert","database":"d","table":"t"}`, `{"data":{"id":1,"r":{"x":"a"}},"type":"insert","database":"d","table":"t"}`, 2},
	} {
		f, err := resolve(t, c.id)
		if err != nil {
			t.Fatal(err)
		}
		for _, rr := range [][]*factory.RowRead{nil, rows} {
			dec, err := f.NewNestedDecoder(fields, nil, rr, nil)
			if err != nil {
				t.Fatal(err)
			}
			var row types.Row
			err = dec.Decode([]byte(c.good), &row)
			if rr == nil {
				if err == nil {
					t.Errorf("%s: a decoder of every field read %v", c.id, row.Fields)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: projected: %v", c.id, err)
				continue
			}
			n := 1
			for {
				r := row.Fields[1].List()
				if len(r) != 2 || r[0].IsNull() || !r[1].IsNull() {
					t.Errorf("%s: row %d is %v: want r.x set, r.y NULL", c.id, n, row.Fields)
				}
				m, ok := dec.(factory.MultiRowDecoder)
				if !ok || !m.Next(&row) {
					break
				}
				n++
			}
			if n != c.rows {
				t.Errorf("%s: %d rows, want %d", c.id, n, c.rows)
			}
			if err := dec.Decode([]byte(c.malformed), &row); err == nil {
				t.Errorf("%s: malformed JSON in an unread nested field decoded: %v", c.id, row.Fields)
			}
			if err := dec.Decode([]byte(c.bad), &row); err == nil {
				t.Errorf("%s: a bad value in a read nested field decoded: %v", c.id, row.Fields)
			}
		}
	}
}
