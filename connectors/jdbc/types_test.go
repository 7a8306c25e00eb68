package jdbc_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/types"
)

// TestTypesRoundTrip writes a row of every supported type (and a row of
// NULLs) with the sink, checks a few values with the driver directly, and
// reads the rows back with the source: each value comes back equal, on
// both servers.
func TestTypesRoundTrip(t *testing.T) {
	cols := []struct {
		name     string
		typ      types.Type
		pg, my   string
		val      types.Value
		checkSQL string // an expression over the column the server evaluates, and its text
		want     string
	}{
		{"id", types.BigInt(), "BIGINT PRIMARY KEY", "BIGINT PRIMARY KEY", types.Int64(1), "", ""},
		{"b", types.Boolean(), "BOOLEAN", "BOOLEAN", types.Bool(true), "", ""},
		{"ti", types.TinyInt(), "SMALLINT", "TINYINT", types.Int64(-7), "", ""},
		{"si", types.SmallInt(), "SMALLINT", "SMALLINT", types.Int64(1234), "", ""},
		{"i", types.Int(), "INTEGER", "INT", types.Int64(-2000000000), "", ""},
		{"f", types.Float(), "REAL", "FLOAT", types.Float64(1.5), "", ""},
		{"d", types.Double(), "DOUBLE PRECISION", "DOUBLE", types.Float64(-2.25e-10), "", ""},
		{"amt", types.DecimalType(20, 4), "NUMERIC(20, 4)", "DECIMAL(20, 4)", types.DecimalValue(mustDecimal(t, "1234567890123456.7891")), "CONCAT(amt, '')", "1234567890123456.7891"},
		{"s", types.String(), "TEXT", "TEXT", types.Str("héllo 'quoted' \\ ✓"), "", ""},
		{"c", types.Char(3), "CHAR(3)", "CHAR(3)", types.Str("abc"), "", ""},
		{"bin", types.Bytes(), "BYTEA", "BLOB", types.BytesValue([]byte{0, 1, 0xfe, 0xff, '\''}), "", ""},
		{"dt", types.Date(), "DATE", "DATE", types.DateValue(19000), "CONCAT(dt, '')", "2022-01-08"},
		{"tm", types.Time(3), "TIME(3)", "TIME(3)", types.TimeValue((13*3600+14*60+15)*1e9 + 123e6), "", ""},
		{"ts", types.TimestampType(6), "TIMESTAMP(6)", "DATETIME(6)", types.TimestampValue(types.Timestamp{Millis: 1700000000123, NanoOfMilli: 456000}), "", ""},
		{"ltz", types.TimestampLTZ(3), "TIMESTAMP(3) WITH TIME ZONE", "TIMESTAMP(3)", types.TimestampValue(types.Timestamp{Millis: 1700000000789}), "", ""},
	}
	for _, srv := range dbtest.All(t) {
		t.Run(srv.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			db := srv.Open(t)
			name := dbtest.Table("types")
			ddl := "CREATE TABLE " + name + " ("
			var fcols []factory.Column
			row := types.Row{}
			nulls := types.Row{Fields: []types.Value{types.Int64(2)}}
			for i, c := range cols {
				if i > 0 {
					ddl += ", "
				}
				typ := c.pg
				if !srv.IsPostgreSQL() {
					typ = c.my
				}
				ddl += c.name + " " + typ
				fcols = append(fcols, factory.Column{Name: c.name, Type: c.typ})
				row.Fields = append(row.Fields, c.val)
				if i > 0 {
					nulls.Fields = append(nulls.Fields, types.Value{})
				}
			}
			dbtest.Exec(t, db, ddl+")")
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE " + name) })
			tbl := jdbcTable(srv, name, true)
			tbl.Schema = factory.Schema{Columns: fcols, PrimaryKey: []string{"id"}}
			sink, _, err := factory.Default.CreateSink(ctx, tbl)
			if err != nil {
				t.Fatal(err)
			}
			w, err := sink.Open(ctx, connector.TaskInfo{Job: "types"})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(ctx, []types.Row{row, nulls}); err != nil {
				t.Fatal(err)
			}
			if _, err := w.PreCommit(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			// Independent checks of what the server stored.
			for _, c := range cols {
				if c.checkSQL == "" {
					continue
				}
				var got string
				if err := db.QueryRowContext(ctx, "SELECT "+c.checkSQL+" FROM "+name+" WHERE id = 1").Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != c.want {
					t.Errorf("column %s stored as %q, want %q", c.name, got, c.want)
				}
			}
			var ltzEpoch float64
			q := "SELECT EXTRACT(EPOCH FROM ltz) FROM " + name + " WHERE id = 1"
			if !srv.IsPostgreSQL() {
				q = "SELECT UNIX_TIMESTAMP(ltz) FROM " + name + " WHERE id = 1"
			}
			if err := db.QueryRowContext(ctx, q).Scan(&ltzEpoch); err != nil {
				t.Fatal(err)
			}
			if ltzEpoch != 1700000000.789 {
				t.Errorf("TIMESTAMP_LTZ stored as epoch %v, want 1700000000.789", ltzEpoch)
			}

			src, _, err := factory.Default.CreateSource(ctx, tbl)
			if err != nil {
				t.Fatal(err)
			}
			splits, err := src.Splits(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var states []connector.SplitState
			for _, s := range splits {
				states = append(states, connector.SplitState{ID: s.ID})
			}
			r, err := src.Open(ctx, connector.TaskInfo{Job: "types"}, states)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got []types.Row
			for {
				rows, err := r.Read(ctx)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, rows...)
			}
			if len(got) != 2 {
				t.Fatalf("read %d rows, want 2", len(got))
			}
			for i, want := range []types.Row{row, nulls} {
				for j, c := range cols {
					if g, w := show(c.typ, got[i].Fields[j]), show(c.typ, want.Fields[j]); g != w {
						t.Errorf("row %d column %s (%s): read %s, wrote %s", i, c.name, c.typ.Kind, g, w)
					}
				}
			}
		})
	}
}

// show prints a value for comparison: decimals by their digits (a wide
// one holds a pointer).
func show(t types.Type, v types.Value) string {
	if !v.IsNull() && t.Kind == types.KindDecimal {
		return v.Decimal().String()
	}
	return fmt.Sprint(v)
}

func mustDecimal(t *testing.T, s string) types.Decimal {
	d, err := types.ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
