package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/state"
)

func TestDirWriteLatestPrune(t *testing.T) {
	base := t.TempDir()
	d, err := OpenDir("file://"+base, "job")
	if err != nil {
		t.Fatal(err)
	}
	if md, err := d.Latest(); err != nil || md != nil {
		t.Fatalf("empty storage: %v %v", md, err)
	}
	for id := int64(1); id <= 3; id++ {
		md := &Metadata{Version: FormatVersion, Job: "job", ID: id, Run: "r",
			Sources: map[string][]connector.SplitState{"p/s": {{ID: "p0", State: []byte("7")}}},
			Pending: []Committable{{Key: Key{Sink: "p/k", Run: "r", Checkpoint: id}, Data: []byte{0, 1}}}}
		if n, err := d.Write(md); err != nil || n == 0 {
			t.Fatalf("write %d: %d %v", id, n, err)
		}
	}
	md, err := d.Latest()
	if err != nil || md.ID != 3 || string(md.Sources["p/s"][0].State) != "7" || string(md.Pending[0].Data) != "\x00\x01" {
		t.Fatalf("latest: %+v %v", md, err)
	}
	if err := d.Prune(2); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Join(base, "job"))
	if len(ents) != 2 {
		t.Fatalf("%d files after pruning to 2", len(ents))
	}
	if _, err := LoadPath(filepath.Join(base, "job", FileName(3)), "other"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("loading another job's checkpoint: %v", err)
	}
	if md, err := LoadPath(filepath.Join(base, "job"), "job"); err != nil || md.ID != 3 {
		t.Fatalf("LoadPath of a folder: %v %v", md, err)
	}
	// A temporary file left by a crash is not a checkpoint.
	if err := os.WriteFile(filepath.Join(base, "job", ".tmp-"+FileName(9)+"-1"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if id, _ := d.MaxID(); id != 3 {
		t.Fatalf("MaxID = %d with a stray temporary file", id)
	}
	unlock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(base, "job", ".tmp-"+FileName(9)+"-1")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stray temporary file not deleted by the lock holder: %v", err)
	}
	if err := d.Clear(); err != nil {
		t.Fatal(err)
	}
	if md, _ := d.Latest(); md != nil {
		t.Fatal("checkpoint left after Clear")
	}
}

func TestCorruptCheckpoint(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName(1))
	if err := os.WriteFile(p, []byte(`{"version":1,"job":"j","id":1,"bogus":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p, "j"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load of a corrupt file: %v", err)
	}
}

func TestDropPending(t *testing.T) {
	d, err := OpenDir(t.TempDir(), "job")
	if err != nil {
		t.Fatal(err)
	}
	k1, k2 := Key{Sink: "p/a", Run: "r", Checkpoint: 4}, Key{Sink: "p/a", Run: "r", Checkpoint: 5}
	if _, err := d.Write(&Metadata{Version: FormatVersion, Job: "job", ID: 5, Pending: []Committable{{Key: k1}, {Key: k2}}}); err != nil {
		t.Fatal(err)
	}
	md, err := DropPending(d, k1)
	if err != nil || md.ID != 5 || md.Revision != 1 || len(md.Pending) != 1 || md.Pending[0].Key != k2 {
		t.Fatalf("DropPending: %+v %v", md, err)
	}
	if latest, _ := d.Latest(); latest.ID != 5 || latest.Revision != 1 {
		t.Fatal("the new revision is not the latest")
	}
	if refs, _ := d.List(); len(refs) != 1 {
		t.Fatalf("the older revision was not deleted: %v", refs)
	}
	if _, err := DropPending(d, k1); !errors.Is(err, ErrNoSuchCommittable) {
		t.Fatalf("dropping twice: %v", err)
	}
}

// TestFormatVersions: files of format 1 (source positions and pending
// commits only) still load; format 2 round-trips operator state; a newer
// format is refused as corrupt.
func TestFormatVersions(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, FileName(1))
	if err := os.WriteFile(v1, []byte(`{"version":1,"job":"j","id":1,"run":"r","time":"2026-01-01T00:00:00Z",`+
		`"sources":{"p/src":[{"ID":"p0","State":"MTI="}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	md, err := Load(v1, "j")
	if err != nil || md.Version != 1 || string(md.Sources["p/src"][0].State) != "12" || md.Operators != nil || md.MaxParallelism != 0 {
		t.Fatalf("format 1: %+v, %v", md, err)
	}
	d, err := OpenDir(dir, "j2")
	if err != nil {
		t.Fatal(err)
	}
	h := state.Handle{Kind: "heap", KeyGroups: state.KeyGroupRange{Start: 0, End: 64}, Files: []state.FileRef{{Name: "a/chk-2-r/t0/x", Size: 3}}}
	in := &Metadata{Version: FormatVersion, Job: "j2", ID: 2, Run: "r", MaxParallelism: 128,
		Operators:  map[string]OperatorState{"p/agg": {Tasks: []TaskState{{Task: 0, Parallelism: 2, Handle: h, Watermark: 42}}}},
		Watermarks: map[string]map[string]int64{"p/src": {"p0": 41}}}
	if _, err := d.Write(in); err != nil {
		t.Fatal(err)
	}
	out, err := d.Latest()
	if err != nil || out.Version != 2 || out.MaxParallelism != 128 || out.Operators["p/agg"].Tasks[0].Handle.Files[0] != h.Files[0] ||
		out.Operators["p/agg"].Tasks[0].Watermark != 42 || out.Watermarks["p/src"]["p0"] != 41 {
		t.Fatalf("format 2 round trip: %+v, %v", out, err)
	}
	if got := out.StateFiles(); len(got) != 1 || got[0] != "a/chk-2-r/t0/x" {
		t.Fatalf("StateFiles: %v", got)
	}
	v3 := filepath.Join(dir, FileName(3))
	if err := os.WriteFile(v3, []byte(`{"version":3,"job":"j","id":3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(v3, "j"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("format 3: %v", err)
	}
}
