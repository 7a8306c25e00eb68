// Package checkpoint stores completed checkpoints of a job durably and
// atomically, and finds them again on recovery.
//
// A checkpoint is one file, <dir>/<job>/chk-<id>.json, written as a
// temporary file that is fsynced, renamed into place and followed by an
// fsync of the directory: a checkpoint file either exists complete or not
// at all, whatever the moment of a crash. Only a checkpoint whose file
// exists is complete.
//
// The types to learn first: [Storage] (where checkpoints go; [Dir] from
// [OpenDir] on disk, [Memory] for tests) and [Metadata] (one checkpoint).
package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connector"
)

// FormatVersion is the version of the metadata file format this package
// writes and reads.
const FormatVersion = 1

// Metadata is the content of one completed checkpoint.
type Metadata struct {
	// Version is FormatVersion.
	Version int `json:"version"`
	// Job is the job's name.
	Job string `json:"job"`
	// ID is the checkpoint's id; ids of a job only grow, across runs too.
	ID int64 `json:"id"`
	// Run identifies the run (process attempt) that wrote the checkpoint.
	Run string `json:"run"`
	// Time is when the checkpoint was completed.
	Time time.Time `json:"time"`
	// Sources maps a source's id to the state of each of its splits.
	Sources map[string][]connector.SplitState `json:"sources"`
	// Pending lists every committable that is not durably known to be
	// committed: recovery commits them again (commits are idempotent).
	Pending []Committable `json:"pending,omitempty"`
	// AcksOf, when not 0, marks an acknowledgement record: a copy of
	// checkpoint AcksOf (same source positions) written to record commit
	// acknowledgements, with fewer pending committables. It supersedes
	// that checkpoint.
	AcksOf int64 `json:"acks_of,omitempty"`
}

// Committable is a sink's committable with the identity the runtime gives
// it.
type Committable struct {
	Key
	// Data is the sink's serialized committable.
	Data connector.Committable `json:"data"`
}

// Key identifies a committable within a job, across runs.
type Key struct {
	// Sink is the id of the sink that produced the committable.
	Sink string `json:"sink"`
	// Run is the run whose writer produced it.
	Run string `json:"run"`
	// Checkpoint is the checkpoint at whose barrier it was pre-committed.
	Checkpoint int64 `json:"checkpoint"`
	// Task is the index of the sink task that produced it.
	Task int `json:"task"`
	// Seq is its index among the committables of one PreCommit call.
	Seq int `json:"seq"`
}

// String returns a readable form of k for errors and logs.
func (k Key) String() string {
	return fmt.Sprintf("sink %q task %d checkpoint %d #%d (run %s)", k.Sink, k.Task, k.Checkpoint, k.Seq, k.Run)
}

// Compare orders keys by sink, checkpoint, task, sequence and run.
func (k Key) Compare(o Key) int {
	if c := strings.Compare(k.Sink, o.Sink); c != 0 {
		return c
	}
	if k.Checkpoint != o.Checkpoint {
		if k.Checkpoint < o.Checkpoint {
			return -1
		}
		return 1
	}
	if k.Task != o.Task {
		return k.Task - o.Task
	}
	if k.Seq != o.Seq {
		return k.Seq - o.Seq
	}
	return strings.Compare(k.Run, o.Run)
}

// Storage keeps a job's completed checkpoints.
type Storage interface {
	// Write stores md durably and atomically and returns its size in
	// bytes. When Write returns nil the checkpoint is complete.
	Write(md *Metadata) (int64, error)
	// Latest returns the completed checkpoint with the highest id, or nil
	// when there is none.
	Latest() (*Metadata, error)
	// MaxID returns the highest checkpoint id stored (0 when none).
	MaxID() (int64, error)
	// Prune deletes all but the retain newest checkpoints.
	Prune(retain int) error
	// Remove deletes checkpoint id; removing a missing one succeeds.
	Remove(id int64) error
	// Clear deletes every checkpoint of the job.
	Clear() error
	// Location describes where checkpoints are stored, for messages.
	Location() string
}

// ErrCorrupt is wrapped by errors returned when a checkpoint file cannot be
// decoded or belongs to another job.
var ErrCorrupt = errors.New("corrupt checkpoint")

