package filesystem

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/internal/s3fs"
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
	client s3fs.Client
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
func (st *store) c(ctx context.Context) (s3fs.Client, error) {
	st.once.Do(func() { st.client, st.err = s3fs.NewClient(ctx, st.s3) })
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

// readSmall returns the content of file rel (a small file the sink keeps,
// such as its partition commit state); an error wrapping fs.ErrNotExist
// when there is none.
func (st *store) readSmall(ctx context.Context, rel string) ([]byte, error) {
	if st.loc != nil {
		c, err := st.c(ctx)
		if err != nil {
			return nil, err
		}
		b, _, err := c.GetAll(ctx, st.loc.Bucket, st.loc.Key(rel))
		return b, err
	}
	return os.ReadFile(filepath.Join(st.dir, filepath.FromSlash(rel)))
}

// writeAtomic replaces file rel with data, so that a reader (or a crash)
// sees the old content or the new, never a mix: locally a hidden temporary
// file, fsynced, renamed over it, and the directory fsynced; an object is
// replaced whole by one put.
func (st *store) writeAtomic(ctx context.Context, rel string, data []byte) error {
	if st.loc != nil {
		c, err := st.c(ctx)
		if err != nil {
			return err
		}
		_, err = c.Put(ctx, st.loc.Bucket, st.loc.Key(rel), data, s3fs.Cond{})
		return err
	}
	full := filepath.Join(st.dir, filepath.FromSlash(rel))
	dir := filepath.Dir(full)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+filepath.Base(full)+".tmp")
	if err := writeSynced(tmp, data); err != nil {
		return err
	}
	if err := os.Rename(tmp, full); err != nil {
		return err
	}
	return syncDir(dir)
}

// writeSuccessFile writes an empty file named name into partition
// directory dir (relative to the store), replacing one that is there, and
// makes it durable.
func (st *store) writeSuccessFile(ctx context.Context, dir, name string) error {
	rel := path.Join(dir, name)
	if st.loc != nil {
		c, err := st.c(ctx)
		if err != nil {
			return err
		}
		_, err = c.Put(ctx, st.loc.Bucket, st.loc.Key(rel), nil, s3fs.Cond{})
		return err
	}
	full := filepath.Join(st.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	if err := writeSynced(full, nil); err != nil {
		return err
	}
	return syncDir(filepath.Dir(full))
}

// writeSynced creates or truncates file p, writes data and fsyncs it.
func writeSynced(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
