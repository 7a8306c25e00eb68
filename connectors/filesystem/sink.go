package filesystem

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/types"
)

// Sink is the filesystem sink. It implements connector.ScopedTwoPhaseSink.
//
// File names carry a tag of the job and the sink ("part-<tag>-<run>-<task>-<n>"):
// the runtime's sink id (TaskInfo.Sink), else the table's name. Recovery
// deletes the in-progress files of its own tag that no pending committable
// owns, so two INSERTs into one path (two sinks of one job) never delete
// each other's pending files. The tag is the readable names followed by a
// hash of the exact pair, so job "a_b" with table "c" and job "a" with
// table "b_c" get different tags. In-progress files written before tags
// had the hash are still committed when a restored checkpoint lists them
// (committables hold full paths); leftovers of that older format are not
// deleted, since their tag cannot tell whose they are (they are hidden
// files, never part of the output).
type Sink struct {
	cfg     Config
	st      *store
	columns []types.Field // the table's physical columns
	data    []types.Field // the columns written into files
	format  *factory.Format
	now     func() time.Time
	// syncDir fsyncs a directory (a field so that tests can see the
	// calls).
	syncDir func(dir string) error
	// trailingKeys: the partition columns are the last columns, so a
	// row's data columns are its first ones.
	trailingKeys bool
}

// Sink is a connector.ScopedTwoPhaseSink (checked by the compiler).
var _ connector.ScopedTwoPhaseSink = (*Sink)(nil)

// NewSink returns a filesystem sink for rows of the table's physical
// columns. Each task encodes rows with its own encoder of format, made for
// the data columns only (partition columns are in the directory names); a
// format that cannot encode them is reported here, as the format's
// *factory.UnsupportedTypeError.
func NewSink(cfg Config, columns []types.Field, format *factory.Format) (*Sink, error) {
	if err := cfg.validate(columns); err != nil {
		return nil, err
	}
	if format == nil {
		return nil, fmt.Errorf("%w: a format is required", ErrConfig)
	}
	s := &Sink{cfg: cfg, st: newStore(cfg), columns: columns, data: dataFields(columns, cfg.PartitionKeys), format: format, now: time.Now, syncDir: syncDir}
	// The keys are distinct (validate): all among the last len(keys)
	// columns is all of them.
	s.trailingKeys = !slices.ContainsFunc(cfg.PartitionKeys, func(k int) bool { return k < len(columns)-len(cfg.PartitionKeys) })
	if _, err := format.NewEncoder(s.data); err != nil {
		return nil, err
	}
	return s, nil
}

// Parallelism returns sink.parallelism, or 0 when it is not set (the
// runtime then chooses).
func (s *Sink) Parallelism() int { return s.cfg.Parallelism }

var unsafeNameChars = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// maxTagName bounds the readable part of a file tag.
const maxTagName = 80

// fileTag makes a file-name-safe tag of the job's name and the sink's
// scope (its id in the job, or the table's name): the names with unsafe
// characters replaced, then a hash of the exact pair, which makes tags
// unambiguous. A tag has no '-', so the prefix ".part-<tag>-" matches the
// files of one tag only.
func fileTag(job, scope string) string {
	name := unsafeNameChars.ReplaceAllString(job+"_"+scope, "_")
	if len(name) > maxTagName {
		name = name[:maxTagName]
	}
	h := sha256.Sum256([]byte(job + "\x00" + scope))
	return name + "_" + hex.EncodeToString(h[:6])
}

// committable is the JSON form of a connector.Committable of this sink.
type committable struct {
	// InProgress is the local in-progress file's path; "" for object
	// storage.
	InProgress string `json:"in_progress,omitempty"`
	// Final is the path it is renamed to, or the s3:// URI of the object
	// the upload becomes.
	Final string `json:"final"`
	// UploadID and Parts are the multipart upload of object storage:
	// every part uploaded, in order.
	UploadID string      `json:"upload_id,omitempty"`
	Parts    []s3fs.Part `json:"parts,omitempty"`
	// Report, when set, makes this a writer's partition report
	// (partcommit.go) instead of a file.
	Report *report `json:"report,omitempty"`
}

