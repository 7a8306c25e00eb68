package checkpoint_test

import (
	"testing"
	"time"

	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// TestFinishedRecord: Clear keeps the finished record (it is not a
// checkpoint), Finished reads it back, and DropFinished deletes it with
// checkpoints an interrupted finish left.
func TestFinishedRecord(t *testing.T) {
	d, err := checkpoint.OpenDir(t.TempDir(), "job")
	if err != nil {
		t.Fatal(err)
	}
	if f, err := d.Finished(); f != nil || err != nil {
		t.Fatalf("Finished of a new folder = %+v, %v", f, err)
	}
	md := &checkpoint.Metadata{Version: checkpoint.FormatVersion, Job: "job", ID: 7}
	if _, err := d.Write(md); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 23, 0, 0, 0, time.UTC)
	if err := d.MarkFinished(checkpoint.Finished{Time: at, LastCheckpoint: 7}); err != nil {
		t.Fatal(err)
	}
	// A kill here leaves both; Clear (the finish's next step) keeps the record.
	if err := d.Clear(); err != nil {
		t.Fatal(err)
	}
	f, err := d.Finished()
	if err != nil || f == nil || !f.Time.Equal(at) || f.LastCheckpoint != 7 || f.Job != "job" {
		t.Fatalf("Finished after Clear = %+v, %v", f, err)
	}
	if _, err := d.Write(md); err != nil { // as if the deletion had not happened
		t.Fatal(err)
	}
	if had, err := d.DropFinished(); !had || err != nil {
		t.Fatalf("DropFinished = %v, %v", had, err)
	}
	if refs, err := d.List(); err != nil || len(refs) != 0 {
		t.Fatalf("checkpoints left after DropFinished: %v %v", refs, err)
	}
	if f, err := d.Finished(); f != nil || err != nil {
		t.Fatalf("Finished after DropFinished = %+v, %v", f, err)
	}
	if had, err := d.DropFinished(); had || err != nil {
		t.Fatalf("second DropFinished = %v, %v", had, err)
	}
}
