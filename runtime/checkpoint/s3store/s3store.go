// Package s3store keeps a job's checkpoints in S3-compatible object
// storage: execution.checkpointing.dir = 's3://bucket/prefix'. Importing
// it registers the s3:// (and s3a://) scheme with package checkpoint;
// connectors/all, and so the streamsql command, imports it.
//
// The job's folder is the prefix <prefix>/<job>/, holding the same names
// as a local folder (checkpoint.Dir): chk-<id>.json and its revisions
// chk-<id>.r<n>.json, FINISHED.json, state/<name> for state files, and
// .lock.
//
// # Without rename
//
// Object storage has no atomic rename, and needs none here:
//
//   - The commit point. A checkpoint is one object written by one PUT,
//     which S3 makes visible whole or not at all; a crash mid-write leaves
//     nothing. It is written with If-None-Match: * (create only), so two
//     writers of one id cannot both succeed; a write retried after an
//     unanswered attempt of the same run (same Metadata.Run) replaces its
//     own earlier object with If-Match on that object's ETag. S3's
//     listings and reads are strongly consistent (AWS since December
//     2020, SeaweedFS always), so a completed checkpoint is seen by the
//     next List of any process.
//   - Revisions (commit acknowledgements) are new objects with new names,
//     written the same way; the older revisions are deleted once the new
//     one is written. A reader takes the highest revision, so a crash
//     between the two leaves a superseded object that Prune deletes.
//   - Retention and the fallback are the package's (checkpoint.Prunable):
//     they only list, read and delete.
//   - State files are single PUTs, or multipart uploads completed as a
//     whole when larger than a part; an upload a crash interrupted is
//     invisible, and the next lock holder aborts it.
//   - The finished record is one PUT, before the checkpoints are deleted.
//
// # The lock
//
// A job's exclusive lock is a lease: the object .lock, created with
// If-None-Match: * and renewed every LeaseDuration/3 with If-Match on the
// ETag of the holder's last write (compare-and-swap). Its content names
// the holder (process id, host, start time). A second process finds the
// object and:
//
//   - when the holder ran on the same machine and in the same process
//     namespace (same boot id, same pid namespace), asks the kernel:
//     a live holder fails the second process at once with
//     checkpoint.ErrLocked naming it; a dead one (a SIGKILLed process
//     being restarted) is taken over at once, with If-Match on the ETag
//     it read;
//   - otherwise watches the object: a renewal within LeaseDuration means
//     a live holder (ErrLocked); none means a dead one, taken over with
//     If-Match.
//
// The holder refuses to write (checkpoints, state files, the finished
// record) once LeaseDuration has passed since the start of its last
// successful renewal, which is before any other process can have taken
// the lock over, and fails with ErrLocked when a renewal finds the lock
// taken. While the store is unreachable the writes fail (the checkpoint
// fails and the job fails over or waits, by its settings); once it
// answers, the renewal's If-Match succeeds if nobody took the lock, and
// the holder goes on.
//
// Conditional writes are required: Lock first checks that the server
// refuses If-None-Match: * on an existing object, and fails with
// s3client.ErrNoConditionalWrites when it does not. AWS S3 (since 2024),
// MinIO, SeaweedFS, Ceph RGW, Cloudflare R2 and Google Cloud Storage's
// XML API have them; against a server without them streamsql refuses
// s3:// checkpoints rather than run with a lock that does not exclude.
package s3store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/internal/ckptpath"
	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/internal/s3fs/s3client"
	"github.com/streamsql/streamsql/runtime/checkpoint"
)

func init() {
	s := checkpoint.Scheme{Open: open, Load: load}
	checkpoint.RegisterScheme("s3", s)
	checkpoint.RegisterScheme("s3a", s)
}

func open(base, job string, opts checkpoint.OpenOptions) (checkpoint.Durable, error) {
	return Open(context.Background(), base, job, opts)
}

