package jdbc

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/dbtest"
	"github.com/streamsql/streamsql/types"
)

// TestLookup looks rows up by one and by two key columns in the real
// PostgreSQL and MariaDB: every row of a key, none for a missing key or a
// NULL, the values of the types a lookup join compares (a DECIMAL and a
// TIMESTAMP key among them), concurrently from several goroutines.
func TestLookup(t *testing.T) {
	for _, srv := range dbtest.All(t) {
		t.Run(srv.Name, func(t *testing.T) {
			db := srv.Open(t)
			name := dbtest.Table("lookup")
			text := "TEXT"
			if !srv.IsPostgreSQL() {
				text = "VARCHAR(200)"
			}
			dbtest.Exec(t, db, fmt.Sprintf("CREATE TABLE %s (id BIGINT, region %s, rate DECIMAL(10, 4), since TIMESTAMP(3) NULL)", name, text),
				"INSERT INTO "+name+" VALUES (1, 'eu', 1.2500, '2024-03-01 10:00:00.250'), (1, 'us', 2.5000, NULL), (2, 'eu', 0.1000, '2024-03-02 00:00:00')")
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + name) })
			fields := []factory.Column{{Name: "id", Type: types.BigInt()}, {Name: "region", Type: types.String()},
				{Name: "rate", Type: types.DecimalType(10, 4)}, {Name: "since", Type: types.TimestampType(3)}}
			tbl := factory.Table{Name: "cat.db." + name, Schema: factory.Schema{Columns: fields},
				Options: map[string]string{"connector": "jdbc", "url": srv.URL, "table-name": name, "username": srv.User, "password": srv.Password},
				Job:     factory.JobContext{Name: "lookup"}}
			src, _, err := factory.Default.CreateSource(context.Background(), tbl)
			if err != nil {
				t.Fatal(err)
			}
			ls, ok := src.(connector.LookupSource)
			if !ok {
				t.Fatalf("%T is not a connector.LookupSource", src)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ts := []types.Type{types.BigInt(), types.String(), types.DecimalType(10, 4), types.TimestampType(3)}
			format := func(rows []types.Row) []string {
				var out []string
				for _, r := range rows {
					s := ""
					for i, v := range r.Fields {
						s += fmt.Sprintf("%v|", fieldString(v, ts[i]))
					}
					out = append(out, s)
				}
				slices.Sort(out)
				return out
			}

			byID, err := ls.OpenLookup(ctx, connector.TaskInfo{Table: tbl.Name}, []int{0})
			if err != nil {
				t.Fatal(err)
			}
			defer byID.Close()
			var wg sync.WaitGroup
			errs := make(chan error, 20)
			for g := range 20 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					id := int64(g%3 + 1) // 1, 2 and 3 (missing)
					rows, err := byID.Lookup(ctx, []types.Value{types.Int64(id)}, nil)
					if err != nil {
						errs <- err
						return
					}
					want := map[int64]int{1: 2, 2: 1, 3: 0}[id]
					if len(rows) != want {
						errs <- fmt.Errorf("id %d: %d rows, want %d", id, len(rows), want)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			rows, err := byID.Lookup(ctx, []types.Value{types.Int64(1)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := format(rows), []string{"1|eu|1.2500|2024-03-01 10:00:00.250|", "1|us|2.5000|<null>|"}; !slices.Equal(got, want) {
				t.Errorf("id 1: %v, want %v", got, want)
			}
			if rows, err := byID.Lookup(ctx, []types.Value{{}}, nil); err != nil || len(rows) != 0 {
				t.Errorf("a NULL key: %v, %v; want no row", rows, err)
			}

			byTwo, err := ls.OpenLookup(ctx, connector.TaskInfo{Table: tbl.Name}, []int{2, 3})
			if err != nil {
				t.Fatal(err)
			}
			defer byTwo.Close()
			dec, _ := types.ParseDecimal("1.25")
			at := types.TimestampValue(types.Timestamp{Millis: time.Date(2024, 3, 1, 10, 0, 0, 250_000_000, time.UTC).UnixMilli()})
			rows, err = byTwo.Lookup(ctx, []types.Value{types.DecimalValue(dec), at}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := format(rows), []string{"1|eu|1.2500|2024-03-01 10:00:00.250|"}; !slices.Equal(got, want) {
				t.Errorf("rate 1.25 since 10:00:00.250: %v, want %v", got, want)
			}
		})
	}
}

func fieldString(v types.Value, t types.Type) string {
	switch {
	case v.IsNull():
		return "<null>"
	case t.Kind == types.KindDecimal:
		return v.Decimal().String()
	case t.IsTimestamp():
		return v.Timestamp().Time().UTC().Format("2006-01-02 15:04:05.000")
	case t.IsString():
		return v.Str()
	}
	return fmt.Sprint(v.Int64())
}
