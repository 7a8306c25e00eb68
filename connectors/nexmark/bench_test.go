package nexmark_test

import (
	"context"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkRead measures generating events as rows with the public
// connector's default options (unbounded, as fast as possible), reading
// every column ("all") and, as q0-q2 do, only event_type and bid
// ("bids"). Rows are recycled after each batch, as the runtime does when
// its transform copies what it keeps.
func BenchmarkRead(b *testing.B) {
	for _, bc := range []struct {
		name string
		read []bool
	}{{"all", nil}, {"bids", []bool{true, false, false, true}}} {
		b.Run(bc.name, func(b *testing.B) {
			f, _ := factory.Default.Connector("nexmark")
			tbl := factory.Table{Name: "nexmark", Options: map[string]string{"connector": "nexmark"}}
			tbl.Schema.Columns = append(tbl.Schema.Columns, nexmarkSchemaColumns()...)
			v, err := factory.Default.Validate(tbl)
			if err != nil {
				b.Fatal(err)
			}
			src, err := f.NewSource(factory.Context{Table: tbl.Name, Schema: tbl.Schema, Options: v.Config, ReadFields: bc.read})
			if err != nil {
				b.Fatal(err)
			}
			r, err := src.Open(context.Background(), connector.TaskInfo{}, []connector.SplitState{{ID: "nexmark-0-of-1"}})
			if err != nil {
				b.Fatal(err)
			}
			rec := r.(connector.RowRecycler)
			b.ReportAllocs()
			events := 0
			for b.Loop() {
				rows, err := r.Read(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				events += len(rows)
				rec.Recycle(rows)
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(b.N)/float64(events), "reads/event")
		})
	}
}

func nexmarkSchemaColumns() []factory.Column {
	var out []factory.Column
	for _, f := range schemaFields() {
		out = append(out, factory.Column{Name: f.Name, Type: f.Type})
	}
	return out
}

func schemaFields() []types.Field { return nexmark.Schema }
