// Package checkpoint stores completed checkpoints of a job durably and
// atomically, and finds them again on recovery.
//
// A checkpoint is one file, <dir>/<job>/chk-<id>.json, written as a
// temporary file that is fsynced, renamed into place and followed by an
// fsync of the directory: a checkpoint file either exists complete or not
// at all, whatever the moment of a crash. Only a checkpoint whose file
// exists is complete.
//
// A checkpoint may be rewritten with fewer pending committables (commit
// acknowledgements, or an operator's DropPending) as a revision:
// chk-<id>.r<n>.json, same id and source positions. A revision supersedes
// the older revisions of its checkpoint, which Write deletes once it is
// durable. So ids count the checkpoints a user sees (1, 2, 3, ...), and
// the newest file is the one with the highest id and, among those, the
// highest revision. Files of the earlier format, where an acknowledgement
// record took a new id (and said which checkpoint it copied in acks_of),
// are read as they are.
//
// Operator state that does not fit into the metadata goes into state
// files ([Files], which every Storage has): immutable files under the
// job's checkpoint location, written and made durable before the
// checkpoint that references them.
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
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/ckptpath"
	"github.com/streamsql/streamsql/state"
)

// FormatVersion is the version of the metadata file format this package
// writes. Version 2 added operator state (Operators, MaxParallelism) and
// split watermarks (Watermarks); files of version 1, which hold neither,
// are read as they are.
const FormatVersion = 2

// minFormatVersion is the oldest version Load reads.
const minFormatVersion = 1

// Metadata is the content of one completed checkpoint.
type Metadata struct {
	// Version is FormatVersion (1 in files of the first format).
	Version int `json:"version"`
	// Job is the job's name.
	Job string `json:"job"`
	// ID is the checkpoint's id; ids of a job only grow, across runs too.
	ID int64 `json:"id"`
	// Revision is 0 for the checkpoint as it completed and n for its n-th
	// rewrite with fewer pending committables (same source positions).
	Revision int `json:"revision,omitempty"`
	// Run identifies the run (process attempt) that wrote the checkpoint.
	Run string `json:"run"`
	// Time is when the checkpoint was completed.
	Time time.Time `json:"time"`
	// Sources maps a source's id to the state of each of its splits.
	Sources map[string][]connector.SplitState `json:"sources"`
	// Pending lists every committable that is not durably known to be
	// committed: recovery commits them again (commits are idempotent).
	Pending []Committable `json:"pending,omitempty"`
	// AcksOf is read from files of the earlier format, where an
	// acknowledgement record was a copy of checkpoint AcksOf under a new
	// id. Such a file is a checkpoint like any other.
	AcksOf int64 `json:"acks_of,omitempty"`
	// RestoredFrom, when set, says that this checkpoint is a copy of an
	// explicitly restored one (run --from-checkpoint), written into the
	// job's storage before the run started so that in-process restarts
	// resume from it too.
	RestoredFrom string `json:"restored_from,omitempty"`
	// MaxParallelism is the job's number of key groups
	// (pipeline.max-parallelism) when the checkpoint was taken; 0 in files
	// of version 1.
	MaxParallelism int `json:"max_parallelism,omitempty"`
	// Operators maps a stateful operator's vertex id to its state: one
	// entry per task that had state to write.
	Operators map[string]OperatorState `json:"operators,omitempty"`
	// Watermarks maps a source's id to the event-time watermark of each of
	// its splits (milliseconds since the epoch), for sources with event
	// time.
	Watermarks map[string]map[string]int64 `json:"watermarks,omitempty"`
	// InputEnded marks the final checkpoint of a run whose every source
	// had read all its input, taken when the job's retention deletes its
	// checkpoints once it finishes: every operator had processed all its
	// input and emitted all it would, so the checkpoint holds no operator
	// state (as Flink's checkpoints of finished tasks hold none), and a
	// run that restores it commits its pending committables and finishes
	// without running the job again. Versions that do not know the field
	// refuse the file (unknown fields are an error), rather than run the
	// job again without its state.
	InputEnded bool `json:"input_ended,omitempty"`
}