// s3 reports whether c is a multipart upload of object storage.
func (c committable) s3() bool { return c.UploadID != "" }

// Open returns the writer of one task. Each writer has a random run id in
// its file names, so that writers of a restarted job never reuse a name.
func (s *Sink) Open(_ context.Context, task connector.TaskInfo) (connector.Writer, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("filesystem sink: run id: %w", err)
	}
	enc, err := s.format.NewEncoder(s.data)
	if err != nil {
		return nil, fmt.Errorf("filesystem sink: %w", err)
	}
	scope := task.Sink
	if scope == "" {
		scope = s.cfg.Table
	}
	w := &writer{
		sink: s, task: task.Index, run: hex.EncodeToString(b[:]), tag: fileTag(task.Job, scope),
		enc: enc, open: map[string]part{}, lastCheck: s.now(),
	}
	if s.cfg.Commit.active(s.cfg.PartitionKeys) {
		w.reports = &reporter{tasks: max(1, task.Parallelism), watermark: math.MinInt64, partitions: map[string]bool{}}
	}
	return w, nil
}

// Committer returns the sink's committer for the job named job, when the
// caller does not say which sink of the job this is: its tag is the
// table's name, as for writers opened without TaskInfo.Sink.
func (s *Sink) Committer(_ context.Context, job string) (connector.Committer, error) {
	return s.committer(fileTag(job, s.cfg.Table))
}

// ScopedCommitter returns the committer of the sink with id sink
// (TaskInfo.Sink) of the job named job.
func (s *Sink) ScopedCommitter(_ context.Context, job, sink string) (connector.Committer, error) {
	return s.committer(fileTag(job, sink))
}

// committer returns the committer of the sink's files with tag, which
// commits its partitions too when partition commit is on.
func (s *Sink) committer(tag string) (*committer, error) {
	c := &committer{sink: s, tag: tag}
	if s.cfg.Commit.active(s.cfg.PartitionKeys) {
		pc, err := newPartitionCommitter(s, tag)
		if err != nil {
			return nil, err
		}
		c.partitions = pc
	}
	return c, nil
}

// part is an in-progress file being written: a hidden local file
// (partFile) or a multipart upload of object storage (s3Part).
type part interface {
	// write appends p.
	write(ctx context.Context, p []byte) error
	// size is the bytes written so far.
	size() int64
	// openedAt is when the part was created.
	openedAt() time.Time
	// finish makes everything written durable (a local file flushed and
	// fsynced, every part of an upload uploaded) and returns the part's
	// committable; nothing is written after.
	finish(ctx context.Context) (committable, error)
	// discard deletes what was written.
	discard() error
}

// partFile is a local in-progress file being written.
type partFile struct {
	f      *os.File
	w      *bufio.Writer
	inProg string
	final  string
	n      int64
	opened time.Time
}

func (pf *partFile) write(_ context.Context, p []byte) error {
	if _, err := pf.w.Write(p); err != nil {
		return fmt.Errorf("filesystem sink: writing %s: %w", pf.inProg, err)
	}
	pf.n += int64(len(p))
	return nil
}

func (pf *partFile) size() int64         { return pf.n }
func (pf *partFile) openedAt() time.Time { return pf.opened }

func (pf *partFile) finish(context.Context) (committable, error) {
	if err := pf.w.Flush(); err != nil {
		pf.f.Close()
		return committable{}, fmt.Errorf("filesystem sink: writing %s: %w", pf.inProg, err)
	}
	if err := pf.f.Sync(); err != nil {
		pf.f.Close()
		return committable{}, fmt.Errorf("filesystem sink: fsync %s: %w", pf.inProg, err)
	}
	if err := pf.f.Close(); err != nil {
		return committable{}, fmt.Errorf("filesystem sink: closing %s: %w", pf.inProg, err)
	}
	return committable{InProgress: pf.inProg, Final: pf.final}, nil
}

