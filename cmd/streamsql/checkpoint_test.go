package main

import (
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
