package datagen_test

import (
	"context"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkRead measures generating rows of a BIGINT sequence, a random
// BIGINT, a random 16-character VARCHAR and a random DOUBLE.
func BenchmarkRead(b *testing.B) {
	t := factory.Table{Name: "gen", Schema: factory.Schema{Columns: []factory.Column{
		{Name: "id", Type: types.BigInt()},
		{Name: "n", Type: types.BigInt()},
		{Name: "s", Type: types.VarChar(16)},
		{Name: "d", Type: types.Double()},
	}}, Options: map[string]string{
		"connector": "datagen", "rows-per-second": "0",
		"fields.id.kind": "sequence", "fields.id.start": "0", "fields.id.end": "9223372036854775806",
	}}
	src, _, err := factory.Default.Clone().CreateSource(context.Background(), t)
	if err != nil {
		b.Fatal(err)
	}
	r, err := src.Open(context.Background(), connector.TaskInfo{Parallelism: 1}, []connector.SplitState{{ID: "datagen-0-of-1"}})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		batch, err := r.Read(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		rows += len(batch)
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
