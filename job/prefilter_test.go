package job_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/runtime"
)

// TestSharedScanPrefilter runs two INSERTs of a statement set that read
// one table (a shared scan) with filters that keep rows of type 0 and of
// type 1 (as Nexmark's person and auction views over its events): the
// scan's rows that neither keeps go no further than the source's task
// (its rows out are the kept ones), and each sink gets exactly its rows.
func TestSharedScanPrefilter(t *testing.T) {
	in, out, out2 := t.TempDir(), t.TempDir(), t.TempDir()
	var b strings.Builder
	var want, want2 []string
	kept := 0
	for i := range 500 {
		fmt.Fprintf(&b, "{\"t\":%d,\"v\":%d}\n", i%5, i)
		switch i % 5 {
		case 0:
			want = append(want, fmt.Sprintf(`{"v":%d}`, i))
			kept++
		case 1:
			want2 = append(want2, fmt.Sprintf(`{"v":%d}`, -i))
			kept++
		}
	}
	if err := os.WriteFile(filepath.Join(in, "events.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `CREATE TABLE src (t INT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '` + in + `', 'format' = 'json');
CREATE TABLE snk (v BIGINT) WITH ('connector' = 'filesystem', 'path' = '` + out + `', 'format' = 'json');
CREATE TABLE snk2 (v BIGINT) WITH ('connector' = 'filesystem', 'path' = '` + out2 + `', 'format' = 'json');
`
	j, err := job.Compile(context.Background(), "prefilter.sql", src+`EXECUTE STATEMENT SET BEGIN
INSERT INTO snk SELECT v FROM src WHERE t = 0;
INSERT INTO snk2 SELECT -v FROM src WHERE t = 1;
END;`,
		job.Options{Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for k, o := range []string{out, out2} {
		w := [][]string{want, want2}[k]
		slices.Sort(w)
		if got := fileLines(t, o); !slices.Equal(got, w) {
			t.Fatalf("sink %d holds %d rows, want %d", k+1, len(got), len(w))
		}
	}
	// Each reader's filter and projection run in the source's task, on
	// the edge to its sink (runtime.Edge.Transform): no Calc task of its
	// own, and each sink gets its reader's rows only.
	for _, ts := range j.Status().Tasks {
		switch {
		case ts.Kind == runtime.OperatorTask:
			t.Errorf("operator task %s: a shared scan's readers run on its edges", ts.Name)
		case ts.Kind == runtime.SourceTask && ts.RecordsOut != int64(kept):
			t.Errorf("%s sent %d rows, want the %d its readers keep", ts.Name, ts.RecordsOut, kept)
		case ts.Kind == runtime.SinkTask && strings.HasSuffix(ts.Name, "/snk") && ts.RecordsIn != int64(len(want)):
			t.Errorf("%s got %d rows, want its reader's %d", ts.Name, ts.RecordsIn, len(want))
		case ts.Kind == runtime.SinkTask && strings.HasSuffix(ts.Name, "/snk2") && ts.RecordsIn != int64(len(want2)):
			t.Errorf("%s got %d rows, want its reader's %d", ts.Name, ts.RecordsIn, len(want2))
		}
	}

	// A row a reader's filter fails on fails the job with that filter's
	// error, as without the prefilter.
	j, err = job.Compile(context.Background(), "prefilter_error.sql", src+`EXECUTE STATEMENT SET BEGIN
INSERT INTO snk SELECT v FROM src WHERE t = 0;
INSERT INTO snk2 SELECT -v FROM src WHERE 10 / (v - 7) > 0;
END;`,
		job.Options{Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	err = j.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("a failing filter: %v, want the branch's error", err)
	}
}

// TestSharedScanPrefilterNested reads nested JSON from the real broker
// through a shared scan whose readers filter: the Kafka reader reuses the
// memory of its rows and their nested values once the Prefilter is done
// with a batch, so the rows it passes on must be its own, nested values
// included — each sink gets exactly the values of its records.
func TestSharedScanPrefilterNested(t *testing.T) {
	br := kafkatest.Require(t)
	in := br.Topic(t, 1)
	out, out2 := t.TempDir(), t.TempDir()
	cl := br.Client(t)
	const n = 20_000
	var recs []*kgo.Record
	var want, want2 []string
	for i := range n {
		recs = append(recs, &kgo.Record{Topic: in, Value: []byte(fmt.Sprintf(
			`{"t":%d,"r":{"a":%d,"s":"s%d"},"arr":[%d,%d],"d":{"x":[%d],"y":{"z":"z%d"}}}`, i%3, i, i, i, i+1, i, i))})
		switch i % 3 {
		case 0:
			want = append(want, fmt.Sprintf(`{"a":%d,"s":"s%d","e":%d}`, i, i, i+1))
		case 1:
			want2 = append(want2, fmt.Sprintf(`{"r":{"a":%d,"s":"s%d"},"arr":[%d,%d],"d":{"x":[%d],"y":{"z":"z%d"}}}`, i, i, i, i+1, i, i))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`CREATE TABLE src (t INT, r ROW<a BIGINT, s STRING>, arr ARRAY<BIGINT>, d ROW<x ARRAY<BIGINT>, y ROW<z STRING>>) WITH ('connector' = 'kafka',
  'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'properties.group.id' = '%s',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE snk (a BIGINT, s STRING, e BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
CREATE TABLE snk2 (r ROW<a BIGINT, s STRING>, arr ARRAY<BIGINT>, d ROW<x ARRAY<BIGINT>, y ROW<z STRING>>) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
EXECUTE STATEMENT SET BEGIN
INSERT INTO snk SELECT r.a, r.s, arr[2] FROM src WHERE t = 0;
INSERT INTO snk2 SELECT r, arr, d FROM src WHERE t = 1;
END;`, in, br.Addr, kafkatest.UniqueName(t), out, out2)
	j, err := job.Compile(ctx, "prefilter_nested.sql", text,
		job.Options{Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	for k, o := range []string{out, out2} {
		w := [][]string{want, want2}[k]
		slices.Sort(w)
		got := fileLines(t, o)
		if !slices.Equal(got, w) {
			for i := range min(len(got), len(w)) {
				if got[i] != w[i] {
					t.Fatalf("sink %d: %d rows, want %d; first difference %s, want %s", k+1, len(got), len(w), got[i], w[i])
				}
			}
			t.Fatalf("sink %d: %d rows, want %d", k+1, len(got), len(w))
		}
	}
}
