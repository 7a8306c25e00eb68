package json

import (
	"bytes"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/types"
)

// TestRecycleValues checks factory.ValueRecycler: before the first
// RecycleValues every ROW value has memory of its own (rows decoded then
// never change); after it, the ROW values of a batch reuse the memory of
// the batch before the last RecycleValues, and hold exactly their own
// record's values (a field the record lacks is NULL, not the earlier
// row's).
func TestRecycleValues(t *testing.T) {
	inner := types.RowType(types.Field{Name: "x", Type: types.Int()}, types.Field{Name: "y", Type: types.String()})
	fields := []types.Field{{Name: "id", Type: types.BigInt()},
		{Name: "r", Type: types.RowType(types.Field{Name: "a", Type: types.Int()}, types.Field{Name: "b", Type: types.String()},
			types.Field{Name: "in", Type: inner})}}
	dec, enc := codecs(t, fields)
	rv, ok := dec.(factory.ValueRecycler)
	if !ok {
		t.Fatal("the json decoder is no factory.ValueRecycler")
	}
	batches := [][]string{
		{`{"id":1,"r":{"a":1,"b":"one","in":{"x":10,"y":"ten"}}}`, `{"id":2,"r":{"a":2,"b":"two","in":{"x":20,"y":"twenty"}}}`},
		{`{"id":3,"r":{"a":3,"b":"three","in":{"x":30,"y":"thirty"}}}`, `{"id":4,"r":{"a":4,"b":"four","in":{"x":40,"y":"forty"}}}`},
		{`{"id":5,"r":{"in":{"x":50}}}`, `{"id":6,"r":{"a":6,"b":"six"}}`},
		{`{"id":7,"r":null}`, `{"id":8,"r":{"b":"eight","in":{"y":"eighty"}}}`},
	}
	want := [][]string{
		batches[0], batches[1],
		{`{"id":5,"r":{"a":null,"b":null,"in":{"x":50,"y":null}}}`, `{"id":6,"r":{"a":6,"b":"six","in":null}}`},
		{`{"id":7,"r":null}`, `{"id":8,"r":{"a":null,"b":"eight","in":{"x":null,"y":"eighty"}}}`},
	}
	encode := func(row types.Row) string {
		b, err := enc.Encode(nil, row)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	decode := func(recs []string) []types.Row {
		rows := make([]types.Row, len(recs))
		for i, rec := range recs {
			if err := dec.Decode([]byte(rec), &rows[i]); err != nil {
				t.Fatal(err)
			}
		}
		return rows
	}
	check := func(rows []types.Row, want []string) {
		t.Helper()
		for i, row := range rows {
			if got := encode(row); got != want[i] {
				t.Fatalf("row %d = %s, want %s", i, got, want[i])
			}
		}
	}
	first := decode(batches[0]) // before any RecycleValues: memory of their own
	rv.RecycleValues()
	second := decode(batches[1])
	rv.RecycleValues()
	third := decode(batches[2])
	check(first, want[0]) // not overwritten by later batches
	check(third, want[2])
	if &third[0].Fields[1].List()[0] != &second[0].Fields[1].List()[0] {
		t.Fatal("the ROW values of a recycled batch were not reused")
	}
	for _, row := range third {
		if &row.Fields[1].List()[0] == &first[0].Fields[1].List()[0] || &row.Fields[1].List()[0] == &first[1].Fields[1].List()[0] {
			t.Fatal("a ROW value decoded before the first RecycleValues was reused")
		}
	}
	rv.RecycleValues()
	check(decode(batches[3]), want[3])
}

// TestNoRecycleWithoutRecycleValues checks that a decoder never told to
// recycle gives every ROW value memory of its own.
func TestNoRecycleWithoutRecycleValues(t *testing.T) {
	fields := []types.Field{{Name: "r", Type: types.RowType(types.Field{Name: "a", Type: types.Int()})}}
	dec, _ := codecs(t, fields)
	seen := map[*types.Value]bool{}
	for range 100 {
		var row types.Row
		if err := dec.Decode([]byte(`{"r":{"a":1}}`), &row); err != nil {
			t.Fatal(err)
		}
		p := &row.Fields[0].List()[0]
		if seen[p] {
			t.Fatal("two rows share a ROW value's memory")
		}
		seen[p] = true
	}
}

// FuzzRecycleValues decodes the lines of the input in batches, with a
// decoder that recycles its ROW values after each batch and with one that
// never does, and checks that every row of a batch, read once the whole
// batch is decoded (as the runtime reads it), is the same in both, and
// that both fail on the same records.
func FuzzRecycleValues(f *testing.F) {
	f.Add([]byte("{\"id\":1,\"r\":{\"a\":1,\"b\":\"x\",\"in\":{\"x\":1}},\"rs\":[{\"x\":2}]}\n{\"id\":2,\"r\":{\"b\":\"y\"}}\n{\"r\":null}\n{\"rs\":[{\"x\":3},{\"y\":\"z\"}],\"m\":{\"k\":{\"x\":4}}}"), uint8(2))
	f.Add([]byte("{\"r\":{\"in\":{\"x\":1,\"y\":\"a\"}}}\n{\"r\":{\"in\":{}}}\n{\"r\":{\"a\":\"bad\"}}\n{\"r\":{\"in\":{\"y\":\"b\"}}}"), uint8(1))
	inner := types.RowType(types.Field{Name: "x", Type: types.Int()}, types.Field{Name: "y", Type: types.String()})
	fields := []types.Field{{Name: "id", Type: types.BigInt()},
		{Name: "r", Type: types.RowType(types.Field{Name: "a", Type: types.Int()}, types.Field{Name: "b", Type: types.String()},
			types.Field{Name: "in", Type: inner})},
		{Name: "rs", Type: types.Array(inner)}, {Name: "m", Type: types.Map(types.String(), inner)}}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		recycled, enc := codecs(t, fields)
		plain, _ := codecs(t, fields)
		recycled.(factory.ValueRecycler).RecycleValues()
		lines := bytes.Split(data, []byte("\n"))
		size := 1 + int(k%8)
		for start := 0; start < len(lines); start += size {
			batch := lines[start:min(start+size, len(lines))]
			rows := make([]types.Row, len(batch))
			var want []string
			for i, rec := range batch {
				var p types.Row
				errR, errP := recycled.Decode(rec, &rows[i]), plain.Decode(rec, &p)
				if (errR == nil) != (errP == nil) {
					t.Fatalf("record %q: error %v recycling, %v not", rec, errR, errP)
				}
				if errR != nil {
					rows[i] = types.Row{}
					want = append(want, "")
					continue
				}
				b, err := enc.Encode(nil, p)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, string(b))
			}
			for i, row := range rows {
				if want[i] == "" {
					continue
				}
				b, err := enc.Encode(nil, row)
				if err != nil {
					t.Fatal(err)
				}
				if string(b) != want[i] {
					t.Fatalf("record %q, read after its batch: %s recycling, %s not", batch[i], b, want[i])
				}
			}
			recycled.(factory.ValueRecycler).RecycleValues()
		}
	})
}