// ResolveDir turns the value of execution.checkpointing.dir (a plain path
// or a file:// URI) into a local directory path.
func ResolveDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("checkpoint directory is empty")
	}
	if i := strings.Index(dir, "://"); i > 0 || strings.HasPrefix(dir, "file:") {
		u, err := url.Parse(dir)
		if err != nil {
			return "", fmt.Errorf("checkpoint directory %q: %w", dir, err)
		}
		if u.Scheme != "file" {
			return "", fmt.Errorf("checkpoint directory %q: scheme %q is not supported; use a local path or a file:// URI", dir, u.Scheme)
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", fmt.Errorf("checkpoint directory %q: file URIs must not name a host (use file:///path)", dir)
		}
		p := u.Path
		if p == "" {
			p = u.Opaque
		}
		if p == "" {
			return "", fmt.Errorf("checkpoint directory %q has no path", dir)
		}
		return filepath.Clean(p), nil
	}
	return filepath.Clean(dir), nil
}

// ValidJobName reports an error when job cannot name a checkpoint folder.
func ValidJobName(job string) error {
	switch {
	case job == "":
		return errors.New("job name is empty")
	case job == "." || job == "..":
		return fmt.Errorf("job name %q cannot name a directory", job)
	case strings.ContainsAny(job, `/\`+"\x00"):
		return fmt.Errorf("job name %q must not contain / or \\", job)
	}
	return nil
}

// Dir stores checkpoints as files in a directory on a local file system.
type Dir struct {
	path string
	job  string
}

// OpenDir returns the storage of job under base (a plain path or file://
// URI), creating the job's folder.
func OpenDir(base, job string) (*Dir, error) {
	if err := ValidJobName(job); err != nil {
		return nil, err
	}
	root, err := ResolveDir(base)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(root, job)
	if err := os.MkdirAll(p, 0o755); err != nil {
		return nil, fmt.Errorf("create checkpoint directory: %w", err)
	}
	// Temporary files of writes that a crash interrupted are not
	// checkpoints; delete them.
	if ents, err := os.ReadDir(p); err == nil {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".tmp-"+prefix) {
				_ = os.Remove(filepath.Join(p, e.Name()))
			}
		}
	}
	return &Dir{path: p, job: job}, nil
}

// Path returns the job's checkpoint folder.
func (d *Dir) Path() string { return d.path }

// Location implements Storage.
func (d *Dir) Location() string { return d.path }

const prefix, suffix = "chk-", ".json"

// FileName returns the name of checkpoint id's file.
func FileName(id int64) string { return fmt.Sprintf("%s%020d%s", prefix, id, suffix) }

func parseName(name string) (int64, bool) {
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
		return 0, false
	}
	id, err := strconv.ParseInt(name[len(prefix):len(name)-len(suffix)], 10, 64)
	return id, err == nil && id > 0
}

// Write implements Storage: temporary file, fsync, rename, fsync of the
// directory.
func (d *Dir) Write(md *Metadata) (int64, error) {
	data, err := json.Marshal(md)
	if err != nil {
		return 0, fmt.Errorf("encode checkpoint %d: %w", md.ID, err)
	}
	final := filepath.Join(d.path, FileName(md.ID))
	tmp, err := os.CreateTemp(d.path, ".tmp-"+FileName(md.ID)+"-*")
	if err != nil {
		return 0, fmt.Errorf("write checkpoint %d: %w", md.ID, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("write checkpoint %d: %w", md.ID, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("fsync checkpoint %d: %w", md.ID, err)
	}
	if err := tmp.Close(); err != nil {
		return 0, fmt.Errorf("write checkpoint %d: %w", md.ID, err)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return 0, fmt.Errorf("write checkpoint %d: %w", md.ID, err)
	}
	if err := SyncDir(d.path); err != nil {
		return 0, fmt.Errorf("fsync checkpoint directory: %w", err)
	}
	return int64(len(data)), nil
}

// SyncDir fsyncs a directory so that renames and creations in it are
// durable.
func SyncDir(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (d *Dir) ids() ([]int64, error) {
	ents, err := os.ReadDir(d.path)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	var ids []int64
	for _, e := range ents {
		if id, ok := parseName(e.Name()); ok && e.Type().IsRegular() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Latest implements Storage.
func (d *Dir) Latest() (*Metadata, error) {
	ids, err := d.ids()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return Load(filepath.Join(d.path, FileName(ids[len(ids)-1])), d.job)
}

// MaxID implements Storage.
func (d *Dir) MaxID() (int64, error) {
	ids, err := d.ids()
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return ids[len(ids)-1], nil
}

// Prune implements Storage.
func (d *Dir) Prune(retain int) error {
	ids, err := d.ids()
	if err != nil {
		return err
	}
	retain = max(retain, 1)
	for len(ids) > retain {
		if err := os.Remove(filepath.Join(d.path, FileName(ids[0]))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete checkpoint %d: %w", ids[0], err)
		}
		ids = ids[1:]
	}
	return nil
}

// Remove implements Storage.
func (d *Dir) Remove(id int64) error {
	if err := os.Remove(filepath.Join(d.path, FileName(id))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete checkpoint %d: %w", id, err)
	}
	return nil
}

// Clear implements Storage.
func (d *Dir) Clear() error {
	ids, err := d.ids()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := os.Remove(filepath.Join(d.path, FileName(id))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete checkpoint %d: %w", id, err)
		}
	}
	return SyncDir(d.path)
}

// Load reads a checkpoint file. When job is not empty, the checkpoint must
// belong to it.
func Load(path, job string) (*Metadata, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var md Metadata
	if err := dec.Decode(&md); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if md.Version != FormatVersion {
		return nil, fmt.Errorf("%w: %s: format version %d, want %d", ErrCorrupt, path, md.Version, FormatVersion)
	}
	if job != "" && md.Job != job {
		return nil, fmt.Errorf("%w: %s belongs to job %q, not %q", ErrCorrupt, path, md.Job, job)
	}
	return &md, nil
}

// LoadPath loads an explicitly given checkpoint: a checkpoint file, or a
// job's checkpoint folder (its latest checkpoint is used).
func LoadPath(path, job string) (*Metadata, error) {
	p, err := ResolveDir(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("restore from %s: %w", path, err)
	}
	if !st.IsDir() {
		return Load(p, job)
	}
	md, err := (&Dir{path: p, job: job}).Latest()
	if err != nil {
		return nil, err
	}
	if md == nil {
		return nil, fmt.Errorf("restore from %s: no completed checkpoint there", path)
	}
	return md, nil
}

// Memory keeps checkpoints in memory: they survive restarts within the
// process, not the process. It is used when no checkpoint directory is
// configured.
type Memory struct {
	mu  sync.Mutex
	all []*Metadata
}

// Location implements Storage.
func (m *Memory) Location() string { return "memory" }

// Write implements Storage.
func (m *Memory) Write(md *Metadata) (int64, error) {
	data, err := json.Marshal(md)
	if err != nil {
		return 0, err
	}
	var cp Metadata
	if err := json.Unmarshal(data, &cp); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.all = append(m.all, &cp)
	return int64(len(data)), nil
}

// Latest implements Storage.
func (m *Memory) Latest() (*Metadata, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.all) == 0 {
		return nil, nil
	}
	return m.all[len(m.all)-1], nil
}

// MaxID implements Storage.
func (m *Memory) MaxID() (int64, error) {
	md, _ := m.Latest()
	if md == nil {
		return 0, nil
	}
	return md.ID, nil
}

// Prune implements Storage.
func (m *Memory) Prune(retain int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.all) - max(retain, 1); n > 0 {
		m.all = append([]*Metadata(nil), m.all[n:]...)
	}
	return nil
}

// Remove implements Storage.
func (m *Memory) Remove(id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.all = slices.DeleteFunc(m.all, func(md *Metadata) bool { return md.ID == id })
	return nil
}

// Clear implements Storage.
func (m *Memory) Clear() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.all = nil
	return nil
}

// ErrNoSuchCommittable is returned by DropPending when the latest
// checkpoint has no pending committable with the given key.
var ErrNoSuchCommittable = errors.New("no such pending committable")

// DropPending is how an operator accepts the loss of pre-committed work
// that a sink reported lost (runtime.CommitLostError): it writes a new
// checkpoint, a copy of the latest one without the committable of key, so
// that the next run neither commits it nor fails on it. The rows of that
// committable are lost for good. The alternative, which loses nothing but
// may duplicate rows in sinks whose commits succeeded, is to restore an
// earlier retained checkpoint.
func DropPending(s Storage, key Key) (*Metadata, error) {
	md, err := s.Latest()
	if err != nil {
		return nil, err
	}
	if md == nil {
		return nil, fmt.Errorf("%w: no checkpoint in %s", ErrNoSuchCommittable, s.Location())
	}
	cp := *md
	cp.Pending = nil
	found := false
	for _, c := range md.Pending {
		if c.Key == key {
			found = true
			continue
		}
		cp.Pending = append(cp.Pending, c)
	}
	if !found {
		return nil, fmt.Errorf("%w: %s in checkpoint %d", ErrNoSuchCommittable, key, md.ID)
	}
	maxID, err := s.MaxID()
	if err != nil {
		return nil, err
	}
	cp.ID = max(maxID, md.ID) + 1
	cp.Time = time.Now().UTC()
	if _, err := s.Write(&cp); err != nil {
		return nil, err
	}
	return &cp, nil
}
