// Package storagetest is a conformance suite for checkpoint storages: it
// checks that a checkpoint.Storage keeps the contract of package
// checkpoint — checkpoints and their revisions, retention, and the state
// files of checkpoint.Files — whatever it stores them in. The local
// directory (checkpoint.Dir), the in-memory storage and the object-storage
// one run it, and so can an embedder's own:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T, job string) checkpoint.Storage { return myStorage(job) })
//	}
//
// Open must return the storage of the named job, empty on the first call
// for a name, and the same stored content for later calls with the same
// name (another process's view of the same location).
package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

// Open returns the storage of job (see the package documentation).
type Open func(t *testing.T, job string) checkpoint.Storage

var jobs struct {
	mu sync.Mutex
	n  int
}

// newJob returns a job name no other check of this process uses.
func newJob(name string) string {
	jobs.mu.Lock()
	defer jobs.mu.Unlock()
	jobs.n++
	return fmt.Sprintf("%s-%d-%d", name, time.Now().UnixNano()%1e6, jobs.n)
}

// Run runs every check as a subtest.
func Run(t *testing.T, open Open) {
	t.Run("Checkpoints", func(t *testing.T) { Checkpoints(t, open) })
	t.Run("Files", func(t *testing.T) { Files(t, open) })
	t.Run("FilesConcurrent", func(t *testing.T) { FilesConcurrent(t, open) })
}

func metadata(job string, id int64, rev int, pending ...int64) *checkpoint.Metadata {
	md := &checkpoint.Metadata{Version: checkpoint.FormatVersion, Job: job, ID: id, Revision: rev, Run: "run-1",
		Time:    time.Unix(1700000000, 0).UTC(),
		Sources: map[string][]connector.SplitState{"p/src": {{ID: "p0", State: []byte(fmt.Sprint(id))}}}}
	for _, c := range pending {
		md.Pending = append(md.Pending, checkpoint.Committable{
			Key: checkpoint.Key{Sink: "p", Run: "run-1", Checkpoint: c}, Data: []byte(`{"c":` + fmt.Sprint(c) + `}`)})
	}
	return md
}

func refs(t *testing.T, s checkpoint.Storage) string {
	t.Helper()
	rs, err := s.List()
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	var b []string
	for _, r := range rs {
		b = append(b, fmt.Sprintf("%d.%d", r.ID, r.Revision))
	}
	return strings.Join(b, " ")
}

