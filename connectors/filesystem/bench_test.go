package filesystem_test

import (
	"context"
	"errors"
	"io"
	"strconv"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

var benchSchema = factory.Schema{Columns: []factory.Column{
	{Name: "id", Type: types.BigInt()},
	{Name: "name", Type: types.String()},
	{Name: "amount", Type: types.Double()},
}}

func benchRows(n int) []types.Row {
	rows := make([]types.Row, n)
	for i := range rows {
		rows[i] = types.Row{Fields: []types.Value{types.Int64(int64(i)), types.Str("customer-" + strconv.Itoa(i)), types.Float64(float64(i) / 4)}}
	}
	return rows
}

// BenchmarkSinkJSON measures writing json rows through the factory-created
// sink, with a pre-commit and commit every 16 batches of 512 rows.
func BenchmarkSinkJSON(b *testing.B) {
	ctx := context.Background()
	reg := factory.Default.Clone()
	t := factory.Table{Name: "out", Schema: benchSchema, Options: map[string]string{
		"connector": "filesystem", "path": b.TempDir(), "format": "json"}}
	sink, _, err := reg.CreateSink(ctx, t)
	if err != nil {
		b.Fatal(err)
	}
	cm, _ := sink.(connector.TwoPhaseSink).Committer(ctx, "bench")
	w, err := sink.Open(ctx, connector.TaskInfo{Job: "bench", Parallelism: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	rows := benchRows(512)
	b.ReportAllocs()
	n, cp := 0, int64(0)
	for b.Loop() {
		if err := w.Write(ctx, rows); err != nil {
			b.Fatal(err)
		}
		if n++; n%16 == 0 {
			cp++
			cs, err := w.PreCommit(ctx, cp)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range cs {
				if err := cm.Commit(ctx, c); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportMetric(float64(n*len(rows))/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkSourceJSON measures reading json files through the
// factory-created source.
func BenchmarkSourceJSON(b *testing.B) { benchSource(b, "json", benchRows(512)) }

// BenchmarkSourceCSV measures reading csv files through the factory-created
// source: records of one line, and records whose STRING value has a line
// break (every record spans two lines).
func BenchmarkSourceCSV(b *testing.B) {
	b.Run("oneline", func(b *testing.B) { benchSource(b, "csv", benchRows(512)) })
	rows := benchRows(512)
	for i := range rows {
		rows[i].Fields[1] = types.Str("customer\n" + strconv.Itoa(i))
	}
	b.Run("multiline", func(b *testing.B) { benchSource(b, "csv", rows) })
}

func benchSource(b *testing.B, format string, rows []types.Row) {
	ctx := context.Background()
	reg := factory.Default.Clone()
	t := factory.Table{Name: "in", Schema: benchSchema, Options: map[string]string{
		"connector": "filesystem", "path": b.TempDir(), "format": format}}
	sink, _, err := reg.CreateSink(ctx, t)
	if err != nil {
		b.Fatal(err)
	}
	cm, _ := sink.(connector.TwoPhaseSink).Committer(ctx, "bench")
	w, _ := sink.Open(ctx, connector.TaskInfo{Job: "bench", Parallelism: 1})
	const total = 100 * 512
	for range total / 512 {
		if err := w.Write(ctx, rows); err != nil {
			b.Fatal(err)
		}
	}
	cs, err := w.PreCommit(ctx, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range cs {
		if err := cm.Commit(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	src, _, err := reg.CreateSource(ctx, t)
	if err != nil {
		b.Fatal(err)
	}
	splits, _ := src.Splits(ctx)
	b.ReportAllocs()
	read := 0
	for b.Loop() {
		states := make([]connector.SplitState, len(splits))
		for i, s := range splits {
			states[i] = connector.SplitState{ID: s.ID}
		}
		r, err := src.Open(ctx, connector.TaskInfo{Parallelism: 1}, states)
		if err != nil {
			b.Fatal(err)
		}
		for {
			batch, err := r.Read(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			read += len(batch)
		}
		r.Close()
	}
	if read%total != 0 {
		b.Fatalf("read %d rows, not a multiple of %d", read, total)
	}
	b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "rows/s")
}