// load reads s3://.../<job> (its latest checkpoint) or
// s3://.../<job>/chk-....json.
func load(uri, job string, opts checkpoint.OpenOptions) (*checkpoint.Metadata, error) {
	loc, err := s3fs.ParseURI(uri)
	if err != nil {
		return nil, err
	}
	name := path.Base(loc.Prefix)
	if id, rev, ok := checkpoint.ParseFileName(name); ok && loc.Prefix != name {
		st, err := openAt(context.Background(), Location{Location: s3fs.Location{Bucket: loc.Bucket, Prefix: path.Dir(loc.Prefix)}}, job, opts)
		if err != nil {
			return nil, err
		}
		return st.Read(checkpoint.Ref{ID: id, Revision: rev})
	}
	st, err := openAt(context.Background(), Location{Location: loc}, job, opts)
	if err != nil {
		return nil, err
	}
	md, err := st.Latest()
	if err != nil {
		return nil, err
	}
	if md == nil {
		return nil, fmt.Errorf("restore from %s: no completed checkpoint there", uri)
	}
	return md, nil
}

// Location is the job's folder in a bucket.
type Location struct{ s3fs.Location }

// DefaultLeaseDuration is the lock's lease: renewed every third of it; a
// holder on another machine that stopped renewing is taken over after it.
const DefaultLeaseDuration = 30 * time.Second

// opTimeout bounds each request of the storage (with the client's
// retries), so that an unanswering store fails a checkpoint rather than
// hanging the coordinator.
const opTimeout = time.Minute

// partSize is the part size of large state files.
const partSize = 8 << 20

// Store is the checkpoint storage of one job in object storage. It
// implements checkpoint.Durable.
type Store struct {
	c   *s3client.Client
	loc s3fs.Location // the job's folder
	job string
	log *slog.Logger

	// LeaseDuration is the lock's lease (DefaultLeaseDuration); set it
	// before Lock.
	LeaseDuration time.Duration

	mu    sync.Mutex
	lease *lease // nil while not locked
}

var _ checkpoint.Durable = (*Store)(nil)

// Open returns the storage of job under base (s3://bucket/prefix). It
// creates the client and checks nothing remote: the first request does.
func Open(ctx context.Context, base, job string, opts checkpoint.OpenOptions) (*Store, error) {
	loc, err := s3fs.ParseURI(base)
	if err != nil {
		return nil, fmt.Errorf("checkpoint directory: %w", err)
	}
	if err := ckptpath.ValidJobName(job); err != nil {
		return nil, err
	}
	return openAt(ctx, Location{Location: loc.Join(job)}, job, opts)
}

func openAt(ctx context.Context, loc Location, job string, opts checkpoint.OpenOptions) (*Store, error) {
	c, err := s3client.New(ctx, opts.S3)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Store{c: c, loc: loc.Location, job: job, log: log, LeaseDuration: DefaultLeaseDuration}, nil
}

// Location implements checkpoint.Storage: s3://bucket/prefix/job.
func (s *Store) Location() string { return s.loc.String() }

func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), opTimeout)
}

func (s *Store) key(name string) string { return s.loc.Key(name) }

