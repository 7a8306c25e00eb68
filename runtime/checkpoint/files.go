package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Files keeps named, immutable files of operator state (snapshots of keyed
// state, some shared by reference between successive checkpoints) under a
// job's checkpoint location, beside the checkpoints that reference them.
// Every Storage has them: [Dir] under <dir>/<job>/state/, [Memory] in
// memory.
//
// The contract, for writers and for implementations:
//
//   - Names are slash-separated relative paths ("op-3/run-ab12/000042.sst"):
//     segments of letters, digits and "._=-", none empty, none starting
//     with "." (ValidFileName). A name is unique: the caller makes it so
//     (a run id, a counter or a random part in it), and a file is written
//     once and never changed. Writing a name again replaces the file; that
//     is allowed only to retry a PutFile that failed, with the same
//     content.
//   - PutFile stores everything r yields under name and returns the byte
//     count. When it returns nil the file is durable: a crash of the
//     process (or of the machine, for Dir) after that cannot lose it, and
//     OpenFile and ListFiles of any process see it. A PutFile that fails
//     or is cancelled leaves no file under name (at most an invisible
//     temporary, which ListFiles never returns and the lock holder
//     deletes).
//   - All methods are safe for concurrent use, by several goroutines and
//     alongside the Storage's checkpoint methods: a state writer may run
//     PutFile on its own goroutine while the coordinator writes
//     checkpoints. Nothing orders the two: the checkpoint metadata that
//     references files (Storage.Write) must be written only after every
//     PutFile of those files has returned nil. That is the commit point of
//     a checkpoint with state, as for one without.
//   - OpenFile of a name that does not exist returns an error wrapping
//     fs.ErrNotExist.
//   - ListFiles returns the names that start with prefix (a plain string
//     prefix; "" lists all), sorted.
//   - DeleteFile of a name that does not exist succeeds.
//   - Lifetime: Prune and Remove delete checkpoint metadata only, never
//     state files; deleting the state files that no retained checkpoint
//     references is the caller's (reference counting over the retained
//     checkpoints, the fallback included). Clear deletes every state file
//     with every checkpoint.
type Files interface {
	// PutFile stores r's content durably under name and returns its size.
	PutFile(ctx context.Context, name string, r io.Reader) (int64, error)
	// OpenFile opens a stored file for reading; the caller closes it.
	OpenFile(ctx context.Context, name string) (io.ReadCloser, error)
	// ListFiles returns the stored names that start with prefix, sorted.
	ListFiles(ctx context.Context, prefix string) ([]string, error)
	// DeleteFile deletes a stored file; a missing one is no error.
	DeleteFile(ctx context.Context, name string) error
}

// StateDir is the folder of state files in a job's checkpoint folder (or
// the key prefix under a job's object-storage prefix).
const StateDir = "state"

// maxFileName bounds a state file's name: object stores limit keys to
// 1024 bytes, and the job's prefix comes first.
const maxFileName = 512

// ValidFileName reports an error when name cannot name a state file (see
// Files).
func ValidFileName(name string) error {
	if name == "" {
		return errors.New("state file name is empty")
	}
	if len(name) > maxFileName {
		return fmt.Errorf("state file name %.40q... is longer than %d bytes", name, maxFileName)
	}
	for seg := range strings.SplitSeq(name, "/") {
		if seg == "" {
			return fmt.Errorf("state file name %q has an empty segment (leading, trailing or double '/')", name)
		}
		if seg[0] == '.' {
			return fmt.Errorf("state file name %q has a segment starting with '.' (reserved for temporary files)", name)
		}
		for _, c := range []byte(seg) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '=' || c == '-') {
				return fmt.Errorf("state file name %q has the character %q; names take letters, digits and ._=- between slashes", name, c)
			}
		}
	}
	return nil
}

// statePath returns the local path of state file name.
func (d *Dir) statePath(name string) string {
	return filepath.Join(d.path, StateDir, filepath.FromSlash(name))
}

