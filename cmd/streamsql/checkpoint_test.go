package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// TestCheckpointCommands: list names the latest checkpoint and the
// fallback, show prints the pending committables' keys (masking values of
// secret-looking keys), drop-pending takes those keys and writes a
// revision; the job is found from its job file as run finds it, or from
// --job-name and --dir.
func TestCheckpointCommands(t *testing.T) {
	base := t.TempDir()
	d, err := checkpoint.OpenDir(base, "orders")
	if err != nil {
		t.Fatal(err)
	}
	lost := checkpoint.Key{Sink: "insert-1/out", Run: "9f2c", Checkpoint: 2, Task: 0, Seq: 0}
	for _, md := range []*checkpoint.Metadata{
		{ID: 1, Sources: map[string][]connector.SplitState{"insert-1/src": {{ID: "p0", State: []byte(`{"offset":7}`)}}}},
		{ID: 2, Pending: []checkpoint.Committable{{Key: lost, Data: []byte(`{"transactionalId":"x-0-0","password":"hunter2"}`)}}},
	} {
		md.Version, md.Job, md.Run = checkpoint.FormatVersion, "orders", "9f2c"
		if _, err := d.Write(md); err != nil {
			t.Fatal(err)
		}
	}
	byName := []string{"--job-name", "orders", "--dir", base}
	if code, _, errOut := cli("checkpoint", "list", "--job-name", "order", "--dir", base); code != 1 || !strings.Contains(errOut, `no checkpoints of job "order"`) {
		t.Fatalf("list of a job without checkpoints: exit %d, %s", code, errOut)
	}

	code, out, errOut := cli(append([]string{"checkpoint", "list"}, byName...)...)
	if code != 0 || !strings.Contains(out, "latest") || !strings.Contains(out, "fallback") ||
		!strings.Contains(out, checkpoint.FileName(1)) || !strings.Contains(out, checkpoint.FileName(2)) {
		t.Fatalf("list: exit %d\n%s%s", code, out, errOut)
	}

	code, out, errOut = cli(append([]string{"checkpoint", "show"}, byName...)...)
	if code != 0 || !strings.Contains(out, lost.Token()) || !strings.Contains(out, "x-0-0") {
		t.Fatalf("show: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "hunter2") {
		t.Fatalf("show prints a secret:\n%s", out)
	}
	code, out, errOut = cli(append([]string{"checkpoint", "show", "--checkpoint", "1"}, byName...)...)
	if code != 0 || !strings.Contains(out, `"offset": 7`) {
		t.Fatalf("show --checkpoint 1: exit %d\n%s%s", code, out, errOut)
	}

	// Through the job file, as run finds the folder.
	job := writeJob(t, `SET 'pipeline.name' = 'orders';
SET 'execution.checkpointing.dir' = '`+base+`';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE out (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT id FROM src;
`)
	if code, _, errOut := cli("checkpoint", "drop-pending", job, "insert-1/out#2/0/0/nope"); code != 1 || !strings.Contains(errOut, "no such pending committable") {
		t.Fatalf("dropping an unknown key: exit %d, %s", code, errOut)
	}
	if code, _, errOut := cli("checkpoint", "drop-pending", job, "garbage"); code != 2 || !strings.Contains(errOut, "<sink>#<checkpoint>") {
		t.Fatalf("dropping a malformed key: exit %d, %s", code, errOut)
	}
	code, out, errOut = cli("checkpoint", "drop-pending", job, lost.Token())
	if code != 0 || !strings.Contains(out, "checkpoint 2 revision 1 now lists 0 pending") {
		t.Fatalf("drop-pending: exit %d\n%s%s", code, out, errOut)
	}
	md, err := d.Latest()
	if err != nil || md.ID != 2 || md.Revision != 1 || len(md.Pending) != 0 {
		t.Fatalf("latest after drop-pending: %+v %v", md, err)
	}
	code, out, _ = cli("checkpoint", "list", job)
	if code != 0 || !strings.Contains(out, checkpoint.RevisionFileName(2, 1)) {
		t.Fatalf("list after drop-pending: exit %d\n%s", code, out)
	}
}

// TestFinishedJobRunsOnce: a bounded job with a checkpoint folder and the
// default retention leaves a finished record when it finishes; a second
// run (a restart after a kill between the deletion of the checkpoints and
// the exit looks the same) exits 0 without output and says how to run the
// job again; list shows the record; drop-finished deletes it, and the
// next run processes the input again.
func TestFinishedJobRunsOnce(t *testing.T) {
	base := t.TempDir()
	job := writeJob(t, `SET 'pipeline.name' = 'once';
SET 'execution.checkpointing.dir' = '`+base+`';
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t(id, name);
`)
	const rows = "op[id, name]\n+I[1, a]\n+I[2, b]\n"
	record := filepath.Join(base, "once", checkpoint.FinishedFileName)
	code, out, errOut := cli("run", job)
	if code != 0 || out != rows {
		t.Fatalf("first run: exit %d, stdout %q\n%s", code, out, errOut)
	}
	if _, err := os.Stat(record); err != nil {
		t.Fatalf("no finished record after the first run: %v", err)
	}
	code, out, errOut = cli("run", job)
	if code != 0 || strings.Contains(out, "+I[") {
		t.Fatalf("second run: exit %d, stdout %q; want exit 0 and no rows\n%s", code, out, errOut)
	}
	for _, want := range []string{"level=WARN", "job already finished at", "this run does nothing", "streamsql checkpoint drop-finished", record} {
		if !strings.Contains(errOut, want) {
			t.Errorf("second run's log lacks %q:\n%s", want, errOut)
		}
	}
	code, out, errOut = cli("checkpoint", "list", job)
	if code != 0 || !strings.Contains(out, "Finished at") || !strings.Contains(out, record) {
		t.Fatalf("list: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cli("checkpoint", "drop-finished", job)
	if code != 0 || !strings.Contains(out, "Deleted "+record) {
		t.Fatalf("drop-finished: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cli("run", job)
	if code != 0 || out != rows {
		t.Fatalf("run after drop-finished: exit %d, stdout %q\n%s", code, out, errOut)
	}
}
