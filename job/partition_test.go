package job_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/job"
)

// TestInsertStaticPartition runs INSERT ... PARTITION into a partitioned
// filesystem table, in the three forms of Flink's INSERT page: every
// partition column given (the query writes the others), one given (the
// query writes the rest, the other partition column last), and a column
// list beside the spec (the unlisted column NULL). Each row lands in the
// directory of its partition values, which the files do not repeat.
func TestInsertStaticPartition(t *testing.T) {
	dir := t.TempDir()
	j, err := job.Compile(context.Background(), "partition.sql", `
CREATE TABLE pv (u STRING, n INT, dt STRING, c STRING) PARTITIONED BY (dt, c)
  WITH ('connector' = 'filesystem', 'path' = '`+dir+`', 'format' = 'json');
EXECUTE STATEMENT SET BEGIN
INSERT INTO pv PARTITION (dt = '2019-8-30', c = 'China') SELECT u, n FROM (VALUES ('a', 1), ('b', 2)) AS v (u, n);
INSERT INTO pv PARTITION (dt = '2019-8-31') SELECT u, n, c FROM (VALUES ('c', 3, 'US'), ('d', 4, 'CN')) AS v (u, n, c);
INSERT INTO pv PARTITION (dt = '2019-9-1', c = 'US') (u) SELECT u FROM (VALUES ('e')) AS v (u);
END;`, job.Options{Set: map[string]string{"execution.checkpointing.dir": t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		part string
		want []string
	}{
		{"dt=2019-8-30/c=China", []string{`{"u":"a","n":1}`, `{"u":"b","n":2}`}},
		{"dt=2019-8-31/c=US", []string{`{"u":"c","n":3}`}},
		{"dt=2019-8-31/c=CN", []string{`{"u":"d","n":4}`}},
		{"dt=2019-9-1/c=US", []string{`{"u":"e","n":null}`}},
	} {
		if got := fileLines(t, filepath.Join(dir, c.part)); !slices.Equal(got, c.want) {
			t.Errorf("%s holds %q, want %q", c.part, got, c.want)
		}
	}
}
