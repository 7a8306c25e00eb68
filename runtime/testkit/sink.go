package testkit

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime/checkpoint"
	"github.com/streamsql/streamsql/types"
)

// FileSink is a two-phase sink that writes real files. A transaction is a
// file under Dir/pending; PreCommit flushes and fsyncs it and returns its
// names; Commit renames it into Dir/committed (and fsyncs the folder);
// Abort deletes it. The committed folder is the record of what was
// committed: ReadCommitted reads it back in commit order.
//
// Rows are written one per line, fields as integers separated by commas
// (the rows of SeqSource).
type FileSink struct {
	// Dir is the sink's folder.
	Dir string
	// FailCommits makes the first FailCommits Commit calls fail with a
	// transient error (tests of in-process retries).
	FailCommits int64
	// Timeout, when set, is declared as the transaction timeout.
	Timeout time.Duration
	// Check, when set, is called by each writer before each PreCommit
	// with its task info (tests of TaskInfo.Commits).
	Check func(task connector.TaskInfo, checkpointID int64)

	commits atomic.Int64
}

var _ connector.TwoPhaseSink = (*FileSink)(nil)

// ErrTransient is returned by Commit while FailCommits lasts.
var ErrTransient = errors.New("testkit: injected transient commit failure")

type fileCommittable struct {
	Tmp   string `json:"tmp"`
	Final string `json:"final"`
}

func (s *FileSink) dirs() (string, string, error) {
	p, c := filepath.Join(s.Dir, "pending"), filepath.Join(s.Dir, "committed")
	for _, d := range []string{p, c} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", err
		}
	}
	return p, c, nil
}

