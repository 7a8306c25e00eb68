package checkpoint

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/internal/ckptpath"
	"github.com/streamsql/streamsql/internal/s3fs"
)

// Durable is a Storage that outlives the process: a local folder (Dir)
// or object storage. Besides checkpoints and state files it keeps the
// job's exclusive lock and the finished record of a bounded job.
type Durable interface {
	Storage
	// Lock takes the job's exclusive lock for as long as the process
	// runs the job; a second process of the job fails with an error
	// wrapping ErrLocked that names the holder. unlock releases it.
	Lock() (unlock func() error, err error)
	// MarkFinished writes the finished record durably and atomically.
	// Write it before the checkpoints are deleted.
	MarkFinished(f Finished) error
	// Finished returns the finished record, or nil when there is none.
	Finished() (*Finished, error)
	// DropFinished deletes the finished record (and checkpoints an
	// interrupted finish left); it reports whether there was one.
	DropFinished() (bool, error)
	// FinishedPath names the finished record, for messages.
	FinishedPath() string
}

var (
	_ Durable = (*Dir)(nil)
	_ Storage = (*Memory)(nil)
)

// OpenOptions are what opening a storage may need besides its location.
type OpenOptions struct {
	// S3 configures the client of s3:// locations.
	S3 s3fs.Config
	// Logger receives the storage's warnings (a lock taken over from a
	// holder that stopped renewing it); nil: slog.Default().
	Logger *slog.Logger
}

// Scheme opens the checkpoint storages of a URI scheme other than file
// (s3://). A package that implements one registers it with
// RegisterScheme from its init.
type Scheme struct {
	// Open returns the storage of job under base (a URI of the scheme).
	Open func(base, job string, opts OpenOptions) (Durable, error)
	// Load reads an explicitly given checkpoint (run --from-checkpoint):
	// a checkpoint's URI, or a job's folder (its latest checkpoint).
	Load func(uri, job string, opts OpenOptions) (*Metadata, error)
}

var schemes struct {
	mu sync.Mutex
	m  map[string]Scheme
}

// RegisterScheme registers the storage of URIs name://...; registering a
// name twice panics.
func RegisterScheme(name string, s Scheme) {
	schemes.mu.Lock()
	defer schemes.mu.Unlock()
	name = strings.ToLower(name)
	if _, dup := schemes.m[name]; dup {
		panic("checkpoint: scheme " + name + " registered twice")
	}
	if schemes.m == nil {
		schemes.m = map[string]Scheme{}
	}
	schemes.m[name] = s
}

// scheme returns the registered scheme of a URI (ok false for local
// paths and file:// URIs), or an error for a scheme nobody registered.
func scheme(dir string) (Scheme, bool, error) {
	name, _, found := strings.Cut(dir, "://")
	if !found || name == "" || strings.EqualFold(name, "file") {
		return Scheme{}, false, nil
	}
	schemes.mu.Lock()
	s, ok := schemes.m[strings.ToLower(name)]
	schemes.mu.Unlock()
	if ok {
		return s, true, nil
	}
	if s3fs.IsURI(dir) {
		return Scheme{}, false, errors.New("s3:// checkpoint storage is not linked into this program: import " +
			"github.com/streamsql/streamsql/runtime/checkpoint/s3store (connectors/all and the streamsql command do)")
	}
	return Scheme{}, false, fmt.Errorf("checkpoint directory %q: scheme %q is not supported; use a local path, a file:// URI or an s3:// URI",
		dir, name)
}

// Open returns the durable storage of job under base
// (execution.checkpointing.dir): a local folder (OpenDir) for a plain
// path or a file:// URI, else the storage of base's registered scheme.
func Open(base, job string, opts OpenOptions) (Durable, error) {
	if err := ckptpath.ValidJobName(job); err != nil {
		return nil, err
	}
	s, ok, err := scheme(base)
	if err != nil {
		return nil, err
	}
	if ok {
		return s.Open(base, job, opts)
	}
	return OpenDir(base, job)
}

// LoadFrom reads an explicitly given checkpoint (run --from-checkpoint):
// a checkpoint file or a job's checkpoint folder (its latest checkpoint),
// local (LoadPath) or under a registered scheme.
func LoadFrom(path, job string, opts OpenOptions) (*Metadata, error) {
	s, ok, err := scheme(path)
	if err != nil {
		return nil, err
	}
	if ok {
		return s.Load(path, job, opts)
	}
	return LoadPath(path, job)
}
