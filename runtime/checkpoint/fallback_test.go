package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestPruneKeepsFallback(t *testing.T) {
	for _, s := range []Storage{&Memory{}, mustOpenDir(t)} {
		t.Run(s.Location(), func(t *testing.T) {
			k := func(ck int64) Key { return Key{Sink: "p/a", Run: "r", Checkpoint: ck} }
			w := func(id int64, rev int, pending ...int64) {
				md := &Metadata{Version: FormatVersion, Job: "job", ID: id, Revision: rev}
				for _, p := range pending {
					md.Pending = append(md.Pending, Committable{Key: k(p), Data: []byte("{}")})
				}
				if _, err := s.Write(md); err != nil {
					t.Fatal(err)
				}
				if err := s.Prune(1); err != nil {
					t.Fatal(err)
				}
			}
			got := func() string {
				refs, err := s.List()
				if err != nil {
					t.Fatal(err)
				}
				out := ""
				for _, r := range refs {
					out += fmt.Sprintf("%d.%d ", r.ID, r.Revision)
				}
				return out
			}
			w(1, 0, 1)
			w(2, 0, 1, 2) // 1's commits not done yet: no fallback but 1 itself
			if g := got(); g != "1.0 2.0 " {
				t.Fatalf("the oldest checkpoint is not kept while there is no fallback: %s", g)
			}
			if err := s.Remove(2); err != nil {
				t.Fatal(err)
			}
			w(1, 1)
			if g := got(); g != "1.1 " {
				t.Fatalf("after the acknowledgement record of 1: %s", g)
			}
			w(2, 0, 2)
			w(3, 0, 2, 3) // 2's commits not acknowledged yet
			if g := got(); g != "1.1 3.0 " {
				t.Fatalf("fallback 1 not kept: %s", g)
			}
			w(3, 1, 3) // 2's acknowledged: 2 would do, but it is gone; 1 stays
			if g := got(); g != "1.1 3.1 " {
				t.Fatalf("after 3's revision: %s", g)
			}
			w(4, 0, 3, 4)
			if g := got(); g != "1.1 4.0 " {
				t.Fatalf("after 4: %s", g)
			}
			w(4, 1, 3) // 4's committed, 3's lost: fallback 1 kept
			if g := got(); g != "1.1 4.1 " {
				t.Fatalf("after the lost commit: %s", g)
			}
			w(4, 2)
			if g := got(); g != "4.2 " {
				t.Fatalf("after everything is committed: %s", g)
			}
		})
	}
}

func mustOpenDir(t *testing.T) *Dir {
	d, err := OpenDir(t.TempDir(), "job")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestEarlierFormat: files of the earlier format, where an
// acknowledgement record took a new id, are read as they are; a revision
// of such a file supersedes it.
func TestEarlierFormat(t *testing.T) {
	d := mustOpenDir(t)
	for name, text := range map[string]string{
		FileName(1): `{"version":1,"job":"job","id":1,"run":"r","time":"2026-01-01T00:00:00Z","sources":{},"pending":[{"sink":"p/a","run":"r","checkpoint":1,"task":0,"seq":0,"data":{}}]}`,
		FileName(2): `{"version":1,"job":"job","id":2,"run":"r","time":"2026-01-01T00:00:01Z","sources":{},"acks_of":1}`,
	} {
		if err := os.WriteFile(filepath.Join(d.Path(), name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	md, err := d.Latest()
	if err != nil || md.ID != 2 || md.AcksOf != 1 || len(md.Pending) != 0 {
		t.Fatalf("latest of the earlier format: %+v %v", md, err)
	}
	md.Revision = 1
	if _, err := d.Write(md); err != nil {
		t.Fatal(err)
	}
	refs, err := d.List()
	if err != nil || len(refs) != 2 || refs[1].Revision != 1 || filepath.Base(refs[1].Path) != RevisionFileName(2, 1) {
		t.Fatalf("after a revision: %v %v", refs, err)
	}
	if got, _ := d.Latest(); got.ID != 2 || got.Revision != 1 {
		t.Fatalf("latest is %+v", got)
	}
}

// TestWriteFaults: a write that fails on a full disk (while writing or
// at the fsync) leaves neither the checkpoint nor a temporary file, and
// the previous checkpoint stays the latest.
func TestWriteFaults(t *testing.T) {
	for _, stage := range []string{"write", "fsync"} {
		t.Run(stage, func(t *testing.T) {
			d := mustOpenDir(t)
			if _, err := d.Write(&Metadata{Version: FormatVersion, Job: "job", ID: 1}); err != nil {
				t.Fatal(err)
			}
			d.faults = func(s string) error {
				if s == stage {
					return syscall.ENOSPC
				}
				return nil
			}
			_, err := d.Write(&Metadata{Version: FormatVersion, Job: "job", ID: 2})
			if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), d.Path()) {
				t.Fatalf("write on a full disk: %v; want ENOSPC naming the folder", err)
			}
			ents, _ := os.ReadDir(d.Path())
			if len(ents) != 1 || ents[0].Name() != FileName(1) {
				t.Fatalf("files after the failed write: %v", ents)
			}
			if md, err := d.Latest(); err != nil || md.ID != 1 {
				t.Fatalf("latest after the failed write: %+v %v", md, err)
			}
		})
	}
}