// TestRecycledNexmarkDecodeAllocatesNothing checks that once values are
// recycled, decoding Nexmark's events with what q0 reads allocates no
// memory per event (strings share the decoder's arena, whose chunks are
// an allocation per several events): the ROW's fields and its slice
// header both come from the decoder's reused slab.
func TestRecycledNexmarkDecodeAllocatesNothing(t *testing.T) {
	f, err := resolve(t)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := formattest.NexmarkRows(500)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := f.NewEncoder(formattest.NexmarkFields)
	if err != nil {
		t.Fatal(err)
	}
	records := make([][]byte, len(rows))
	for i, r := range rows {
		if records[i], err = enc.Encode(nil, r); err != nil {
			t.Fatal(err)
		}
	}
	dec, err := f.NewNestedDecoder(formattest.NexmarkFields, nil, formattest.NexmarkQ0Read, nil)
	if err != nil {
		t.Fatal(err)
	}
	rv := dec.(factory.ValueRecycler)
	var row types.Row
	run := func() {
		rv.RecycleValues()
		for _, rec := range records {
			if err := dec.Decode(rec, &row); err != nil {
				t.Fatal(err)
			}
		}
	}
	run() // the slab's chunks
	// A run of 500 events allocates only arena chunks (4 KiB each, for
	// about 40 KB of strings): well under one allocation per event.
	if n := testing.AllocsPerRun(20, run); n > float64(len(records))/20 {
		t.Errorf("%.0f allocations per %d events", n, len(records))
	}
	// And the decoder still reads: the last bid event, again.
	last := len(rows) - 1
	for rows[last].Fields[3].IsNull() {
		last--
	}
	if err := dec.Decode(records[last], &row); err != nil {
		t.Fatal(err)
	}
	want := rows[last].Fields[3].List()
	if bid := row.Fields[3].List(); len(bid) != 7 || bid[0] != want[0] || bid[6] != want[6] || !bid[4].IsNull() {
		t.Errorf("bid ROW %v, want auction %v, extra %v and no url", row.Fields[3], want[0], want[6])
	}
}
