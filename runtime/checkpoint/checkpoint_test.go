package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamsql/streamsql/connector"
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

func TestResolveDir(t *testing.T) {
	for in, want := range map[string]string{"/a/b": "/a/b", "file:///a/b/": "/a/b", "file:/a": "/a", "rel/x": "rel/x"} {
		if got, err := ResolveDir(in); err != nil || got != want {
			t.Errorf("ResolveDir(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "s3://b/x", "file://host/x", "hdfs:///x"} {
		if _, err := ResolveDir(in); err == nil {
			t.Errorf("ResolveDir(%q) succeeded", in)
		}
	}
	for _, job := range []string{"", ".", "..", "a/b"} {
		if ValidJobName(job) == nil {
			t.Errorf("job name %q accepted", job)
		}
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
