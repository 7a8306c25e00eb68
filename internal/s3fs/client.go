package s3fs

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// Client is what the filesystem connector needs of an S3 client. Package
// s3fs/s3client implements it over aws-sdk-go-v2 and registers itself
// (RegisterClient) when it is linked, so that a program that never reads
// or writes s3:// does not link the SDK.
type Client interface {
	// Put stores data as one object (atomically) and returns its ETag; a
	// failed cond is an error wrapping ErrPrecondition.
	Put(ctx context.Context, bucket, key string, data []byte, cond Cond) (string, error)
	// Head describes an object; a missing one is an error wrapping
	// fs.ErrNotExist.
	Head(ctx context.Context, bucket, key string) (Object, error)
	// Get opens an object for reading from offset on.
	Get(ctx context.Context, bucket, key string, offset int64) (io.ReadCloser, error)
	// GetAll reads a whole object and returns it with its ETag.
	GetAll(ctx context.Context, bucket, key string) ([]byte, string, error)
	// List returns the objects whose key starts with prefix.
	List(ctx context.Context, bucket, prefix string) ([]Object, error)
	// CreateUpload starts a multipart upload of key and returns its id.
	CreateUpload(ctx context.Context, bucket, key string) (string, error)
	// UploadPart uploads part n (from 1) of an upload.
	UploadPart(ctx context.Context, bucket, key, id string, n int32, data []byte) (Part, error)
	// CompleteUpload makes the object of an upload appear; an upload that
	// is not there is an error wrapping ErrNoSuchUpload.
	CompleteUpload(ctx context.Context, bucket, key, id string, parts []Part) error
	// AbortUpload drops an upload and its parts (one already gone is not
	// an error).
	AbortUpload(ctx context.Context, bucket, key, id string) error
	// ListUploads returns the uploads in progress whose key starts with
	// prefix.
	ListUploads(ctx context.Context, bucket, prefix string) ([]Upload, error)
}

// Cond is the condition of a Put.
type Cond struct {
	// IfNoneMatch creates the object only when there is none.
	IfNoneMatch bool
	// IfMatch replaces the object only when its ETag is this one.
	IfMatch string
}

// Object describes a stored object.
type Object struct {
	Key          string
	Size         int64
	ETag         string
	LastModified time.Time
}

// Part is an uploaded part of a multipart upload.
type Part struct {
	// N is the part number, from 1.
	N int32 `json:"n"`
	// ETag is what the server answered to the part's upload.
	ETag string `json:"etag"`
	// Size is the part's size in bytes.
	Size int64 `json:"size"`
}

// Upload is a multipart upload in progress.
type Upload struct {
	Key, ID   string
	Initiated time.Time
}

// MinPartSize is the smallest size of a part other than the last one.
const MinPartSize = 5 << 20

// ErrPrecondition is wrapped by errors of a conditional request whose
// condition did not hold (HTTP 412).
var ErrPrecondition = errors.New("precondition failed")

// ErrNoSuchUpload is wrapped by errors of multipart operations on an
// upload that is not there (completed or aborted).
var ErrNoSuchUpload = errors.New("no such multipart upload")

// ErrNoClient is returned by NewClient when no S3 client is linked into
// the program.
var ErrNoClient = errors.New("s3:// needs the S3 client, which this program does not link: " +
	"import _ \"github.com/streamsql/streamsql/connectors/filesystem/s3\" (or connectors/all, as the streamsql CLI does)")

var (
	clientMu  sync.RWMutex
	newClient func(context.Context, Config) (Client, error)
)

// RegisterClient makes f the constructor of S3 clients. It is called from
// the init function of the package that implements Client; it panics when
// called twice, as database/sql's Register does.
func RegisterClient(f func(context.Context, Config) (Client, error)) {
	clientMu.Lock()
	defer clientMu.Unlock()
	if newClient != nil {
		panic("s3fs: RegisterClient called twice")
	}
	newClient = f
}

// HasClient reports whether an S3 client is registered.
func HasClient() bool {
	clientMu.RLock()
	defer clientMu.RUnlock()
	return newClient != nil
}

// NewClient returns a client for cfg from the registered constructor, or
// ErrNoClient.
func NewClient(ctx context.Context, cfg Config) (Client, error) {
	clientMu.RLock()
	f := newClient
	clientMu.RUnlock()
	if f == nil {
		return nil, ErrNoClient
	}
	return f(ctx, cfg)
}