// Write implements checkpoint.Storage (see the package documentation).
func (s *Store) Write(md *checkpoint.Metadata) (int64, error) {
	if err := s.mayWrite(); err != nil {
		return 0, fmt.Errorf("write %s: %w", md.Ref(), err)
	}
	data, err := json.Marshal(md)
	if err != nil {
		return 0, fmt.Errorf("encode %s: %w", md.Ref(), err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	name := checkpoint.RevisionFileName(md.ID, md.Revision)
	if err := s.create(ctx, name, data, md.Run); err != nil {
		return 0, fmt.Errorf("write %s to %s: %w", md.Ref(), s.loc.URI(s.key(name)), err)
	}
	if md.Revision > 0 {
		if refs, err := s.list(ctx); err == nil {
			var old []string
			for _, r := range refs {
				if r.ID == md.ID && r.Revision < md.Revision {
					old = append(old, s.key(checkpoint.RevisionFileName(r.ID, r.Revision)))
				}
			}
			_ = s.c.DeleteAll(ctx, s.loc.Bucket, old) // a leftover is superseded anyway
		}
	}
	return int64(len(data)), nil
}

// create writes a checkpoint object that must not exist, or that an
// earlier attempt of the same run wrote.
func (s *Store) create(ctx context.Context, name string, data []byte, run string) error {
	key := s.key(name)
	_, err := s.c.Put(ctx, s.loc.Bucket, key, data, s3client.Cond{IfNoneMatch: true})
	if !errors.Is(err, s3client.ErrPrecondition) {
		return err
	}
	old, etag, gerr := s.c.GetAll(ctx, s.loc.Bucket, key)
	if gerr != nil {
		return errors.Join(err, gerr)
	}
	if bytes.Equal(old, data) {
		return nil // an earlier attempt whose answer was lost
	}
	var prev struct {
		Job string `json:"job"`
		Run string `json:"run"`
	}
	if json.Unmarshal(old, &prev) == nil && prev.Job == s.job && prev.Run == run && run != "" {
		// This run wrote it before, in a write that failed as far as
		// it knew: it may replace it, and only that version.
		_, err := s.c.Put(ctx, s.loc.Bucket, key, data, s3client.Cond{IfMatch: etag})
		return err
	}
	return fmt.Errorf("%w: %s already exists, written by run %q of job %q (this is run %q): another process writes the job's checkpoints",
		checkpoint.ErrLocked, s.loc.URI(key), prev.Run, prev.Job, run)
}

// List implements checkpoint.Storage.
func (s *Store) List() ([]checkpoint.Ref, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	return s.list(ctx)
}

func (s *Store) list(ctx context.Context) ([]checkpoint.Ref, error) {
	objs, err := s.c.List(ctx, s.loc.Bucket, s.loc.Dir()+"chk-")
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	var refs []checkpoint.Ref
	for _, o := range objs {
		name := strings.TrimPrefix(o.Key, s.loc.Dir())
		if id, rev, ok := checkpoint.ParseFileName(name); ok {
			refs = append(refs, checkpoint.Ref{ID: id, Revision: rev, Path: s.loc.URI(o.Key)})
		}
	}
	// Keys sort as the names do: ids are zero-padded, and "chk-N.json"
	// sorts before "chk-N.rM.json" ('j' < 'r'), so List's order is
	// oldest first except for revisions 10 and up.
	sortRefs(refs)
	return refs, nil
}

func sortRefs(refs []checkpoint.Ref) {
	for i := 1; i < len(refs); i++ {
		for j := i; j > 0 && refs[j-1].Newer(refs[j]); j-- {
			refs[j-1], refs[j] = refs[j], refs[j-1]
		}
	}
}

// Read implements checkpoint.Storage.
func (s *Store) Read(ref checkpoint.Ref) (*checkpoint.Metadata, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	key := s.key(checkpoint.RevisionFileName(ref.ID, ref.Revision))
	data, _, err := s.c.GetAll(ctx, s.loc.Bucket, key)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	md, err := checkpoint.Decode(data, s.loc.URI(key), s.job)
	if err != nil {
		return nil, err
	}
	if md.ID != ref.ID || md.Revision != ref.Revision {
		return nil, fmt.Errorf("%w: %s holds %s", checkpoint.ErrCorrupt, s.loc.URI(key), md.Ref())
	}
	return md, nil
}

// Latest implements checkpoint.Storage.
func (s *Store) Latest() (*checkpoint.Metadata, error) {
	refs, err := s.List()
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	return s.Read(refs[len(refs)-1])
}

// MaxID implements checkpoint.Storage.
func (s *Store) MaxID() (int64, error) {
	refs, err := s.List()
	if err != nil || len(refs) == 0 {
		return 0, err
	}
	return refs[len(refs)-1].ID, nil
}

// Prune implements checkpoint.Storage.
func (s *Store) Prune(retain int) error {
	if err := s.mayWrite(); err != nil {
		return err
	}
	refs, err := s.List()
	if err != nil {
		return err
	}
	return s.delete(checkpoint.Prunable(refs, s.Read, retain))
}

func (s *Store) delete(refs []checkpoint.Ref) error {
	if len(refs) == 0 {
		return nil
	}
	keys := make([]string, len(refs))
	for i, r := range refs {
		keys[i] = s.key(checkpoint.RevisionFileName(r.ID, r.Revision))
	}
	ctx, cancel := s.ctx()
	defer cancel()
	return s.c.DeleteAll(ctx, s.loc.Bucket, keys)
}

// Remove implements checkpoint.Storage.
func (s *Store) Remove(id int64) error {
	if err := s.mayWrite(); err != nil {
		return err
	}
	refs, err := s.List()
	if err != nil {
		return err
	}
	var del []checkpoint.Ref
	for _, r := range refs {
		if r.ID == id {
			del = append(del, r)
		}
	}
	return s.delete(del)
}

// Clear implements checkpoint.Storage: the state files, then the
// checkpoints (the finished record and the lock stay).
func (s *Store) Clear() error {
	if err := s.mayWrite(); err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	for _, prefix := range []string{checkpoint.StateDir + "/", "chk-"} {
		objs, err := s.c.List(ctx, s.loc.Bucket, s.loc.Dir()+prefix)
		if err != nil {
			return err
		}
		keys := make([]string, len(objs))
		for i, o := range objs {
			keys[i] = o.Key
		}
		if err := s.c.DeleteAll(ctx, s.loc.Bucket, keys); err != nil {
			return fmt.Errorf("delete checkpoints: %w", err)
		}
	}
	return nil
}

func (s *Store) stateKey(name string) string { return s.key(checkpoint.StateDir + "/" + name) }

// PutFile implements checkpoint.Files: one PUT, or a multipart upload in
// 8 MiB parts completed as a whole (aborted on failure).
func (s *Store) PutFile(ctx context.Context, name string, r io.Reader) (int64, error) {
	if err := checkpoint.ValidFileName(name); err != nil {
		return 0, err
	}
	if err := s.mayWrite(); err != nil {
		return 0, fmt.Errorf("write state file %s: %w", name, err)
	}
	n, err := s.c.PutStream(ctx, s.loc.Bucket, s.stateKey(name), r, partSize)
	if err != nil {
		return 0, fmt.Errorf("write state file: %w", err)
	}
	return n, nil
}

// OpenFile implements checkpoint.Files.
func (s *Store) OpenFile(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := checkpoint.ValidFileName(name); err != nil {
		return nil, err
	}
	rc, err := s.c.Get(ctx, s.loc.Bucket, s.stateKey(name), 0)
	if err != nil {
		return nil, fmt.Errorf("open state file: %w", err)
	}
	return rc, nil
}

// ListFiles implements checkpoint.Files.
func (s *Store) ListFiles(ctx context.Context, prefix string) ([]string, error) {
	root := s.stateKey("")
	objs, err := s.c.List(ctx, s.loc.Bucket, root+prefix)
	if err != nil {
		return nil, fmt.Errorf("list state files: %w", err)
	}
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, strings.TrimPrefix(o.Key, root))
	}
	return out, nil
}