// PutFile implements Files: the content goes into a temporary file beside
// the final one, which is fsynced, renamed into place, and followed by an
// fsync of its folder (and of every folder it had to create, up to the
// job's folder).
func (d *Dir) PutFile(ctx context.Context, name string, r io.Reader) (int64, error) {
	if err := ValidFileName(name); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	final := d.statePath(name)
	n, err := d.putFile(ctx, final, r)
	if err != nil {
		return 0, d.gone(fmt.Errorf("write state file %s: %w", final, err))
	}
	return n, nil
}

func (d *Dir) putFile(ctx context.Context, final string, r io.Reader) (int64, error) {
	dir := filepath.Dir(final)
	if err := d.mkdirs(dir); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(final)+"-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := d.fault("write"); err != nil {
		tmp.Close()
		return 0, err
	}
	n, err := io.Copy(tmp, r)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		tmp.Close()
		return 0, err
	}
	if err := d.fault("fsync"); err != nil {
		tmp.Close()
		return 0, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("fsync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return 0, err
	}
	if err := SyncDir(dir); err != nil {
		return 0, fmt.Errorf("fsync directory: %w", err)
	}
	return n, nil
}

// mkdirs creates dir (under the job's folder) and fsyncs the parent of
// every folder it creates, so that the new entries are durable.
func (d *Dir) mkdirs(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if dir == d.path || !strings.HasPrefix(dir, d.path+string(filepath.Separator)) {
		return fmt.Errorf("state folder %s is outside %s", dir, d.path)
	}
	if err := d.mkdirs(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := SyncDir(filepath.Dir(dir)); err != nil {
		return fmt.Errorf("fsync directory: %w", err)
	}
	return nil
}

// OpenFile implements Files.
func (d *Dir) OpenFile(_ context.Context, name string) (io.ReadCloser, error) {
	if err := ValidFileName(name); err != nil {
		return nil, err
	}
	f, err := os.Open(d.statePath(name))
	if err != nil {
		return nil, fmt.Errorf("open state file: %w", err)
	}
	return f, nil
}

// ListFiles implements Files.
func (d *Dir) ListFiles(_ context.Context, prefix string) ([]string, error) {
	root := filepath.Join(d.path, StateDir)
	var out []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if p == root {
			return nil
		}
		if strings.HasPrefix(e.Name(), ".") {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if name := filepath.ToSlash(rel); strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
		return nil
	})
	if err != nil {
		return nil, d.gone(fmt.Errorf("list state files: %w", err))
	}
	slices.Sort(out)
	return out, nil
}

// DeleteFile implements Files. Folders it leaves empty stay (a later
// PutFile may use them; Clear removes them).
func (d *Dir) DeleteFile(_ context.Context, name string) error {
	if err := ValidFileName(name); err != nil {
		return err
	}
	if err := os.Remove(d.statePath(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete state file: %w", err)
	}
	return nil
}

// clearFiles deletes the job's state folder.
func (d *Dir) clearFiles() error {
	if err := os.RemoveAll(filepath.Join(d.path, StateDir)); err != nil {
		return fmt.Errorf("delete state files: %w", err)
	}
	return nil
}

// removeTemporaryFiles deletes temporary state files of writes that a
// crash interrupted.
func (d *Dir) removeTemporaryFiles() {
	_ = filepath.WalkDir(filepath.Join(d.path, StateDir), func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasPrefix(e.Name(), ".tmp-") {
			_ = os.Remove(p)
		}
		return nil
	})
}

// PutFile implements Files.
func (m *Memory) PutFile(ctx context.Context, name string, r io.Reader) (int64, error) {
	if err := ValidFileName(name); err != nil {
		return 0, err
	}
	data, err := io.ReadAll(r)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return 0, fmt.Errorf("write state file %s: %w", name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string][]byte{}
	}
	m.files[name] = data
	return int64(len(data)), nil
}

// OpenFile implements Files.
func (m *Memory) OpenFile(_ context.Context, name string) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	data, ok := m.files[name]
	if !ok {
		return nil, fmt.Errorf("open state file %s: %w", name, fs.ErrNotExist)
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// ListFiles implements Files.
func (m *Memory) ListFiles(_ context.Context, prefix string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for name := range m.files {
		if strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// DeleteFile implements Files.
func (m *Memory) DeleteFile(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, name)
	return nil
}
