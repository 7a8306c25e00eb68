package cdc

import (
	"errors"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/flinkgolden"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/types"
)

// The fuzz targets start from every input of the Flink golden file (the
// committed seeds) and check that no input panics a decoder, that every
// failure is a *factory.DecodeError or a skip, and that the rows are a
// well-formed changelog: each UPDATE_BEFORE followed by an UPDATE_AFTER,
// every row as wide as the table with its metadata.

var fuzzFields = []types.Field{
	{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()},
	{Name: "price", Type: types.DecimalType(10, 2)}, {Name: "ts", Type: types.TimestampType(3)},
}

func seedGolden(f *testing.F, id string) {
	blocks, err := flinkgolden.Read("testdata/flink/deserialize.txt", false)
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range blocks {
		if b.Options["format"] != id {
			continue
		}
		for _, c := range b.Cases {
			f.Add(c.Input)
		}
	}
}

// decodeChecked decodes data and checks the invariants; it returns the rows.
func decodeChecked(t *testing.T, d factory.MultiRowDecoder, width int, data []byte) []types.Row {
	var row types.Row
	err := d.Decode(data, &row)
	if err != nil {
		var de *factory.DecodeError
		if !errors.As(err, &de) && !errors.Is(err, factory.ErrSkipRecord) {
			t.Fatalf("error of unexpected kind: %v", err)
		}
		if d.Next(&row) {
			t.Fatal("Next returned a row after Decode failed")
		}
		return nil
	}
	rows := []types.Row{row.Clone()}
	for d.Next(&row) {
		rows = append(rows, row.Clone())
		if len(rows) > len(data) {
			t.Fatalf("%d rows from %d bytes", len(rows), len(data))
		}
	}
	for i, r := range rows {
		if len(r.Fields) != width {
			t.Fatalf("row %d has %d fields, want %d", i, len(r.Fields), width)
		}
		if r.Kind == types.UpdateBefore && (i+1 >= len(rows) || rows[i+1].Kind != types.UpdateAfter) {
			t.Fatalf("row %d is UPDATE_BEFORE without an UPDATE_AFTER after it", i)
		}
	}
	return rows
}

func FuzzDebeziumDecode(f *testing.F) {
	seedGolden(f, Debezium)
	d := newDec(f, Debezium, fuzzFields, nil)
	ds := newDec(f, Debezium, fuzzFields, []string{"schema", "source.table", "source.timestamp", "source.properties", "ingestion-timestamp"},
		"schema-include", "true")
	fm, _ := resolve(f, Debezium)
	enc, err := fm.NewEncoder(fuzzFields)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeChecked(t, ds, len(fuzzFields)+5, data)
		// What decodes re-encodes (one envelope per row) and decodes to
		// the same values.
		for _, r := range decodeChecked(t, d, len(fuzzFields), data) {
			out, err := enc.Encode(nil, r)
			if err != nil {
				t.Fatalf("re-encode %v: %v", r, err)
			}
			again := decodeChecked(t, d, len(fuzzFields), out)
			if len(again) != 1 {
				t.Fatalf("our own envelope %s decodes to %d rows", out, len(again))
			}
			for i, fl := range fuzzFields {
				if !formattest.Equal(fl.Type, r.Fields[i], again[0].Fields[i]) {
					t.Fatalf("field %s changed through %s", fl.Name, out)
				}
			}
		}
	})
}

func FuzzCanalDecode(f *testing.F) {
	seedGolden(f, Canal)
	d := newDec(f, Canal, fuzzFields, []string{"database", "table", "sql-type", "pk-names", "ingestion-timestamp", "event-timestamp"})
	df := newDec(f, Canal, fuzzFields, nil, "database.include", "inv.*", "table.include", "prod.*")
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeChecked(t, d, len(fuzzFields)+6, data)
		decodeChecked(t, df, len(fuzzFields), data)
	})
}

func FuzzMaxwellDecode(f *testing.F) {
	seedGolden(f, Maxwell)
	d := newDec(f, Maxwell, fuzzFields, []string{"database", "table", "primary-key-columns", "ingestion-timestamp"})
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeChecked(t, d, len(fuzzFields)+4, data)
	})
}

// FuzzProjectedDecode checks each change-event format's decoder made with
// FormatContext.ReadFields (id and price read) against its decoder of
// every field: the invariants above; where the full decoder reads rows the
// projected one reads as many, of the same kinds, with the same values in
// the read fields and NULL in the others; and it fails only where the full
// decoder fails.
func FuzzProjectedDecode(f *testing.F) {
	for _, id := range []string{Debezium, Canal, Maxwell} {
		seedGolden(f, id)
	}
	read := []bool{true, false, true, false}
	type pair struct{ full, proj factory.MultiRowDecoder }
	var decs []pair
	for _, id := range []string{Debezium, Canal, Maxwell} {
		fm, err := resolve(f, id)
		if err != nil {
			f.Fatal(err)
		}
		p, err := fm.NewProjectedDecoder(fuzzFields, read, nil)
		if err != nil {
			f.Fatal(err)
		}
		decs = append(decs, pair{newDec(f, id, fuzzFields, nil), p.(factory.MultiRowDecoder)})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range decs {
			full := decodeChecked(t, d.full, len(fuzzFields), data)
			var probe types.Row
			fullErr := d.full.Decode(data, &probe)
			for d.full.Next(&probe) {
			}
			proj := decodeChecked(t, d.proj, len(fuzzFields), data)
			var probe2 types.Row
			projErr := d.proj.Decode(data, &probe2)
			for d.proj.Next(&probe2) {
			}
			if projErr != nil && fullErr == nil {
				t.Fatalf("%q: the projected decoder fails (%v) where the full one reads %d rows", data, projErr, len(full))
			}
			if fullErr != nil || projErr != nil {
				continue
			}
			if len(proj) != len(full) {
				t.Fatalf("%q: %d projected rows, %d full", data, len(proj), len(full))
			}
			for i := range full {
				if proj[i].Kind != full[i].Kind {
					t.Fatalf("%q: row %d kind %v, full %v", data, i, proj[i].Kind, full[i].Kind)
				}
				for j, fl := range fuzzFields {
					if !read[j] && !proj[i].Fields[j].IsNull() {
						t.Fatalf("%q: row %d: unread %s not NULL", data, i, fl.Name)
					}
					if read[j] && !formattest.Equal(fl.Type, proj[i].Fields[j], full[i].Fields[j]) {
						t.Fatalf("%q: row %d: %s differs from the full decoder's", data, i, fl.Name)
					}
				}
			}
		}
	})
}
