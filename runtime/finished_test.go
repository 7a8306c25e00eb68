package runtime_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/runtime/testkit"
)

// TestFinishedJobIsNotRunAgain runs a bounded job with the default
// retention (its checkpoints are deleted when it finishes) in a child
// process to the end, then starts it again as an operator or supervisor
// does after a SIGKILL that landed after the deletion and before the
// exit (the files on disk are the same: the finished record and no
// checkpoint). The second run must not write the output again. After
// checkpoint drop-finished's deletion of the record, a run processes the
// input again from the start.
func TestFinishedJobIsNotRunAgain(t *testing.T) {
	const per = 300
	t.Setenv(childRetentionEnv, strconv.Itoa(int(jobconfig.NoExternalizedCheckpoints)))
	dir := t.TempDir()
	finishChild(t, dir, per)
	r := childRig(dir, per)
	r.spec()
	r.verify(t, r.full())
	folder := filepath.Join(dir, "checkpoints", "testjob")
	if ents, err := checkpointFiles(folder); err != nil || len(ents) > 0 {
		t.Fatalf("checkpoints left after a finish with %s: %v %v", jobconfig.NoExternalizedCheckpoints, ents, err)
	}
	if _, err := os.Stat(filepath.Join(folder, checkpoint.FinishedFileName)); err != nil {
		t.Fatalf("no finished record: %v", err)
	}

	finishChild(t, dir, per) // the crash restart: exits 0, writes nothing
	r.verify(t, r.full())

	d, err := checkpoint.OpenDir(filepath.Join(dir, "checkpoints"), "testjob")
	if err != nil {
		t.Fatal(err)
	}
	if had, err := d.DropFinished(); err != nil || !had {
		t.Fatalf("DropFinished = %v, %v; want true", had, err)
	}
	finishChild(t, dir, per) // a deliberate rerun: the input again
	for _, fs := range r.fileSinks {
		rows, err := testkit.ReadCommitted(fs.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if want := 2 * per * r.partitions; len(rows) != want {
			t.Fatalf("sink %s: %d rows after a rerun from the start; want %d (the input twice)", fs.Dir, len(rows), want)
		}
	}
}