func (pf *partFile) discard() error {
	pf.f.Close()
	if err := os.Remove(pf.inProg); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

type writer struct {
	sink      *Sink
	task      int
	run       string
	tag       string
	enc       factory.Encoder
	open      map[string]part // by partition directory ("" unpartitioned)
	rolled    []committable   // rolled since the last PreCommit
	counter   int
	lastCheck time.Time
	buf       []byte
	data      []types.Value
	// dir is split's buffer for a row's partition directory, and lastDir
	// the last directory split returned; lastVals are the partition
	// values that named it when they are all strings (owned copies) or
	// integers (else nil).
	dir      []byte
	lastDir  string
	lastVals []types.Value
	failed   error
	bytes    atomic.Int64 // bytes written, for metrics
	// reports is set when partitions are committed: what the writer's
	// next report says.
	reports *reporter
}

// reporter is what a writer's next partition report says.
type reporter struct {
	tasks      int
	partitions map[string]bool // partitions with files rolled since the last report
	watermark  int64
	ended      bool
}

// The connector capabilities writer means to have (checked by the compiler).
var (
	_ connector.Writer          = (*writer)(nil)
	_ connector.ByteCounter     = (*writer)(nil)
	_ connector.InputEnder      = (*writer)(nil)
	_ connector.WatermarkWriter = (*writer)(nil)
)

// Watermark implements connector.WatermarkWriter: the writer's next report
// carries the watermark, and the committer commits, by the least of the
// checkpoint's reports, the partitions whose time plus the delay it passed
// (the partition-time trigger).
func (w *writer) Watermark(_ context.Context, wm int64) error {
	if w.reports != nil && wm > w.reports.watermark {
		w.reports.watermark = wm
	}
	return nil
}

// EndInput implements connector.InputEnder: the writer's next report (the
// final checkpoint's) says that its input has ended, and the committer
// then commits every pending partition, as Flink does at the end of a
// bounded input.
func (w *writer) EndInput(context.Context) error {
	if w.reports != nil {
		w.reports.ended = true
	}
	return nil
}

// Bytes returns the bytes the writer has written into files
// (connector.ByteCounter).
func (w *writer) Bytes() int64 { return w.bytes.Load() }

// Write appends each row to the in-progress file of its partition, rolling
// files that reached the size limit.
func (w *writer) Write(ctx context.Context, rows []types.Row) error {
	if w.failed != nil {
		return w.failed
	}
	var written int64
	defer func() { w.bytes.Add(written) }()
	for _, r := range rows {
		if (r.Kind == types.UpdateBefore || r.Kind == types.Delete) && w.sink.format.Factory.Changelog == factory.InsertOnly {
			// The planner sends updates only to a changelog format
			// (debezium-json, ...), which writes each row's kind, as Flink's
			// filesystem sink does.
			return fmt.Errorf("filesystem sink: got a %s row; format '%s' writes inserts only", r.Kind, w.sink.format.Identifier())
		}
		dir, data := w.split(r.Fields)
		pf, err := w.file(ctx, dir)
		if err != nil {
			return w.fail(err)
		}
		w.buf, err = w.enc.Encode(w.buf[:0], types.Row{Kind: r.Kind, Fields: data})
		if err != nil {
			return w.fail(fmt.Errorf("filesystem sink: encoding a row: %w", err))
		}
		w.buf = append(w.buf, '\n')
		if err := pf.write(ctx, w.buf); err != nil {
			return w.fail(err)
		}
		written += int64(len(w.buf))
		if pf.size() >= w.sink.cfg.FileSize {
			if err := w.roll(ctx, dir); err != nil {
				return w.fail(err)
			}
		}
	}
	if now := w.sink.now(); now.Sub(w.lastCheck) >= w.sink.cfg.CheckInterval {
		w.lastCheck = now
		for dir, pf := range w.open {
			if now.Sub(pf.openedAt()) >= w.sink.cfg.RolloverInterval {
				if err := w.roll(ctx, dir); err != nil {
					return w.fail(err)
				}
			}
		}
	}
	return nil
}

// ForgetsRows reports that the writer keeps no row past Write
// (connector.RowForgetter): each row is encoded into its file at once
// (partition keys are read into a directory name of its own).
func (*writer) ForgetsRows() bool { return true }

func (w *writer) fail(err error) error {
	w.failed = err
	return err
}

// split returns the partition directory of a row and its data fields.
func (w *writer) split(fields []types.Value) (string, []types.Value) {
	keys := w.sink.cfg.PartitionKeys
	if len(keys) == 0 {
		return "", fields
	}
	if !w.sameValues(fields) {
		w.name(fields)
	}
	// Partition columns last (PARTITIONED BY the trailing columns, as
	// q10's dt, hm): the data columns are the row's first ones.
	if n := len(fields) - len(keys); n >= 0 && len(fields) == len(w.sink.columns) && w.sink.trailingKeys {
		return w.lastDir, fields[:n]
	}
	w.data = w.data[:0]
next:
	for i, v := range fields {
		for _, k := range keys {
			if i == k {
				continue next
			}
		}
		w.data = append(w.data, v)
	}
	return w.lastDir, w.data
}

// sameValues reports whether the row's partition values are lastVals:
// its directory is lastDir.
func (w *writer) sameValues(fields []types.Value) bool {
	keys := w.sink.cfg.PartitionKeys
	if len(w.lastVals) != len(keys) {
		return false
	}
	for i, k := range keys {
		a, b := fields[k], w.lastVals[i]
		if a.IsNull() || b.IsNull() {
			if a.IsNull() != b.IsNull() {
				return false
			}
			continue
		}
		if w.sink.columns[k].Type.IsString() {
			if a.Str() != b.Str() {
				return false
			}
		} else if a.Int64() != b.Int64() {
			return false
		}
	}
	return true
}

// name makes lastDir the directory of the row's partition values and
// remembers them in lastVals when they are strings and integers.
func (w *writer) name(fields []types.Value) {
	keys := w.sink.cfg.PartitionKeys
	dir := w.dir[:0]
	w.lastVals = w.lastVals[:0]
	memo := true
	for i, k := range keys {
		if i > 0 {
			dir = append(dir, '/')
		}
		dir = append(dir, w.sink.columns[k].Name...)
		dir = append(dir, '=')
		n := len(dir)
		v := fields[k]
		if !v.IsNull() {
			switch t := w.sink.columns[k].Type; {
			case t.IsString():
				dir = appendEscapedPartitionValue(dir, v.Str())
			case t.IsInteger():
				dir = strconv.AppendInt(dir, v.Int64(), 10)
			default:
				memo = false
				var s strings.Builder
				javafmt.AppendValue(&s, v, t)
				dir = appendEscapedPartitionValue(dir, s.String())
			}
		}
		if len(dir) == n {
			// NULL and the empty string, as in Flink.
			dir = append(dir, w.sink.cfg.DefaultPartitionName...)
		}
		if w.sink.columns[k].Type.IsString() && !v.IsNull() {
			// A copy: the row's strings may live in memory its reader
			// reuses.
			v = types.Str(strings.Clone(v.Str()))
		}
		w.lastVals = append(w.lastVals, v)
	}
	if !memo {
		w.lastVals = nil
	}
	w.dir = dir
	// Consecutive rows mostly go to one partition: its name is made once.
	if string(dir) != w.lastDir {
		w.lastDir = string(dir)
	}
}

// file returns the open in-progress file of a partition, creating it.
func (w *writer) file(ctx context.Context, dir string) (part, error) {
	if pf := w.open[dir]; pf != nil {
		return pf, nil
	}
	name := "part-" + w.tag + "-" + w.run + "-" + strconv.Itoa(w.task) + "-" + strconv.Itoa(w.counter) + w.sink.cfg.Extension
	w.counter++
	var pf part
	var err error
	if w.sink.st.loc != nil {
		pf, err = newS3Part(ctx, w.sink.st, path.Join(dir, name), w.sink.now())
	} else {
		pf, err = w.localFile(dir, name)
	}
	if err != nil {
		return nil, err
	}
	w.open[dir] = pf
	return pf, nil
}

// localFile creates a local in-progress file in partition dir.
func (w *writer) localFile(dir, name string) (*partFile, error) {
	full := filepath.Join(w.sink.cfg.Path, dir)
	if _, err := os.Stat(full); err != nil {
		if err := os.MkdirAll(full, 0o755); err != nil {
			return nil, fmt.Errorf("filesystem sink: %w", err)
		}
		// Make the new directories' entries durable, so that a file
		// committed into them survives a power loss.
		for d := full; d != filepath.Dir(d); d = filepath.Dir(d) {
			if err := w.sink.syncDir(filepath.Dir(d)); err != nil {
				return nil, err
			}
			if d == filepath.Clean(w.sink.cfg.Path) {
				break
			}
		}
	}
	pf := &partFile{
		inProg: filepath.Join(full, "."+name+".inprogress"),
		final:  filepath.Join(full, name),
		opened: w.sink.now(),
	}
	f, err := os.OpenFile(pf.inProg, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("filesystem sink: %w", err)
	}
	pf.f, pf.w = f, bufio.NewWriterSize(f, 64<<10)
	return pf, nil
}

// roll finishes a partition's in-progress file (flushed and fsynced, or
// every part uploaded) and keeps it for the next PreCommit.
func (w *writer) roll(ctx context.Context, dir string) error {
	pf := w.open[dir]
	delete(w.open, dir)
	c, err := pf.finish(ctx)
	if err != nil {
		_ = pf.discard()
		return err
	}
	w.rolled = append(w.rolled, c)
	if w.reports != nil {
		w.reports.partitions[dir] = true
	}
	return nil
}

// PreCommit rolls every open file and returns one committable per file
// rolled since the last PreCommit. Empty files are never written: a file
// is created by its first row. The directories of those files are fsynced
// first: a file's content is fsynced when it is rolled, but its directory
// entry is durable only once its directory is, and a committable must not
// name a file that a power loss could remove. When partitions are
// committed, the last committable is the writer's report (partcommit.go).
func (w *writer) PreCommit(ctx context.Context, id int64) ([]connector.Committable, error) {
	if w.failed != nil {
		return nil, w.failed
	}
	for dir := range w.open {
		if err := w.roll(ctx, dir); err != nil {
			return nil, w.fail(err)
		}
	}
	synced := map[string]bool{}
	for _, c := range w.rolled {
		if c.s3() {
			continue // an upload has no directory entry
		}
		if dir := filepath.Dir(c.InProgress); !synced[dir] {
			if err := w.sink.syncDir(dir); err != nil {
				return nil, w.fail(err)
			}
			synced[dir] = true
		}
	}
	out := make([]connector.Committable, 0, len(w.rolled)+1)
	for _, c := range w.rolled {
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	w.rolled = w.rolled[:0]
	if r := w.reports; r != nil {
		b, err := json.Marshal(committable{Report: &report{Checkpoint: id, Task: w.task, Tasks: r.tasks,
			Partitions: slices.Sorted(maps.Keys(r.partitions)), Watermark: r.watermark, Ended: r.ended}})
		if err != nil {
			return nil, err
		}
		out = append(out, b)
		clear(r.partitions)
	}
	return out, nil
}

// Close discards the work not pre-committed: open and rolled in-progress
// files are deleted, uploads aborted.
func (w *writer) Close() error {
	var errs []error
	for _, pf := range w.open {
		if err := pf.discard(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, c := range w.rolled {
		if err := w.sink.abort(context.Background(), c); err != nil {
			errs = append(errs, err)
		}
	}
	w.open, w.rolled = nil, nil
	return errors.Join(errs...)
}

type committer struct {
	sink *Sink
	tag  string
	mu   sync.Mutex // serialises directory fsyncs
	// partitions commits partitions, when partition commit is on.
	partitions *partitionCommitter
}

// committer is a connector.Committer (checked by the compiler).
var _ connector.Committer = (*committer)(nil)

func decode(c connector.Committable) (committable, error) {
	var out committable
	err := json.Unmarshal(c, &out)
	if err == nil && out.Report != nil && out.Final == "" && out.Report.Checkpoint > 0 && out.Report.Task >= 0 {
		return out, nil
	}
	ok := err == nil && out.Report == nil && out.Final != "" && (out.InProgress != "") != out.s3()
	if ok && out.s3() {
		_, perr := s3fs.ParseURI(out.Final)
		ok = perr == nil && len(out.Parts) > 0
	}
	if !ok {
		return out, fmt.Errorf("filesystem sink: malformed committable %q", c)
	}
	return out, nil
}

// Commit renames the in-progress file into place and makes the rename
// durable, or completes the multipart upload. It succeeds when the file
// was already renamed, or the upload completed.
func (c *committer) Commit(ctx context.Context, raw connector.Committable) error {
	cm, err := decode(raw)
	if err != nil {
		return err
	}
	if cm.Report != nil {
		if c.partitions == nil {
			return nil // partition commit was switched off since
		}
		return c.partitions.report(ctx, *cm.Report)
	}
	if cm.s3() {
		return c.sink.complete(ctx, cm)
	}
	if err := os.Rename(cm.InProgress, cm.Final); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, statErr := os.Stat(cm.Final); statErr == nil {
				return nil // committed before
			}
			return fmt.Errorf("filesystem sink: %w: neither %s nor %s exists", connector.ErrCommitLost, cm.InProgress, cm.Final)
		}
		return fmt.Errorf("filesystem sink: committing %s: %w", cm.Final, err)
	}
	return c.syncDir(filepath.Dir(cm.Final))
}

func (c *committer) syncDir(dir string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return syncDir(dir)
}

// syncDir fsyncs a directory, making the entries added to it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("filesystem sink: fsync %s: %w", dir, err)
	}
	return nil
}