// OperatorState is what a checkpoint holds of one stateful operator.
type OperatorState struct {
	// Tasks holds each task's state.
	Tasks []TaskState `json:"tasks"`
}

// TaskState is one task's state of a stateful operator.
type TaskState struct {
	// Task is the task's index among Parallelism tasks.
	Task        int `json:"task"`
	Parallelism int `json:"parallelism"`
	// Handle is the keyed state's handle (its key groups, its files).
	Handle state.Handle `json:"handle"`
	// Watermark is the task's event-time watermark at the checkpoint
	// (stream.MinWatermark when it had none).
	Watermark int64 `json:"watermark"`
}

// StateFiles returns the names of the state files md references.
func (md *Metadata) StateFiles() []string {
	var out []string
	for _, op := range md.Operators {
		for _, t := range op.Tasks {
			for _, f := range t.Handle.Files {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// Ref names a stored checkpoint file.
type Ref struct {
	// ID and Revision are the checkpoint's.
	ID       int64
	Revision int
	// Path is the file (for messages); "memory" for in-memory storage.
	Path string
}

// Newer reports whether r is newer than o: a higher id, or the same id
// and a higher revision.
func (r Ref) Newer(o Ref) bool {
	return r.ID > o.ID || (r.ID == o.ID && r.Revision > o.Revision)
}

// String returns "checkpoint <id>" or "checkpoint <id> revision <n>".
func (r Ref) String() string {
	if r.Revision == 0 {
		return fmt.Sprintf("checkpoint %d", r.ID)
	}
	return fmt.Sprintf("checkpoint %d revision %d", r.ID, r.Revision)
}

// Ref returns the reference of md (without a path).
func (md *Metadata) Ref() Ref { return Ref{ID: md.ID, Revision: md.Revision} }

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

// Token returns k as one word, "<sink>#<checkpoint>/<task>/<seq>/<run>",
// which ParseKey reads back (the CLI's drop-pending takes it).
func (k Key) Token() string {
	return fmt.Sprintf("%s#%d/%d/%d/%s", k.Sink, k.Checkpoint, k.Task, k.Seq, k.Run)
}

// ParseKey parses a Key.Token.
func ParseKey(s string) (Key, error) {
	bad := fmt.Errorf("committable key %q: want <sink>#<checkpoint>/<task>/<seq>/<run>, as `streamsql checkpoint show` prints it", s)
	i := strings.LastIndex(s, "#")
	if i <= 0 {
		return Key{}, bad
	}
	parts := strings.Split(s[i+1:], "/")
	if len(parts) != 4 || parts[3] == "" {
		return Key{}, bad
	}
	ck, err1 := strconv.ParseInt(parts[0], 10, 64)
	task, err2 := strconv.Atoi(parts[1])
	seq, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return Key{}, bad
	}
	return Key{Sink: s[:i], Checkpoint: ck, Task: task, Seq: seq, Run: parts[3]}, nil
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
	// bytes. When Write returns nil the checkpoint is complete. A
	// revision (md.Revision > 0) supersedes the older revisions of its
	// checkpoint: once it is durable, Write deletes them.
	Write(md *Metadata) (int64, error)
	// List returns the stored checkpoints, oldest first.
	List() ([]Ref, error)
	// Read loads a stored checkpoint.
	Read(ref Ref) (*Metadata, error)
	// Latest returns the newest stored checkpoint, or nil when there is
	// none.
	Latest() (*Metadata, error)
	// MaxID returns the highest checkpoint id stored (0 when none).
	MaxID() (int64, error)
	// Prune deletes all but the retain newest checkpoints, keeping the
	// fallback (see Fallback; while there is none, the oldest
	// checkpoint) too.
	Prune(retain int) error
	// Remove deletes every revision of checkpoint id; removing a missing
	// one succeeds.
	Remove(id int64) error
	// Clear deletes every checkpoint of the job and every state file.
	Clear() error
	// Location describes where checkpoints are stored, for messages.
	Location() string
	// Files keeps the job's state files, which checkpoints reference.
	Files
}

// ErrCorrupt is wrapped by errors returned when a checkpoint file cannot be
// decoded or belongs to another job.
var ErrCorrupt = errors.New("corrupt checkpoint")

// ErrDirGone is wrapped by errors of a job's checkpoint folder that no
// longer exists: it was deleted while the job ran. The runtime fails the
// job with it instead of restarting.
var ErrDirGone = errors.New("checkpoint directory disappeared")

// gone returns err, or, when the job's folder no longer exists, an error
// wrapping ErrDirGone and err that says what happened and what to do.
func (d *Dir) gone(err error) error {
	if err == nil {
		return nil
	}
	if _, serr := os.Stat(d.path); !errors.Is(serr, fs.ErrNotExist) {
		return err
	}
	return fmt.Errorf("%w while the job ran: %s no longer exists (was it deleted?), so the job cannot record its progress; "+
		"run the job again to start it fresh, as a new job, from its sources' startup modes (%w)", ErrDirGone, d.path, err)
}

// Dir stores checkpoints as files in a directory on a local file system.
type Dir struct {
	path string
	job  string
	// faults, when set, is consulted at each stage of a write ("write",
	// "fsync"): a non-nil error fails the write there (tests of full or
	// failing disks).
	faults func(stage string) error
}

// OpenDir returns the storage of job under base (a plain path or file://
// URI), creating the job's folder. A process that runs the job takes the
// folder's lock (Lock) before it writes.
func OpenDir(base, job string) (*Dir, error) {
	if err := ckptpath.ValidJobName(job); err != nil {
		return nil, err
	}
	root, err := ckptpath.Resolve(base)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(root, job)
	if err := os.MkdirAll(p, 0o755); err != nil {
		return nil, fmt.Errorf("create checkpoint directory: %w", err)
	}
	return &Dir{path: p, job: job}, nil
}

// Path returns the job's checkpoint folder.
func (d *Dir) Path() string { return d.path }

// Location implements Storage.
func (d *Dir) Location() string { return d.path }

const prefix, suffix = "chk-", ".json"

// FileName returns the name of checkpoint id's file (revision 0).
func FileName(id int64) string { return RevisionFileName(id, 0) }

// RevisionFileName returns the name of revision rev of checkpoint id.
func RevisionFileName(id int64, rev int) string {
	if rev == 0 {
		return fmt.Sprintf("%s%020d%s", prefix, id, suffix)
	}
	return fmt.Sprintf("%s%020d.r%d%s", prefix, id, rev, suffix)
}

// ParseFileName parses a checkpoint file's name (RevisionFileName): ok is
// false for any other name.
func ParseFileName(name string) (id int64, rev int, ok bool) { return parseName(name) }

func parseName(name string) (int64, int, bool) {
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
		return 0, 0, false
	}
	body := name[len(prefix) : len(name)-len(suffix)]
	idS, revS, hasRev := strings.Cut(body, ".r")
	id, err := strconv.ParseInt(idS, 10, 64)
	if err != nil || id <= 0 {
		return 0, 0, false
	}
	rev := 0
	if hasRev {
		if rev, err = strconv.Atoi(revS); err != nil || rev <= 0 || strconv.Itoa(rev) != revS {
			return 0, 0, false
		}
	}
	return id, rev, true
}

// Write implements Storage: temporary file, fsync, rename, fsync of the
// directory; then, for a revision, the older revisions are deleted.
func (d *Dir) Write(md *Metadata) (int64, error) {
	data, err := json.Marshal(md)
	if err != nil {
		return 0, fmt.Errorf("encode %s: %w", md.Ref(), err)
	}
	name := RevisionFileName(md.ID, md.Revision)
	final := filepath.Join(d.path, name)
	if err := d.writeFile(final, name, data); err != nil {
		return 0, d.gone(fmt.Errorf("write %s to %s: %w", md.Ref(), final, err))
	}
	if md.Revision > 0 {
		refs, err := d.List()
		if err == nil {
			for _, r := range refs {
				if r.ID == md.ID && r.Revision < md.Revision {
					_ = os.Remove(r.Path) // a leftover is superseded anyway
				}
			}
		}
	}
	return int64(len(data)), nil
}

func (d *Dir) writeFile(final, name string, data []byte) error {
	tmp, err := os.CreateTemp(d.path, ".tmp-"+name+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := d.fault("write"); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := d.fault("fsync"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("fsync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return err
	}
	if err := SyncDir(d.path); err != nil {
		return fmt.Errorf("fsync directory: %w", err)
	}
	return nil
}

// fault returns the error injected at stage of a write, if any.
func (d *Dir) fault(stage string) error {
	if d.faults == nil {
		return nil
	}
	return d.faults(stage)
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

// List implements Storage.
func (d *Dir) List() ([]Ref, error) {
	ents, err := os.ReadDir(d.path)
	if err != nil {
		return nil, d.gone(fmt.Errorf("list checkpoints: %w", err))
	}
	var refs []Ref
	for _, e := range ents {
		if id, rev, ok := parseName(e.Name()); ok && e.Type().IsRegular() {
			refs = append(refs, Ref{ID: id, Revision: rev, Path: filepath.Join(d.path, e.Name())})
		}
	}
	sortRefs(refs)
	return refs, nil
}

func sortRefs(refs []Ref) {
	slices.SortFunc(refs, func(a, b Ref) int {
		switch {
		case a.Newer(b):
			return 1
		case b.Newer(a):
			return -1
		}
		return 0
	})
}

// Read implements Storage.
func (d *Dir) Read(ref Ref) (*Metadata, error) {
	p := ref.Path
	if p == "" {
		p = filepath.Join(d.path, RevisionFileName(ref.ID, ref.Revision))
	}
	md, err := Load(p, d.job)
	if err != nil {
		return nil, err
	}
	if md.ID != ref.ID || md.Revision != ref.Revision {
		return nil, fmt.Errorf("%w: %s holds %s", ErrCorrupt, p, md.Ref())
	}
	return md, nil
}

// Latest implements Storage.
func (d *Dir) Latest() (*Metadata, error) {
	refs, err := d.List()
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	return d.Read(refs[len(refs)-1])
}

// MaxID implements Storage.
func (d *Dir) MaxID() (int64, error) {
	refs, err := d.List()
	if err != nil || len(refs) == 0 {
		return 0, err
	}
	return refs[len(refs)-1].ID, nil
}

// Prune implements Storage.
func (d *Dir) Prune(retain int) error {
	refs, err := d.List()
	if err != nil {
		return err
	}
	for _, r := range prunable(refs, d.Read, retain) {
		if err := os.Remove(r.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", r, err)
		}
	}
	return nil
}

// Remove implements Storage.
func (d *Dir) Remove(id int64) error {
	refs, err := d.List()
	if err != nil {
		return err
	}
	for _, r := range refs {
		if r.ID != id {
			continue
		}
		if err := os.Remove(r.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", r, err)
		}
	}
	return nil
}

// Clear implements Storage. The state files go first: a crash in
// between leaves checkpoints whose state files are gone, which a later
// Clear (a rerun of a finished job) deletes too.
func (d *Dir) Clear() error {
	refs, err := d.List()
	if err != nil {
		return err
	}
	if err := d.clearFiles(); err != nil {
		return err
	}
	for _, r := range refs {
		if err := os.Remove(r.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", r, err)
		}
	}
	return SyncDir(d.path)
}

// Fallback returns the newest of refs (oldest first, as List returns
// them) whose pending committables are all durably committed: none of
// them is pending in the newest checkpoint. It is the checkpoint that
// "restore an earlier checkpoint" can always use after a lost commit
// (restoring it replays its interval: nothing lost). ok is false when
// there is none, or when the newest checkpoint cannot be read.
func Fallback(refs []Ref, read func(Ref) (*Metadata, error)) (Ref, bool) {
	if len(refs) == 0 {
		return Ref{}, false
	}
	latest, err := read(refs[len(refs)-1])
	if err != nil {
		return Ref{}, false
	}
	pending := make(map[Key]bool, len(latest.Pending))
	for _, c := range latest.Pending {
		pending[c.Key] = true
	}
	for i := len(refs) - 1; i >= 0; i-- {
		md := latest
		if i < len(refs)-1 {
			if md, err = read(refs[i]); err != nil {
				continue
			}
		}
		if !slices.ContainsFunc(md.Pending, func(c Committable) bool { return pending[c.Key] }) {
			return refs[i], true
		}
	}
	return Ref{}, false
}

// Prunable returns the refs (oldest first, as List returns them) that
// Prune(retain) deletes, reading checkpoints with read: what every Storage
// implementation deletes.
func Prunable(refs []Ref, read func(Ref) (*Metadata, error), retain int) []Ref {
	return prunable(refs, read, retain)
}

// prunable returns the refs (oldest first) that Prune deletes: revisions
// superseded by a newer revision of their checkpoint, and checkpoints
// other than the retain newest and the fallback (or, while there is none,
// the oldest checkpoint: so the newest checkpoint whose pending commits
// are all durably done is never deleted, also not before its commits
// are done).
func prunable(refs []Ref, read func(Ref) (*Metadata, error), retain int) []Ref {
	var del, latest []Ref // latest: the newest revision of each id
	for i, r := range refs {
		if i+1 < len(refs) && refs[i+1].ID == r.ID {
			del = append(del, r)
			continue
		}
		latest = append(latest, r)
	}
	retain = max(retain, 1)
	if len(latest) <= retain {
		return del
	}
	fb, ok := Fallback(latest, read)
	if !ok {
		// No retained checkpoint is clear of the outstanding commits
		// yet (commits lag behind checkpoints). The oldest is kept: it
		// is the fallback of an earlier prune (or the first
		// checkpoint), and it becomes usable again once the commits it
		// lists are done.
		fb = latest[0]
	}
	for _, r := range latest[:len(latest)-retain] {
		if r != fb {
			del = append(del, r)
		}
	}
	return del
}

// KnownCommitted returns the keys of older's pending committables that
// newer (a later checkpoint of the same job, or a later revision) no
// longer lists: their commits were durably acknowledged (or an operator
// dropped them) before newer was written, so restoring older must not
// commit them again — their transactional ids may carry newer
// transactions since.
func KnownCommitted(older, newer *Metadata) map[Key]bool {
	if newer == nil || !newer.Ref().Newer(older.Ref()) {
		return nil
	}
	listed := make(map[Key]bool, len(newer.Pending))
	for _, c := range newer.Pending {
		listed[c.Key] = true
	}
	done := map[Key]bool{}
	for _, c := range older.Pending {
		if !listed[c.Key] {
			done[c.Key] = true
		}
	}
	return done
}

// Load reads a checkpoint file. When job is not empty, the checkpoint must
// belong to it.
func Load(path, job string) (*Metadata, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	return Decode(data, path, job)
}

// Decode decodes a checkpoint file's content (path names it in errors,
// which wrap ErrCorrupt). When job is not empty, the checkpoint must
// belong to it.
func Decode(data []byte, path, job string) (*Metadata, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var md Metadata
	if err := dec.Decode(&md); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if md.Version < minFormatVersion || md.Version > FormatVersion {
		return nil, fmt.Errorf("%w: %s: format version %d, want %d to %d (written by a newer streamsql?)", ErrCorrupt, path, md.Version, minFormatVersion, FormatVersion)
	}
	if job != "" && md.Job != job {
		return nil, fmt.Errorf("%w: %s belongs to job %q, not %q", ErrCorrupt, path, md.Job, job)
	}
	return &md, nil
}

// LoadPath loads an explicitly given checkpoint: a checkpoint file, or a
// job's checkpoint folder (its latest checkpoint is used).
func LoadPath(path, job string) (*Metadata, error) {
	p, err := ckptpath.Resolve(path)
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

// PathFiles returns the state files beside the checkpoint LoadPath loads
// from path (a checkpoint file's folder, or the job's folder path names),
// for copying the files an explicitly restored checkpoint references.
func PathFiles(path, job string) (Files, error) {
	p, err := ckptpath.Resolve(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("restore from %s: %w", path, err)
	}
	if !st.IsDir() {
		p = filepath.Dir(p)
	}
	return &Dir{path: p, job: job}, nil
}

// Memory keeps checkpoints in memory: they survive restarts within the
// process, not the process. It is used when no checkpoint directory is
// configured.
type Memory struct {
	mu    sync.Mutex
	all   []*Metadata       // oldest first
	files map[string][]byte // state files by name
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
	m.all = slices.DeleteFunc(m.all, func(o *Metadata) bool {
		return o.ID == md.ID && (o.Revision == md.Revision || md.Revision > 0 && o.Revision < md.Revision)
	})
	m.all = append(m.all, &cp)
	slices.SortFunc(m.all, func(a, b *Metadata) int {
		switch {
		case a.Ref().Newer(b.Ref()):
			return 1
		case b.Ref().Newer(a.Ref()):
			return -1
		}
		return 0
	})
	return int64(len(data)), nil
}

// List implements Storage.
func (m *Memory) List() ([]Ref, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	refs := make([]Ref, len(m.all))
	for i, md := range m.all {
		refs[i] = md.Ref()
		refs[i].Path = "memory"
	}
	return refs, nil
}

// Read implements Storage.
func (m *Memory) Read(ref Ref) (*Metadata, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, md := range m.all {
		if md.ID == ref.ID && md.Revision == ref.Revision {
			return md, nil
		}
	}
	return nil, fmt.Errorf("read %s: %w", ref, fs.ErrNotExist)
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
	refs, _ := m.List()
	del := prunable(refs, m.Read, retain)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.all = slices.DeleteFunc(m.all, func(md *Metadata) bool {
		return slices.ContainsFunc(del, func(r Ref) bool { return r.ID == md.ID && r.Revision == md.Revision })
	})
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
	m.all, m.files = nil, nil
	return nil
}

// ErrNoSuchCommittable is returned by DropPending when the latest
// checkpoint has no pending committable with a given key.
var ErrNoSuchCommittable = errors.New("no such pending committable")

// DropPending is how an operator accepts the loss of pre-committed work
// that a sink reported lost (runtime.CommitLostError): it writes a new
// revision of the latest checkpoint without the committables of keys, so
// that the next run neither commits them nor fails on them. The rows of
// those committables are lost for good. The alternative, which loses
// nothing but may duplicate rows in sinks whose commits succeeded, is to
// restore an earlier retained checkpoint. Nothing is written unless every
// key is pending in the latest checkpoint.
func DropPending(s Storage, keys ...Key) (*Metadata, error) {
	md, err := s.Latest()
	if err != nil {
		return nil, err
	}
	if md == nil {
		return nil, fmt.Errorf("%w: no checkpoint in %s", ErrNoSuchCommittable, s.Location())
	}
	drop := make(map[Key]bool, len(keys))
	for _, k := range keys {
		if !slices.ContainsFunc(md.Pending, func(c Committable) bool { return c.Key == k }) {
			return nil, fmt.Errorf("%w: %s in %s", ErrNoSuchCommittable, k, md.Ref())
		}
		drop[k] = true
	}
	cp := *md
	cp.Pending = nil
	for _, c := range md.Pending {
		if !drop[c.Key] {
			cp.Pending = append(cp.Pending, c)
		}
	}
	cp.Revision++
	cp.Time = time.Now().UTC()
	if _, err := s.Write(&cp); err != nil {
		return nil, err
	}
	return &cp, nil
}
