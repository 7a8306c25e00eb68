package main

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/internal/testrig/s3test"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// TestS3Checkpoints runs a bounded job with its checkpoints on the real S3
// server, from the CLI: the finished record lands in the bucket, a second
// run does nothing, checkpoint list and drop-finished work on the s3://
// folder, and the secret key (given as a ${VARIABLE}) appears in no
// output, log or object.
func TestS3Checkpoints(t *testing.T) {
	srv := s3test.Require(t)
	base := srv.Prefix(t)
	t.Setenv("S3_SECRET", srv.SecretKey)
	job := writeJob(t, `SET 'pipeline.name' = 'once';
SET 'execution.checkpointing.dir' = '`+base.String()+`';
SET 's3.endpoint' = '`+srv.Endpoint+`';
SET 's3.access-key' = '`+srv.AccessKey+`';
SET 's3.secret-key' = '${S3_SECRET}';
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t(id, name);
`)
	var outputs []string
	for _, c := range []string{"validate", "explain"} {
		code, stdout, stderr := cli(c, job)
		if code != 0 {
			t.Fatalf("%s: exit %d, %s", c, code, stderr)
		}
		outputs = append(outputs, stdout, stderr)
	}
	const rows = "op[id, name]\n+I[1, a]\n+I[2, b]\n"
	record := base.String() + "/once/" + checkpoint.FinishedFileName
	code, out, errOut := cli("run", job)
	outputs = append(outputs, out, errOut)
	if code != 0 || out != rows {
		t.Fatalf("first run: exit %d, stdout %q\n%s", code, out, errOut)
	}
	keys := srv.Keys(t, base.Join("once"))
	if strings.Join(keys, " ") != checkpoint.FinishedFileName {
		t.Fatalf("objects after the first run: %q; want only the finished record (no lock, no checkpoints)", keys)
	}
	code, out, errOut = cli("run", job)
	outputs = append(outputs, out, errOut)
	if code != 0 || strings.Contains(out, "+I[") || !strings.Contains(errOut, "job already finished at") || !strings.Contains(errOut, record) {
		t.Fatalf("second run: exit %d, stdout %q; want exit 0, no rows, the finished warning\n%s", code, out, errOut)
	}
	code, out, errOut = cli("checkpoint", "list", job)
	outputs = append(outputs, out, errOut)
	if code != 0 || !strings.Contains(out, "Finished at") || !strings.Contains(out, "Checkpoints in "+base.String()+"/once") {
		t.Fatalf("list: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cli("checkpoint", "drop-finished", job)
	outputs = append(outputs, out, errOut)
	if code != 0 || !strings.Contains(out, "Deleted "+record) {
		t.Fatalf("drop-finished: exit %d\n%s%s", code, out, errOut)
	}
	// By name and folder, the client's settings from --set.
	code, out, errOut = cli("checkpoint", "list", "--job-name", "once", "--dir", base.String(), "--set", "s3.endpoint="+srv.Endpoint,
		"--set", "s3.access-key="+srv.AccessKey, "--set", "s3.secret-key="+srv.SecretKey)
	outputs = append(outputs, out, errOut)
	if code != 0 || !strings.Contains(out, "none (the next run starts afresh)") {
		t.Fatalf("list by name: exit %d\n%s%s", code, out, errOut)
	}
	// drop-pending takes the lock (a lease in the bucket) and writes a
	// revision there.
	st, err := checkpoint.Open(base.String(), "once", checkpoint.OpenOptions{S3: srv.Config()})
	if err != nil {
		t.Fatal(err)
	}
	lost := checkpoint.Key{Sink: "print", Run: "r1", Checkpoint: 1}
	if _, err := st.Write(&checkpoint.Metadata{Version: checkpoint.FormatVersion, Job: "once", ID: 1, Run: "r1",
		Pending: []checkpoint.Committable{{Key: lost, Data: []byte(`{"x":1}`)}}}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cli("checkpoint", "drop-pending", job, lost.Token())
	outputs = append(outputs, out, errOut)
	if code != 0 || !strings.Contains(out, "checkpoint 1 revision 1 now lists 0 pending") {
		t.Fatalf("drop-pending: exit %d\n%s%s", code, out, errOut)
	}
	if md, err := st.Latest(); err != nil || md.Revision != 1 || len(md.Pending) != 0 {
		t.Fatalf("latest after drop-pending: %+v, %v", md, err)
	}
	if err := st.Clear(); err != nil {
		t.Fatal(err)
	}
	// A wrong secret: the error names the object, not the secret.
	t.Setenv("S3_SECRET", "wrong-"+srv.SecretKey)
	code, out, errOut = cli("run", job)
	outputs = append(outputs, out, errOut)
	if code == 0 || !strings.Contains(errOut, base.String()) {
		t.Fatalf("run with a wrong secret: exit %d\n%s%s", code, out, errOut)
	}
	c := srv.Client(t)
	objs, err := c.List(context.Background(), base.Bucket, base.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		data, _, err := c.GetAll(context.Background(), base.Bucket, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, string(data))
	}
	for i, o := range outputs {
		if strings.Contains(o, srv.SecretKey) {
			t.Errorf("output %d shows the secret key:\n%s", i, o)
		}
	}
}

// TestS3CheckpointsOlderName: Flink's older state.checkpoints.dir takes an
// s3:// URI too (here s3a://, Hadoop's scheme, which Flink accepts as
// well): the bounded job's finished record lands in the bucket, in the
// same folder as with execution.checkpointing.dir.
func TestS3CheckpointsOlderName(t *testing.T) {
	srv := s3test.Require(t)
	base := srv.Prefix(t)
	t.Setenv("S3_SECRET", srv.SecretKey)
	job := writeJob(t, `SET 'pipeline.name' = 'older';
SET 'state.checkpoints.dir' = 's3a://`+base.Bucket+`/`+base.Prefix+`';
SET 's3.endpoint' = '`+srv.Endpoint+`';
SET 's3.access-key' = '`+srv.AccessKey+`';
SET 's3.secret-key' = '${S3_SECRET}';
SELECT * FROM (VALUES (1, 'a')) AS t(id, name);
`)
	code, out, errOut := cli("run", job)
	if code != 0 || out != "op[id, name]\n+I[1, a]\n" {
		t.Fatalf("run: exit %d, stdout %q\n%s", code, out, errOut)
	}
	if keys := srv.Keys(t, base.Join("older")); strings.Join(keys, " ") != checkpoint.FinishedFileName {
		t.Fatalf("objects of the job's folder: %q; want the finished record", keys)
	}
}