// Open implements connector.Sink.
func (s *FileSink) Open(_ context.Context, task connector.TaskInfo) (connector.Writer, error) {
	p, _, err := s.dirs()
	if err != nil {
		return nil, err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &fileWriter{s: s, task: task, pending: p, run: hex.EncodeToString(b[:])}, nil
}

// Committer implements connector.TwoPhaseSink.
func (s *FileSink) Committer(context.Context, string) (connector.Committer, error) {
	p, c, err := s.dirs()
	if err != nil {
		return nil, err
	}
	return &fileCommitter{s: s, pending: p, committed: c}, nil
}

type fileWriter struct {
	s       *FileSink
	task    connector.TaskInfo
	pending string
	run     string
	seq     int
	f       *os.File
	w       *bufio.Writer
	buf     []byte
	bytes   atomic.Int64
}

func (w *fileWriter) Write(_ context.Context, rows []types.Row) error {
	if w.f == nil {
		w.seq++
		f, err := os.Create(filepath.Join(w.pending, fmt.Sprintf("t%03d-%s-%06d.tmp", w.task.Index, w.run, w.seq)))
		if err != nil {
			return err
		}
		w.f, w.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	n := 0
	for _, r := range rows {
		w.buf = w.buf[:0]
		for i, v := range r.Fields {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = strconv.AppendInt(w.buf, v.Int64(), 10)
		}
		w.buf = append(w.buf, '\n')
		n += len(w.buf)
		if _, err := w.w.Write(w.buf); err != nil {
			return err
		}
	}
	w.bytes.Add(int64(n))
	return nil
}

func (w *fileWriter) Bytes() int64 { return w.bytes.Load() }

func (w *fileWriter) PreCommit(_ context.Context, id int64) ([]connector.Committable, error) {
	if w.s.Check != nil {
		w.s.Check(w.task, id)
	}
	if w.f == nil {
		return nil, nil // never commit an empty transaction
	}
	f := w.f
	w.f = nil
	if err := w.w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	c := fileCommittable{Tmp: filepath.Base(f.Name()), Final: fmt.Sprintf("%020d-t%03d-%s-%06d.data", id, w.task.Index, w.run, w.seq)}
	data, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return []connector.Committable{data}, nil
}

func (w *fileWriter) Close() error {
	if w.f == nil {
		return nil
	}
	w.f.Close()
	return os.Remove(w.f.Name())
}

type fileCommitter struct {
	s                  *FileSink
	pending, committed string
}

func (c *fileCommitter) TransactionTimeout() time.Duration { return c.s.Timeout }

func decode(data connector.Committable) (fileCommittable, error) {
	var fc fileCommittable
	if err := json.Unmarshal(data, &fc); err != nil || fc.Tmp == "" || fc.Final == "" ||
		strings.ContainsAny(fc.Tmp+fc.Final, `/\`) {
		return fc, fmt.Errorf("testkit: bad committable %q", data)
	}
	return fc, nil
}

func (c *fileCommitter) Commit(_ context.Context, data connector.Committable) error {
	if c.s.commits.Add(1) <= c.s.FailCommits {
		return ErrTransient
	}
	fc, err := decode(data)
	if err != nil {
		return err
	}
	final := filepath.Join(c.committed, fc.Final)
	err = os.Rename(filepath.Join(c.pending, fc.Tmp), final)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(final); serr == nil {
			return nil // already committed
		}
		return fmt.Errorf("%w: neither %s nor %s exists", connector.ErrCommitLost, fc.Tmp, fc.Final)
	}
	if err != nil {
		return err
	}
	return checkpoint.SyncDir(c.committed)
}

func (c *fileCommitter) Abort(_ context.Context, data connector.Committable) error {
	fc, err := decode(data)
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(c.pending, fc.Tmp)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (c *fileCommitter) Recover(ctx context.Context, pending []connector.Committable) error {
	keep := map[string]bool{}
	for _, p := range pending {
		if err := c.Commit(ctx, p); err != nil {
			return err
		}
		fc, _ := decode(p)
		keep[fc.Tmp] = true
	}
	ents, err := os.ReadDir(c.pending)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !keep[e.Name()] {
			if err := os.Remove(filepath.Join(c.pending, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return checkpoint.SyncDir(c.pending)
}

func (c *fileCommitter) Close() error { return nil }

// ReadCommitted returns the rows committed under a FileSink's folder, in
// commit order (by checkpoint, then task), as lines of integers.
func ReadCommitted(dir string) ([][]int64, error) {
	d := filepath.Join(dir, "committed")
	ents, err := os.ReadDir(d)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	var rows [][]int64
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(d, n))
		if err != nil {
			return nil, err
		}
		for line := range bytes.Lines(data) {
			line = bytes.TrimSuffix(line, []byte("\n"))
			var row []int64
			for f := range bytes.SplitSeq(line, []byte(",")) {
				v, err := strconv.ParseInt(string(f), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: bad line %q", n, line)
				}
				row = append(row, v)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// CheckExactlyOnce checks that rows (as ReadCommitted returns them, each
// (partition, seq)) hold, for each of partitions, the sequence numbers
// 0, 1, ... exactly once and in order; want[p] is the count expected for
// partition p (nil: any count, a prefix is enough). It returns the count
// per partition.
func CheckExactlyOnce(rows [][]int64, partitions int, want []int64) ([]int64, error) {
	next := make([]int64, partitions)
	for i, r := range rows {
		if len(r) != 2 || r[0] < 0 || r[0] >= int64(partitions) {
			return nil, fmt.Errorf("row %d: %v is not (partition, seq)", i, r)
		}
		p, seq := r[0], r[1]
		if seq != next[p] {
			kind := "gap or reordering"
			if seq < next[p] {
				kind = "duplicate"
			}
			return nil, fmt.Errorf("row %d: partition %d: seq %d after %d (%s)", i, p, seq, next[p]-1, kind)
		}
		next[p]++
	}
	if want != nil {
		for p := range partitions {
			if next[p] != want[p] {
				return next, fmt.Errorf("partition %d: %d rows committed, want %d", p, next[p], want[p])
			}
		}
	}
	return next, nil
}

// PendingFiles lists the transaction files of a FileSink's folder that are
// neither committed nor aborted. After a job has finished (or stopped
// gracefully) there are none: recovery aborts what failed runs left.
func PendingFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(dir, "pending"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, err
}

// CheckAtLeastOnce checks that rows hold every sequence number 0 ..
// want[p]-1 of each partition p at least once (duplicates allowed, as
// AT_LEAST_ONCE replays after failures). It returns the number of
// duplicate rows.
func CheckAtLeastOnce(rows [][]int64, want []int64) (int, error) {
	seen := make([][]bool, len(want))
	for p, n := range want {
		seen[p] = make([]bool, n)
	}
	dups := 0
	for i, r := range rows {
		if len(r) != 2 || r[0] < 0 || r[0] >= int64(len(want)) || r[1] < 0 || r[1] >= want[r[0]] {
			return dups, fmt.Errorf("row %d: %v is not an expected (partition, seq)", i, r)
		}
		if seen[r[0]][r[1]] {
			dups++
		}
		seen[r[0]][r[1]] = true
	}
	for p, s := range seen {
		for seq, ok := range s {
			if !ok {
				return dups, fmt.Errorf("partition %d: seq %d missing", p, seq)
			}
		}
	}
	return dups, nil
}
