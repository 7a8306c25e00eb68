package filesystem

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/internal/s3fs/s3client"
)

// store is where a table's files are: a local directory, or a bucket and
// key prefix of S3-compatible object storage (path = 's3://...'). The
// source lists and reads through it; the sink writes local files itself
// (sink.go) and object storage through multipart uploads (s3sink.go).
type store struct {
	dir string         // a local directory ("" for object storage)
	loc *s3fs.Location // object storage (nil for a local directory)
	s3  s3fs.Config

	once   sync.Once
	client *s3client.Client
	err    error
}

func newStore(cfg Config) *store {
	if !s3fs.IsURI(cfg.Path) {
		return &store{dir: cfg.Path}
	}
	loc, _ := s3fs.ParseURI(cfg.Path) // validated
	return &store{loc: &loc, s3: cfg.S3}
}

// c returns the S3 client, made at the first use (creating it reads the
// AWS configuration files, which describe need not).
func (st *store) c(ctx context.Context) (*s3client.Client, error) {
	st.once.Do(func() { st.client, st.err = s3client.New(ctx, st.s3) })
	return st.client, st.err
}

// String names the store in messages: the directory or the s3:// URI.
func (st *store) String() string {
	if st.loc != nil {
		return st.loc.String()
	}
	return st.dir
}

// list returns the files under the store that are not hidden (no path
// segment starting with "." or "_"), as slash-separated paths relative to
// it, in lexical order.
func (st *store) list(ctx context.Context) ([]string, error) {
	var out []string
	if st.loc != nil {
		c, err := st.c(ctx)
		if err != nil {
			return nil, err
		}
		objs, err := c.List(ctx, st.loc.Bucket, st.loc.Dir())
		if err != nil {
			return nil, err
		}
	next:
		for _, o := range objs {
			rel := strings.TrimPrefix(o.Key, st.loc.Dir())
			if rel == "" || strings.HasSuffix(rel, "/") {
				continue // a "folder" marker, no file
			}
			for seg := range strings.SplitSeq(rel, "/") {
				if seg == "" || hidden(seg) {
					continue next
				}
			}
			out = append(out, rel)
		}
		return out, nil
	}
	err := filepath.WalkDir(st.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != st.dir && hidden(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(st.dir, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// open opens file rel from byte offset off on. For object storage the
// read runs under ctx for as long as it lasts.
func (st *store) open(ctx context.Context, rel string, off int64) (io.ReadCloser, error) {
	if st.loc != nil {
		c, err := st.c(ctx)
		if err != nil {
			return nil, err
		}
		return c.Get(ctx, st.loc.Bucket, st.loc.Key(rel), off)
	}
	f, err := os.Open(filepath.Join(st.dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	return f, nil
}
