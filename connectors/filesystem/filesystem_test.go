package filesystem

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	_ "github.com/streamsql/streamsql/formats/csv"
	"github.com/streamsql/streamsql/types"
)

// csvFormat is the csv format with its default options, as the factory
// resolves 'format' = 'csv'.
func csvFormat(t *testing.T) *factory.Format {
	t.Helper()
	v, err := factory.Default.Validate(factory.Table{Name: "out", Options: map[string]string{
		"connector": "filesystem", "path": "/unused", "format": "csv",
	}})
	if err != nil {
		t.Fatal(err)
	}
	return optFormat.Get(v.Config)
}

var ctx = context.Background()

func row(id int64, s string) types.Row {
	return types.Row{Fields: []types.Value{types.Int64(id), types.Str(s)}}
}

var columns = []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}}

// newSink returns a csv sink of columns for table "out"; job is the job
// whose TaskInfo opens its writers.
func newSink(t *testing.T, cfg Config) *Sink {
	t.Helper()
	cfg.Table = "out"
	s, err := NewSink(cfg, columns, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// visibleFiles lists the files a reader sees (not hidden) under dir.
func visibleFiles(t *testing.T, dir string) []string {
	t.Helper()
	src, err := NewSource(Config{Path: dir}, columns, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	splits, err := src.Splits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range splits {
		out = append(out, s.ID)
	}
	return out
}

func readRows(t *testing.T, dir string, cfg Config, cols []types.Field) []string {
	t.Helper()
	cfg.Path = dir
	src, err := NewSource(cfg, cols, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	splits, err := src.Splits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var states []connector.SplitState
	for _, s := range splits {
		states = append(states, connector.SplitState{ID: s.ID})
	}
	r, err := src.Open(ctx, connector.TaskInfo{}, states)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for {
		rows, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, rw := range rows {
			var parts []string
			for i, f := range rw.Fields {
				switch {
				case f.IsNull():
					parts = append(parts, "null")
				case cols[i].Type.IsInteger():
					parts = append(parts, strconv.FormatInt(f.Int64(), 10))
				default:
					parts = append(parts, f.Str())
				}
			}
			out = append(out, strings.Join(parts, ","))
		}
	}
	slices.Sort(out)
	return out
}

func TestTwoPhaseCommit(t *testing.T) {
	dir := t.TempDir()
	s := newSink(t, Config{Path: "file://" + dir, Extension: ".csv"})
	w, err := s.Open(ctx, connector.TaskInfo{Job: "job", Index: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, []types.Row{row(1, "a"), row(2, "b")}); err != nil {
		t.Fatal(err)
	}
	cs, err := w.PreCommit(ctx, 1)
	if err != nil || len(cs) != 1 {
		t.Fatalf("PreCommit = %d committables, %v; want 1", len(cs), err)
	}
	if got := visibleFiles(t, dir); len(got) != 0 {
		t.Fatalf("files visible before commit: %v", got)
	}
	cm, err := s.Committer(ctx, "job")
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Commit(ctx, cs[0]); err != nil {
		t.Fatal(err)
	}
	if err := cm.Commit(ctx, cs[0]); err != nil {
		t.Fatalf("second commit of the same file: %v, want success", err)
	}
	if got := readRows(t, dir, Config{}, columns); !slices.Equal(got, []string{"1,a", "2,b"}) {
		t.Fatalf("committed rows %v", got)
	}
	if got := visibleFiles(t, dir); len(got) != 1 || !strings.HasSuffix(got[0], ".csv") || !strings.HasPrefix(got[0], "part-job_out_") {
		t.Fatalf("visible files %v, want one part-job_out_<hash>-*.csv", got)
	}
	// An empty checkpoint pre-commits nothing.
	if cs, err := w.PreCommit(ctx, 2); err != nil || len(cs) != 0 {
		t.Fatalf("PreCommit with no rows = %d committables, %v", len(cs), err)
	}
	// Lost: neither name exists.
	if err := os.Remove(filepath.Join(dir, visibleFiles(t, dir)[0])); err != nil {
		t.Fatal(err)
	}
	if err := cm.Commit(ctx, cs[0]); !errors.Is(err, connector.ErrCommitLost) {
		t.Fatalf("commit of a vanished file = %v, want ErrCommitLost", err)
	}
}

func TestAbortAndCloseDiscard(t *testing.T) {
	dir := t.TempDir()
	s := newSink(t, Config{Path: dir})
	w, _ := s.Open(ctx, connector.TaskInfo{Job: "job"})
	w.Write(ctx, []types.Row{row(1, "a")})
	cs, err := w.PreCommit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	cm, _ := s.Committer(ctx, "job")
	if err := cm.Abort(ctx, cs[0]); err != nil {
		t.Fatal(err)
	}
	w.Write(ctx, []types.Row{row(2, "b")})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var left []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error {
		if !d.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) != 0 {
		t.Fatalf("files left after abort and close: %v", left)
	}
}

func TestRecoverCommitsPendingAndRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	s := newSink(t, Config{Path: dir})
	w, _ := s.Open(ctx, connector.TaskInfo{Job: "job"})
	w.Write(ctx, []types.Row{row(1, "pending")})
	pending, _ := w.PreCommit(ctx, 1)
	w.Write(ctx, []types.Row{row(2, "leftover")})
	w.PreCommit(ctx, 2) // pre-committed, but the checkpoint never completed
	w.Write(ctx, []types.Row{row(3, "open")})
	// The process dies: nothing is closed. Another job's in-progress file
	// in the same directory must survive recovery.
	other := newSink(t, Config{Path: dir})
	ow, _ := other.Open(ctx, connector.TaskInfo{Job: "otherjob"})
	ow.Write(ctx, []types.Row{row(9, "other")})
	otherCs, _ := ow.PreCommit(ctx, 1)

	restarted := newSink(t, Config{Path: dir})
	cm, _ := restarted.Committer(ctx, "job")
	if err := cm.Recover(ctx, pending); err != nil {
		t.Fatal(err)
	}
	if got := readRows(t, dir, Config{}, columns); !slices.Equal(got, []string{"1,pending"}) {
		t.Fatalf("after recovery readers see %v, want only the pending row", got)
	}
	var inprog []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error {
		if strings.HasSuffix(p, ".inprogress") {
			inprog = append(inprog, filepath.Base(p))
		}
		return nil
	})
	if len(inprog) != 1 || !strings.Contains(inprog[0], "otherjob") {
		t.Fatalf("in-progress files after recovery: %v, want only the other job's", inprog)
	}
	ocm, _ := other.Committer(ctx, "otherjob")
	if err := ocm.Commit(ctx, otherCs[0]); err != nil {
		t.Fatalf("the other job's commit after our recovery: %v", err)
	}
}

func TestPartitionsAndRolling(t *testing.T) {
	dir := t.TempDir()
	cols3 := []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}, {Name: "dt", Type: types.String()}}
	cfg := Config{Path: dir, FileSize: 20, PartitionKeys: []int{2}, Table: "t"}
	s, err := NewSink(cfg, cols3, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.Open(ctx, connector.TaskInfo{Job: "job"})
	var rows []types.Row
	for i := range 10 {
		dt := types.Str("2024-01-0" + strconv.Itoa(1+i%2))
		switch i {
		case 8:
			dt = types.Str("")
		case 9:
			dt = types.Value{}
		}
		rows = append(rows, types.Row{Fields: []types.Value{types.Int64(int64(i)), types.Str("name/" + strconv.Itoa(i)), dt}})
	}
	if err := w.Write(ctx, rows); err != nil {
		t.Fatal(err)
	}
	cs, err := w.PreCommit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) < 4 {
		t.Fatalf("%d files for 10 rows with a 20-byte rolling size, want several per partition", len(cs))
	}
	cm, _ := s.Committer(ctx, "job")
	for _, c := range cs {
		if err := cm.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"dt=2024-01-01", "dt=2024-01-02", "dt=__DEFAULT_PARTITION__"} {
		if _, err := os.Stat(filepath.Join(dir, d)); err != nil {
			t.Fatalf("partition directory %s: %v", d, err)
		}
	}
	got := readRows(t, dir, cfg, cols3)
	var want []string
	for i := range 10 {
		dt := "2024-01-0" + strconv.Itoa(1+i%2)
		if i >= 8 {
			dt = "null" // NULL and '' are both the default partition
		}
		want = append(want, fmt.Sprintf("%d,name/%d,%s", i, i, dt))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("read back %v\nwant %v", got, want)
	}
}

func TestSourceRestoresOffsets(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte("1,x\n2,y\n3,z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".hidden"), []byte("garbage\n"), 0o644)
	src, err := NewSource(Config{Path: dir}, columns, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := src.Open(ctx, connector.TaskInfo{}, []connector.SplitState{{ID: "a.csv"}})
	first, err := r.Read(ctx)
	if err != nil || len(first) != 3 {
		t.Fatalf("Read = %d rows, %v", len(first), err)
	}
	state, _ := r.Snapshot(1)
	r2, _ := src.Open(ctx, connector.TaskInfo{}, state)
	if _, err := r2.Read(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("a reader restored at the end read more: %v", err)
	}
	// A decode error names the file and byte offset.
	os.WriteFile(filepath.Join(dir, "b.csv"), []byte("1,x\nbad\n"), 0o644)
	// The rows before the bad record come first, then the error; the state
	// stays at the bad record.
	r3, _ := src.Open(ctx, connector.TaskInfo{}, []connector.SplitState{{ID: "b.csv"}})
	if rows, err := r3.Read(ctx); err != nil || len(rows) != 1 {
		t.Fatalf("first Read = %d rows, %v; want the row before the bad record", len(rows), err)
	}
	_, err = r3.Read(ctx)
	if st, _ := r3.Snapshot(2); binary.BigEndian.Uint64(st[0].State) != 4 {
		t.Errorf("state after the error = %d, want 4 (the bad record)", binary.BigEndian.Uint64(st[0].State))
	}
	var de *DecodeError
	if !errors.As(err, &de) || de.File != "b.csv" || de.Offset != 4 || !errors.As(err, new(*factory.DecodeError)) {
		t.Fatalf("decode error = %v, want a DecodeError naming b.csv and byte offset 4 wrapping the format's", err)
	}
	if !strings.Contains(err.Error(), "file b.csv, record at byte offset 4") {
		t.Errorf("message %q does not name the file and offset", err)
	}
}

// TestListerSeesOnlyCompleteFiles lists the directory while a writer
// writes, rolls and commits, and checks that every file a reader can see is
// complete: it never grows after it is first seen and ends with a full line.
func TestListerSeesOnlyCompleteFiles(t *testing.T) {
	dir := t.TempDir()
	s := newSink(t, Config{Path: dir, FileSize: 200})
	cm, _ := s.Committer(ctx, "job")
	w, _ := s.Open(ctx, connector.TaskInfo{Job: "job"})

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var listErr error
	seen := map[string]int64{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				listErr = err
				return
			}
			for _, e := range entries {
				if hidden(e.Name()) {
					continue
				}
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					listErr = err
					return
				}
				if prev, ok := seen[e.Name()]; ok && prev != int64(len(b)) {
					listErr = fmt.Errorf("%s changed size from %d to %d after it became visible", e.Name(), prev, len(b))
					return
				}
				if len(b) == 0 || b[len(b)-1] != '\n' {
					listErr = fmt.Errorf("%s is visible but incomplete (%d bytes)", e.Name(), len(b))
					return
				}
				seen[e.Name()] = int64(len(b))
			}
		}
	}()
	deadline := time.Now().Add(time.Second)
	id := int64(0)
	for cp := int64(1); time.Now().Before(deadline); cp++ {
		for range 20 {
			if err := w.Write(ctx, []types.Row{row(id, strings.Repeat("x", 30))}); err != nil {
				t.Fatal(err)
			}
			id++
		}
		cs, err := w.PreCommit(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if err := cm.Commit(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	wg.Wait()
	if listErr != nil {
		t.Fatal(listErr)
	}
	if len(seen) == 0 {
		t.Fatal("the lister saw no files at all")
	}
	if n := len(readRows(t, dir, Config{}, columns)); int64(n) != id {
		t.Fatalf("read %d rows back, wrote %d", n, id)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, p := range []string{"", "gs://bucket/x", "s3://Bad_Bucket/x", "s3://bucket/a/../b", "file://otherhost/x"} {
		if _, err := NewSource(Config{Path: p}, columns, csvFormat(t)); !errors.Is(err, ErrConfig) {
			t.Errorf("path %q: %v, want ErrConfig", p, err)
		}
	}
}
