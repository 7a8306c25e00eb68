package filesystem

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/s3fs"
)

// s3PartSize is the size of the parts of a multipart upload but the last:
// S3's minimum, so that a writer holds at most this much per open file.
const s3PartSize = s3fs.MinPartSize

// s3Part is an in-progress file of object storage: a multipart upload of
// the file's final key, which is invisible until it is completed (Flink's
// recoverable writer for S3 works the same way). Rows collect in a buffer;
// each full buffer becomes a part. finish uploads the rest as the last
// part: the committable then names the upload and every part, and commit
// completes it.
type s3Part struct {
	st     *store
	c      s3fs.Client
	key    string
	id     string
	buf    []byte
	parts  []s3fs.Part
	n      int64
	opened time.Time
}

// newS3Part starts the upload of rel (relative to the store's prefix).
func newS3Part(ctx context.Context, st *store, rel string, now time.Time) (*s3Part, error) {
	c, err := st.c(ctx)
	if err != nil {
		return nil, fmt.Errorf("filesystem sink: %w", err)
	}
	key := st.loc.Key(rel)
	id, err := c.CreateUpload(ctx, st.loc.Bucket, key)
	if err != nil {
		return nil, fmt.Errorf("filesystem sink: %w", err)
	}
	return &s3Part{st: st, c: c, key: key, id: id, opened: now, buf: make([]byte, 0, 64<<10)}, nil
}

func (p *s3Part) write(ctx context.Context, b []byte) error {
	p.buf = append(p.buf, b...)
	p.n += int64(len(b))
	if len(p.buf) >= s3PartSize {
		return p.upload(ctx)
	}
	return nil
}

// upload uploads the buffer as the next part.
func (p *s3Part) upload(ctx context.Context) error {
	part, err := p.c.UploadPart(ctx, p.st.loc.Bucket, p.key, p.id, int32(len(p.parts)+1), p.buf)
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	p.parts = append(p.parts, part)
	p.buf = p.buf[:0]
	return nil
}

func (p *s3Part) size() int64         { return p.n }
func (p *s3Part) openedAt() time.Time { return p.opened }

func (p *s3Part) finish(ctx context.Context) (committable, error) {
	if len(p.buf) > 0 || len(p.parts) == 0 {
		if err := p.upload(ctx); err != nil {
			return committable{}, err
		}
	}
	return committable{Final: p.st.loc.URI(p.key), UploadID: p.id, Parts: p.parts}, nil
}

func (p *s3Part) discard() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.c.AbortUpload(ctx, p.st.loc.Bucket, p.key, p.id); err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	return nil
}

// object returns the bucket and key of an s3:// committable.
func object(cm committable) (string, string) {
	loc, _ := s3fs.ParseURI(cm.Final) // decode checked it
	return loc.Bucket, loc.Prefix
}

// complete completes a committable's upload. An upload that is gone was
// completed before when its object exists (a commit retried after a
// crash): that is success; when neither exists the work is lost.
func (s *Sink) complete(ctx context.Context, cm committable) error {
	c, err := s.st.c(ctx)
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	bucket, key := object(cm)
	err = c.CompleteUpload(ctx, bucket, key, cm.UploadID, cm.Parts)
	if !errors.Is(err, s3fs.ErrNoSuchUpload) {
		if err != nil {
			return fmt.Errorf("filesystem sink: committing %s: %w", cm.Final, err)
		}
		return nil
	}
	obj, herr := c.Head(ctx, bucket, key)
	switch {
	case herr == nil:
		var want int64
		for _, p := range cm.Parts {
			want += p.Size
		}
		if obj.Size != want {
			return fmt.Errorf("filesystem sink: %w: %s exists with %d bytes, but upload %s had %d", connector.ErrCommitLost, cm.Final, obj.Size, cm.UploadID, want)
		}
		return nil // completed before
	case errors.Is(herr, fs.ErrNotExist):
		return fmt.Errorf("filesystem sink: %w: neither the multipart upload %s nor the object %s exists (was the upload aborted, "+
			"say by a bucket lifecycle rule, before the commit?)", connector.ErrCommitLost, cm.UploadID, cm.Final)
	}
	return fmt.Errorf("filesystem sink: committing %s: %w", cm.Final, errors.Join(err, herr))
}

// abortUpload aborts a committable's upload.
func (s *Sink) abortUpload(ctx context.Context, cm committable) error {
	c, err := s.st.c(ctx)
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	bucket, key := object(cm)
	if err := c.AbortUpload(ctx, bucket, key, cm.UploadID); err != nil {
		return fmt.Errorf("filesystem sink: aborting %s: %w", cm.Final, err)
	}
	return nil
}

// abortLeftovers aborts every upload under the sink's prefix whose file
// is this sink's (its name has the tag) and that no pending committable
// owns: uploads of a run that died.
func (s *Sink) abortLeftovers(ctx context.Context, tag string, keep map[string]bool) error {
	c, err := s.st.c(ctx)
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	ups, err := c.ListUploads(ctx, s.st.loc.Bucket, s.st.loc.Dir())
	if err != nil {
		return fmt.Errorf("filesystem sink: aborting leftover uploads: %w", err)
	}
	prefix := "part-" + tag + "-"
	for _, u := range ups {
		if keep[u.ID] || !strings.HasPrefix(path.Base(u.Key), prefix) {
			continue
		}
		if err := c.AbortUpload(ctx, s.st.loc.Bucket, u.Key, u.ID); err != nil {
			return fmt.Errorf("filesystem sink: aborting leftover uploads: %w", err)
		}
	}
	return nil
}
