package filesystem

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// TestTwoInsertsIntoOnePathRecover (issue 15.6, review #3): two sinks of
// one job write one table (two INSERTs, pipelines "out" and "out-2"). The
// recovery of the first must not delete the second's pending file.
func TestTwoInsertsIntoOnePathRecover(t *testing.T) {
	dir := t.TempDir()
	var cms []connector.Committer
	var pending []connector.Committable
	for _, id := range []string{"out/out", "out-2/out"} {
		s := newSink(t, Config{Path: dir})
		w, err := s.Open(ctx, connector.TaskInfo{Job: "job", Table: "out", Sink: id})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ctx, []types.Row{row(1, id)}); err != nil {
			t.Fatal(err)
		}
		cs, err := w.PreCommit(ctx, 1)
		if err != nil || len(cs) != 1 {
			t.Fatalf("PreCommit = %v, %v", cs, err)
		}
		pending = append(pending, cs[0])
		cm, err := s.ScopedCommitter(ctx, "job", id)
		if err != nil {
			t.Fatal(err)
		}
		cms = append(cms, cm)
	}
	// The restart recovers sink 1, then sink 2.
	if err := cms[0].Recover(ctx, pending[:1]); err != nil {
		t.Fatal(err)
	}
	if err := cms[1].Commit(ctx, pending[1]); err != nil {
		t.Fatalf("second sink's commit after the first sink's recovery: %v", err)
	}
	got := readRows(t, dir, Config{}, columns)
	slices.Sort(got)
	if want := []string{"1,out-2/out", "1,out/out"}; !slices.Equal(got, want) {
		t.Fatalf("readers see %v, want %v", got, want)
	}
}

// TestFileTagsUnambiguous: job "a_b" with table "c" and job "a" with table
// "b_c" (and names that differ only in characters unsafe in file names)
// get different tags, and no tag is a prefix that matches another's files.
func TestFileTagsUnambiguous(t *testing.T) {
	pairs := [][2]string{{"a_b", "c"}, {"a", "b_c"}, {"a.b", "c"}, {"a/b", "c"}, {"a", "b.c"}, {"job", "out"}, {"job", "out-2/out"}, {"job", "out/out"}}
	seen := map[string][2]string{}
	for _, p := range pairs {
		tag := fileTag(p[0], p[1])
		if q, dup := seen[tag]; dup {
			t.Fatalf("job %q table %q and job %q table %q share the tag %q", p[0], p[1], q[0], q[1], tag)
		}
		seen[tag] = p
		if strings.ContainsAny(tag, "-/.") {
			t.Fatalf("tag %q has a separator or path character", tag)
		}
	}
	long := fileTag(strings.Repeat("j", 300), strings.Repeat("t", 300))
	if len(long) > maxTagName+13 || long == fileTag(strings.Repeat("j", 300), strings.Repeat("t", 299)) {
		t.Fatalf("long names: tag %q (%d bytes)", long, len(long))
	}
}

// TestPreCommitSyncsInProgressEntries: before PreCommit returns a
// committable, the directory holding the in-progress file is fsynced, so
// that the file's entry survives a power loss (its content is fsynced when
// rolled).
func TestPreCommitSyncsInProgressEntries(t *testing.T) {
	dir := t.TempDir()
	cols3 := []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}, {Name: "dt", Type: types.String()}}
	s, err := NewSink(Config{Path: dir, PartitionKeys: []int{2}, Table: "t"}, cols3, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	var synced []string
	s.syncDir = func(d string) error {
		synced = append(synced, d)
		return syncDir(d)
	}
	w, _ := s.Open(ctx, connector.TaskInfo{Job: "job"})
	r := func(dt string) types.Row {
		return types.Row{Fields: []types.Value{types.Int64(1), types.Str("x"), types.Str(dt)}}
	}
	if err := w.Write(ctx, []types.Row{r("d1"), r("d2")}); err != nil {
		t.Fatal(err)
	}
	synced = nil // the new partition directories were synced when created
	cs, err := w.PreCommit(ctx, 1)
	if err != nil || len(cs) != 2 {
		t.Fatalf("PreCommit = %v, %v", cs, err)
	}
	for _, raw := range cs {
		c, err := decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		if d := filepath.Dir(c.InProgress); !slices.Contains(synced, d) {
			t.Errorf("PreCommit returned %s without fsyncing %s (synced %v)", c.InProgress, d, synced)
		}
	}
}

// TestRecoverOldTagFormat: a checkpoint written before tags carried a hash
// lists in-progress files of the old format; recovery commits them, and
// leaves other old-format in-progress files alone (their tag cannot say
// whose they are).
func TestRecoverOldTagFormat(t *testing.T) {
	dir := t.TempDir()
	old := func(name string) connector.Committable {
		inProg := filepath.Join(dir, ".part-job_out-"+name+"-0-0.csv.inprogress")
		if err := os.WriteFile(inProg, []byte("1,"+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(committable{InProgress: inProg, Final: filepath.Join(dir, "part-job_out-"+name+"-0-0.csv")})
		return b
	}
	pending, other := old("pending"), old("other")
	cm, _ := newSink(t, Config{Path: dir}).ScopedCommitter(ctx, "job", "out/out")
	if err := cm.Recover(ctx, []connector.Committable{pending}); err != nil {
		t.Fatal(err)
	}
	if got := readRows(t, dir, Config{}, columns); !slices.Equal(got, []string{"1,pending"}) {
		t.Fatalf("readers see %v, want the old-format pending file committed", got)
	}
	ocm, _ := newSink(t, Config{Path: dir}).ScopedCommitter(ctx, "job", "out-2/out")
	if err := ocm.Commit(ctx, other); err != nil {
		t.Fatalf("another sink's old-format pending file after recovery: %v", err)
	}
}