// Abort deletes the in-progress file, or aborts the upload.
func (c *committer) Abort(ctx context.Context, raw connector.Committable) error {
	cm, err := decode(raw)
	if err != nil {
		return err
	}
	if cm.Report != nil {
		return nil // a report holds no work
	}
	return c.sink.abort(ctx, cm)
}

// abort deletes a committable's in-progress file, or aborts its upload.
func (s *Sink) abort(ctx context.Context, cm committable) error {
	if cm.s3() {
		return s.abortUpload(ctx, cm)
	}
	if err := os.Remove(cm.InProgress); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("filesystem sink: aborting %s: %w", cm.InProgress, err)
	}
	return nil
}

// Recover commits the pending committables, then deletes every in-progress
// file of this sink that none of them owns (aborts every upload).
func (c *committer) Recover(ctx context.Context, pending []connector.Committable) error {
	keep := map[string]bool{}
	for _, raw := range pending {
		if err := c.Commit(ctx, raw); err != nil {
			return err
		}
		cm, _ := decode(raw)
		keep[cm.InProgress] = true
		keep[cm.UploadID] = true
	}
	if c.partitions != nil {
		if err := c.partitions.recover(ctx); err != nil {
			return err
		}
	}
	if c.sink.st.loc != nil {
		return c.sink.abortLeftovers(ctx, c.tag, keep)
	}
	prefix := ".part-" + c.tag + "-"
	err := filepath.WalkDir(c.sink.cfg.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), prefix) || !strings.HasSuffix(d.Name(), ".inprogress") || keep[p] {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("filesystem sink: removing leftover in-progress files: %w", err)
	}
	return nil
}

// Close does nothing.
func (c *committer) Close() error { return nil }