// Checkpoints checks writing, listing, reading, revisions, pruning with
// the fallback, Remove and Clear, and that a second view of the location
// sees what the first wrote.
func Checkpoints(t *testing.T, open Open) {
	job := newJob("ckpt")
	s := open(t, job)
	if md, err := s.Latest(); err != nil || md != nil {
		t.Fatalf("Latest of an empty storage: %v, %v", md, err)
	}
	if id, err := s.MaxID(); err != nil || id != 0 {
		t.Fatalf("MaxID of an empty storage: %d, %v", id, err)
	}
	for id := int64(1); id <= 3; id++ {
		if n, err := s.Write(metadata(job, id, 0, id)); err != nil || n <= 0 {
			t.Fatalf("Write %d: %d, %v", id, n, err)
		}
	}
	if got := refs(t, s); got != "1.0 2.0 3.0" {
		t.Fatalf("List = %s, want 1.0 2.0 3.0", got)
	}
	md, err := s.Read(checkpoint.Ref{ID: 2})
	if err != nil || md.ID != 2 || string(md.Sources["p/src"][0].State) != "2" || len(md.Pending) != 1 {
		t.Fatalf("Read 2: %+v, %v", md, err)
	}
	// A revision supersedes the older ones of its checkpoint.
	if _, err := s.Write(metadata(job, 3, 1)); err != nil {
		t.Fatalf("Write revision: %v", err)
	}
	if got := refs(t, s); got != "1.0 2.0 3.1" {
		t.Fatalf("List after a revision = %s, want 1.0 2.0 3.1", got)
	}
	if md, err := s.Latest(); err != nil || md.ID != 3 || md.Revision != 1 || len(md.Pending) != 0 {
		t.Fatalf("Latest = %+v, %v; want checkpoint 3 revision 1 without pending", md, err)
	}
	// Another view of the same location sees the same.
	other := open(t, job)
	if got := refs(t, other); got != "1.0 2.0 3.1" {
		t.Fatalf("a second view lists %s, want 1.0 2.0 3.1", got)
	}
	// Prune keeps the retained newest and the fallback: 3.1 has no
	// pending commits, so it is both.
	if err := s.Prune(1); err != nil {
		t.Fatalf("Prune: %v", err)
	}
	if got := refs(t, s); got != "3.1" {
		t.Fatalf("List after Prune(1) = %s, want 3.1", got)
	}
	// Commits lag: 4 and 5 list pending work, 3 stays as the fallback.
	for id := int64(4); id <= 5; id++ {
		if _, err := s.Write(metadata(job, id, 0, 4, 5)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Prune(1); err != nil {
		t.Fatal(err)
	}
	if got := refs(t, s); got != "3.1 5.0" {
		t.Fatalf("List after Prune(1) with lagging commits = %s, want 3.1 5.0", got)
	}
	if id, err := s.MaxID(); err != nil || id != 5 {
		t.Fatalf("MaxID = %d, %v; want 5", id, err)
	}
	if err := s.Remove(5); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if err := s.Remove(42); err != nil {
		t.Fatalf("Remove of a missing checkpoint: %v", err)
	}
	if got := refs(t, s); got != "3.1" {
		t.Fatalf("List after Remove(5) = %s, want 3.1", got)
	}
	if _, err := s.Read(checkpoint.Ref{ID: 5}); err == nil {
		t.Fatal("Read of a removed checkpoint succeeded")
	}
	ctx := context.Background()
	if _, err := s.PutFile(ctx, "op/a", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.Clear(); err != nil {
		t.Fatalf("Clear: %v", err)
	}
	if got := refs(t, s); got != "" {
		t.Fatalf("List after Clear = %s", got)
	}
	if names, err := s.ListFiles(ctx, ""); err != nil || len(names) != 0 {
		t.Fatalf("state files after Clear: %v, %v", names, err)
	}
	if s.Location() == "" {
		t.Fatal("Location is empty")
	}
}

// Files checks the state files of checkpoint.Files: durable content,
// listing by prefix, missing files, deletion, bad names, and that Prune
// and Remove leave state files alone.
func Files(t *testing.T, open Open) {
	ctx := context.Background()
	job := newJob("files")
	s := open(t, job)
	if names, err := s.ListFiles(ctx, ""); err != nil || len(names) != 0 {
		t.Fatalf("ListFiles of an empty storage: %v, %v", names, err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16+3) // 1 MiB and a bit, not a power of two
	files := map[string][]byte{
		"op-1/run-a/000001.sst": []byte("one"),
		"op-1/run-a/000002.sst": big,
		"op-1/run-b/x=1.dat":    {},
		"op-10/MANIFEST-000007": []byte("manifest"),
		"top":                   []byte("top-level"),
	}
	for name, data := range files {
		n, err := s.PutFile(ctx, name, bytes.NewReader(data))
		if err != nil || n != int64(len(data)) {
			t.Fatalf("PutFile %s: %d, %v; want %d bytes", name, n, err, len(data))
		}
	}
	read := func(s checkpoint.Storage, name string) ([]byte, error) {
		rc, err := s.OpenFile(ctx, name)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	other := open(t, job)
	for name, data := range files {
		for _, v := range []checkpoint.Storage{s, other} {
			got, err := read(v, name)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("OpenFile %s: %d bytes, %v; want %d bytes as written", name, len(got), err, len(data))
			}
		}
	}
	list := func(prefix string, want ...string) {
		t.Helper()
		for _, v := range []checkpoint.Storage{s, other} {
			got, err := v.ListFiles(ctx, prefix)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("ListFiles(%q) = %q, %v; want %q", prefix, got, err, want)
			}
		}
	}
	list("", "op-1/run-a/000001.sst", "op-1/run-a/000002.sst", "op-1/run-b/x=1.dat", "op-10/MANIFEST-000007", "top")
	list("op-1/", "op-1/run-a/000001.sst", "op-1/run-a/000002.sst", "op-1/run-b/x=1.dat")
	list("op-1", "op-1/run-a/000001.sst", "op-1/run-a/000002.sst", "op-1/run-b/x=1.dat", "op-10/MANIFEST-000007")
	list("op-1/run-a/0000", "op-1/run-a/000001.sst", "op-1/run-a/000002.sst")
	list("nothing/")

	if _, err := s.OpenFile(ctx, "op-1/run-a/000003.sst"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenFile of a missing file: %v; want an error wrapping fs.ErrNotExist", err)
	}
	// Checkpoint retention never touches state files.
	for id := int64(1); id <= 3; id++ {
		if _, err := s.Write(metadata(job, id, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Prune(1); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(3); err != nil {
		t.Fatal(err)
	}
	list("top", "top")

	if err := s.DeleteFile(ctx, "op-1/run-a/000001.sst"); err != nil {
		t.Fatalf("DeleteFile: %v", err)
	}
	if err := s.DeleteFile(ctx, "op-1/run-a/000001.sst"); err != nil {
		t.Fatalf("DeleteFile of a missing file: %v", err)
	}
	list("op-1/run-a/", "op-1/run-a/000002.sst")
	if _, err := other.OpenFile(ctx, "op-1/run-a/000001.sst"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenFile of a deleted file: %v", err)
	}
	// Writing a name again (a retry) replaces the file.
	if _, err := s.PutFile(ctx, "top", strings.NewReader("again")); err != nil {
		t.Fatal(err)
	}
	if got, err := read(other, "top"); err != nil || string(got) != "again" {
		t.Fatalf("after a second PutFile: %q, %v", got, err)
	}

	for _, bad := range []string{"", "/abs", "a//b", "a/", "../x", "a/../b", ".hidden", "a/.tmp-x", "sp ace", "a\\b", "é",
		strings.Repeat("x", 600)} {
		if _, err := s.PutFile(ctx, bad, strings.NewReader("x")); err == nil {
			t.Fatalf("PutFile(%q) succeeded; want a bad-name error", bad)
		}
	}
	// A PutFile whose reader fails leaves nothing.
	if _, err := s.PutFile(ctx, "op-2/failed", io.MultiReader(strings.NewReader("part"), errReader{})); err == nil {
		t.Fatal("PutFile with a failing reader succeeded")
	}
	list("op-2")
	// So does a cancelled one.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.PutFile(cctx, "op-2/cancelled", strings.NewReader("x")); err == nil {
		t.Fatal("PutFile with a cancelled context succeeded")
	}
	list("op-2")
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("reader broke") }

// FilesConcurrent writes state files from several goroutines while
// checkpoints are written, the way asynchronous state writers run beside
// the coordinator, and checks that every file is complete and listed.
func FilesConcurrent(t *testing.T, open Open) {
	ctx := context.Background()
	job := newJob("conc")
	s := open(t, job)
	const writers, each = 4, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers*each+1)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("op-%d/%06d.sst", w, i)
				data := bytes.Repeat([]byte(name), 100*(i+1))
				if _, err := s.PutFile(ctx, name, bytes.NewReader(data)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Go(func() {
		for id := int64(1); id <= 6; id++ {
			if _, err := s.Write(metadata(job, id, 0)); err != nil {
				errs <- err
			}
			if err := s.Prune(2); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	names, err := open(t, job).ListFiles(ctx, "op-")
	if err != nil || len(names) != writers*each {
		t.Fatalf("ListFiles: %d names, %v; want %d", len(names), err, writers*each)
	}
	for _, name := range names {
		rc, err := s.OpenFile(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		var i int
		fmt.Sscanf(name[strings.IndexByte(name, '/')+1:], "%06d", &i)
		if err != nil || !bytes.Equal(got, bytes.Repeat([]byte(name), 100*(i+1))) {
			t.Fatalf("%s: %d bytes, %v", name, len(got), err)
		}
	}
}