// DeleteFile implements checkpoint.Files.
func (s *Store) DeleteFile(ctx context.Context, name string) error {
	if err := checkpoint.ValidFileName(name); err != nil {
		return err
	}
	if err := s.c.Delete(ctx, s.loc.Bucket, s.stateKey(name), ""); err != nil {
		return fmt.Errorf("delete state file: %w", err)
	}
	return nil
}

// FinishedPath implements checkpoint.Durable.
func (s *Store) FinishedPath() string { return s.loc.URI(s.key(checkpoint.FinishedFileName)) }

// MarkFinished implements checkpoint.Durable: one PUT.
func (s *Store) MarkFinished(f checkpoint.Finished) error {
	if err := s.mayWrite(); err != nil {
		return fmt.Errorf("write finished record: %w", err)
	}
	f.Version, f.Job = checkpoint.FinishedVersion, s.job
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encode finished record: %w", err)
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if _, err := s.c.Put(ctx, s.loc.Bucket, s.key(checkpoint.FinishedFileName), data, s3client.Cond{}); err != nil {
		return fmt.Errorf("write finished record: %w", err)
	}
	return nil
}

// Finished implements checkpoint.Durable.
func (s *Store) Finished() (*checkpoint.Finished, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	data, _, err := s.c.GetAll(ctx, s.loc.Bucket, s.key(checkpoint.FinishedFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read finished record: %w", err)
	}
	return checkpoint.DecodeFinished(data, s.FinishedPath(), s.job)
}

// DropFinished implements checkpoint.Durable.
func (s *Store) DropFinished() (bool, error) {
	f, err := s.Finished()
	if err == nil && f != nil {
		if err := s.Clear(); err != nil {
			return false, fmt.Errorf("delete the checkpoints of the finished job: %w", err)
		}
	}
	if f == nil && err == nil {
		return false, nil
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.c.Delete(ctx, s.loc.Bucket, s.key(checkpoint.FinishedFileName), ""); err != nil {
		return false, fmt.Errorf("delete finished record: %w", err)
	}
	return true, nil
}

// randomToken returns 16 random hex digits.
func randomToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
