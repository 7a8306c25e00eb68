package filesystem

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	_ "github.com/streamsql/streamsql/formats/json"
	_ "github.com/streamsql/streamsql/formats/raw"
	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/internal/testrig/s3test"
	"github.com/streamsql/streamsql/types"
)

// s3Dir returns a fresh s3:// location on the test server and the Config
// that reaches it.
func s3Dir(t *testing.T) (s3test.Server, s3fs.Location, Config) {
	t.Helper()
	srv := s3test.Require(t)
	loc := srv.Prefix(t)
	return srv, loc, Config{Path: loc.String(), S3: srv.Config()}
}

// uploads returns the multipart uploads in progress under loc.
func uploads(t *testing.T, srv s3test.Server, loc s3fs.Location) []string {
	t.Helper()
	ups, err := srv.Client(t).ListUploads(ctx, loc.Bucket, loc.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range ups {
		out = append(out, strings.TrimPrefix(u.Key, loc.Dir()))
	}
	return out
}

// TestS3TwoPhaseCommit: pre-committed work is an uncompleted multipart
// upload, invisible to listings; commit completes it (twice is fine); an
// upload aborted before its commit is a lost commit.
func TestS3TwoPhaseCommit(t *testing.T) {
	srv, loc, cfg := s3Dir(t)
	cfg.Extension = ".csv"
	s := newSink(t, cfg)
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
	var c committable
	if err := json.Unmarshal(cs[0], &c); err != nil || c.UploadID == "" || len(c.Parts) != 1 || !strings.HasPrefix(c.Final, loc.String()+"/part-job_out_") {
		t.Fatalf("committable %s: want the upload id, its one part and the final s3:// object", cs[0])
	}
	if keys := srv.Keys(t, loc); len(keys) != 0 {
		t.Fatalf("objects visible before the commit: %v", keys)
	}
	if ups := uploads(t, srv, loc); len(ups) != 1 {
		t.Fatalf("uploads in progress after PreCommit: %v; want the one", ups)
	}
	cm, err := s.Committer(ctx, "job")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := cm.Commit(ctx, cs[0]); err != nil {
			t.Fatalf("commit: %v", err)
		}
	}
	if got := readRows(t, loc.String(), Config{S3: cfg.S3}, columns); !slices.Equal(got, []string{"1,a", "2,b"}) {
		t.Fatalf("committed rows %v", got)
	}
	if ups := uploads(t, srv, loc); len(ups) != 0 {
		t.Fatalf("uploads in progress after the commit: %v", ups)
	}
	// Lost: the upload aborted before the commit (a lifecycle rule).
	if err := w.Write(ctx, []types.Row{row(3, "c")}); err != nil {
		t.Fatal(err)
	}
	cs, err = w.PreCommit(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Abort(ctx, cs[0]); err != nil {
		t.Fatal(err)
	}
	if err := cm.Commit(ctx, cs[0]); !errors.Is(err, connector.ErrCommitLost) {
		t.Fatalf("commit of an aborted upload = %v, want ErrCommitLost", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestS3RecoverAbortsLeftovers: recovery completes the pending uploads and
// aborts every other upload of the sink (pre-committed for a checkpoint
// that never completed, or still open when the process died), not another
// job's; Close aborts the open ones.
func TestS3RecoverAbortsLeftovers(t *testing.T) {
	srv, loc, cfg := s3Dir(t)
	s := newSink(t, cfg)
	w, _ := s.Open(ctx, connector.TaskInfo{Job: "job"})
	mustWrite := func(w connector.Writer, rows ...types.Row) {
		t.Helper()
		if err := w.Write(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(w, row(1, "pending"))
	pending, err := w.PreCommit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(w, row(2, "leftover"))
	if _, err := w.PreCommit(ctx, 2); err != nil {
		t.Fatal(err)
	}
	mustWrite(w, row(3, "open"))
	other := newSink(t, cfg)
	ow, _ := other.Open(ctx, connector.TaskInfo{Job: "otherjob"})
	mustWrite(ow, row(9, "other"))
	otherCs, err := ow.PreCommit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ups := uploads(t, srv, loc); len(ups) != 4 {
		t.Fatalf("uploads before recovery: %v; want 4", ups)
	}
	// The process died: nothing was closed.
	restarted := newSink(t, cfg)
	cm, _ := restarted.Committer(ctx, "job")
	if err := cm.Recover(ctx, pending); err != nil {
		t.Fatal(err)
	}
	if got := readRows(t, loc.String(), Config{S3: cfg.S3}, columns); !slices.Equal(got, []string{"1,pending"}) {
		t.Fatalf("after recovery readers see %v, want only the pending row", got)
	}
	ups := uploads(t, srv, loc)
	if len(ups) != 1 || !strings.Contains(ups[0], "otherjob") {
		t.Fatalf("uploads after recovery: %v; want only the other job's", ups)
	}
	ocm, _ := other.Committer(ctx, "otherjob")
	if err := ocm.Commit(ctx, otherCs[0]); err != nil {
		t.Fatalf("the other job's commit after our recovery: %v", err)
	}
	w2, _ := restarted.Open(ctx, connector.TaskInfo{Job: "job"})
	mustWrite(w2, row(4, "closed"))
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	if ups := uploads(t, srv, loc); len(ups) != 0 {
		t.Fatalf("uploads after Close: %v", ups)
	}
}

// TestS3PartitionsRollingAndParts: partitioned output becomes col=value
// keys, the rolling size makes several files, and a file larger than a
// part is uploaded in several parts and read back whole.
func TestS3PartitionsRollingAndParts(t *testing.T) {
	srv, loc, cfg := s3Dir(t)
	cols3 := []types.Field{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}, {Name: "dt", Type: types.String()}}
	cfg.FileSize, cfg.PartitionKeys, cfg.Table = 2*s3PartSize+1000, []int{2}, "t"
	s, err := NewSink(cfg, cols3, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := s.Open(ctx, connector.TaskInfo{Job: "job"})
	// Partition a gets 2.5 parts' worth (two files: the first rolls at
	// FileSize), b a few rows, NULL the default partition.
	long := strings.Repeat("x", 1000)
	var want []string
	var rows []types.Row
	n := 0
	add := func(dt types.Value, name string) {
		rows = append(rows, types.Row{Fields: []types.Value{types.Int64(int64(n)), types.Str(name), dt}})
		d := "null"
		if !dt.IsNull() {
			d = dt.Str()
		}
		want = append(want, fmt.Sprintf("%d,%s,%s", n, name, d))
		n++
	}
	for range 5 * s3PartSize / 2 / 1010 {
		add(types.Str("a"), long)
	}
	for range 3 {
		add(types.Str("b"), "short")
	}
	add(types.Value{}, "none")
	if err := w.Write(ctx, rows); err != nil {
		t.Fatal(err)
	}
	cs, err := w.PreCommit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	maxParts := 0
	for _, raw := range cs {
		var c committable
		_ = json.Unmarshal(raw, &c)
		maxParts = max(maxParts, len(c.Parts))
	}
	if len(cs) != 4 || maxParts != 3 {
		t.Fatalf("%d files, at most %d parts; want 4 files (a rolled once, b, default), the first of a in 3 parts", len(cs), maxParts)
	}
	cm, _ := s.Committer(ctx, "job")
	for _, c := range cs {
		if err := cm.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	var dirs []string
	for _, k := range srv.Keys(t, loc) {
		dirs = append(dirs, k[:strings.IndexByte(k, '/')])
	}
	if got := strings.Join(slices.Compact(dirs), " "); got != "dt=__DEFAULT_PARTITION__ dt=a dt=b" {
		t.Fatalf("partition folders %q", got)
	}
	got := readRows(t, loc.String(), Config{S3: cfg.S3, PartitionKeys: []int{2}}, cols3)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("read back %d rows, want %d", len(got), len(want))
	}
}

// TestS3SourceFormats reads every format the source reads (json, csv with
// records that span lines, raw) from object storage, skipping hidden
// objects and folder markers, resuming from a byte offset (a ranged read),
// and naming the s3:// object, line and offset of a bad record.
func TestS3SourceFormats(t *testing.T) {
	srv, loc, _ := s3Dir(t)
	c := srv.Client(t)
	put := func(rel, text string) {
		t.Helper()
		if _, err := c.PutStream(ctx, loc.Bucket, loc.Key(rel), strings.NewReader(text), 0); err != nil {
			t.Fatal(err)
		}
	}
	put("json/a.json", "{\"id\":1,\"name\":\"x\"}\n{\"id\":2,\"name\":\"y\"}\n")
	put("json/_SUCCESS", "")
	put("json/.hidden/b.json", "garbage\n")
	put("json/folder/", "")
	put("csv/a.csv", "1,\"two\nlines\"\r\n2,plain\n")
	put("raw/a.txt", "first line\nsecond line\n")
	put("bad/a.json", "{\"id\":1,\"name\":\"x\"}\n{\"id\":oops}\n")
	for _, tc := range []struct {
		dir, format string
		cols        []types.Field
		want        []string
	}{
		{"json", "json", columns, []string{"1,x", "2,y"}},
		{"csv", "csv", columns, []string{"1,two\nlines", "2,plain"}},
		{"raw", "raw", []types.Field{{Name: "line", Type: types.String()}}, []string{"first line", "second line"}},
	} {
		src, err := NewSource(Config{Path: loc.Join(tc.dir).String(), S3: srv.Config()}, tc.cols, format(t, tc.format))
		if err != nil {
			t.Fatal(err)
		}
		got := readS3(t, src, nil)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: read %q, want %q", tc.dir, got, tc.want)
		}
	}
	// Resume from the second record of json/a.json.
	src, _ := NewSource(Config{Path: loc.Join("json").String(), S3: srv.Config()}, columns, format(t, "json"))
	off := int64(len("{\"id\":1,\"name\":\"x\"}\n"))
	if got := readS3(t, src, map[string]int64{"a.json": off}); !slices.Equal(got, []string{"2,y"}) {
		t.Errorf("resumed at byte %d: read %q", off, got)
	}
	if got := readS3(t, src, map[string]int64{"a.json": off * 2}); len(got) != 0 {
		t.Errorf("resumed at the end: read %q", got)
	}
	// A bad record names its object, line and offset.
	src, _ = NewSource(Config{Path: loc.Join("bad").String(), S3: srv.Config()}, columns, format(t, "json"))
	r, err := src.Open(ctx, connector.TaskInfo{}, []connector.SplitState{{ID: "a.json"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var derr *DecodeError
	for {
		_, err := r.Read(ctx)
		if err != nil {
			if !errors.As(err, &derr) || derr.File != "a.json" || derr.Line != 2 || derr.Offset != off {
				t.Fatalf("bad record: %v; want a DecodeError at a.json line 2 offset %d", err, off)
			}
			break
		}
	}
}

// readS3 reads every split of src (from the given offsets) as
// comma-joined fields.
func readS3(t *testing.T, src *Source, offsets map[string]int64) []string {
	t.Helper()
	splits, err := src.Splits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var states []connector.SplitState
	for _, s := range splits {
		st := connector.SplitState{ID: s.ID}
		if off, ok := offsets[s.ID]; ok {
			st.State = []byte{0, 0, 0, 0, 0, 0, 0, 0}
			for i := range 8 {
				st.State[7-i] = byte(off >> (8 * i))
			}
		}
		states = append(states, st)
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
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, rw := range rows {
			var parts []string
			for i, f := range rw.Fields {
				if src.columns[i].Type.IsInteger() {
					parts = append(parts, strconv.FormatInt(f.Int64(), 10))
				} else {
					parts = append(parts, f.Str())
				}
			}
			out = append(out, strings.Join(parts, ","))
		}
	}
}

// format returns a format with its default options, as the factory
// resolves 'format' = name.
func format(t *testing.T, name string) *factory.Format {
	t.Helper()
	v, err := factory.Default.Validate(factory.Table{Name: "in", Options: map[string]string{
		"connector": "filesystem", "path": "/unused", "format": name,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return optFormat.Get(v.Config)
}
