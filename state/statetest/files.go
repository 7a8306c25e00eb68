package statetest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"
)

// MemFiles is an in-memory state.Files for tests: write-once named files,
// with hooks to make writes fail and helpers to damage or delete files.
// It is safe for concurrent use.
type MemFiles struct {
	mu    sync.Mutex
	files map[string][]byte
	// FailPut, when set, is called before each PutFile; an error it
	// returns fails the write (after reading part of the content, as a
	// storage that fails midway does).
	FailPut func(name string) error
	puts    int
}

// NewMemFiles returns an empty MemFiles.
func NewMemFiles() *MemFiles { return &MemFiles{files: map[string][]byte{}} }

// PutFile stores r's content under name; a name is written once.
func (m *MemFiles) PutFile(ctx context.Context, name string, r io.Reader) (int64, error) {
	m.mu.Lock()
	fail := m.FailPut
	_, dup := m.files[name]
	m.mu.Unlock()
	if dup {
		return 0, fmt.Errorf("state file %s: written twice", name)
	}
	if fail != nil {
		if err := fail(name); err != nil {
			_, _ = io.CopyN(io.Discard, r, 100)
			return 0, err
		}
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, ctxReader{ctx, r}); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.files[name]; dup {
		return 0, fmt.Errorf("state file %s: written twice", name)
	}
	m.files[name] = buf.Bytes()
	m.puts++
	return int64(buf.Len()), nil
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// OpenFile opens a file PutFile wrote.
func (m *MemFiles) OpenFile(ctx context.Context, name string) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[name]
	if !ok {
		return nil, fmt.Errorf("state file %s: %w", name, fs.ErrNotExist)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// Names returns the names of the stored files, sorted.
func (m *MemFiles) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.files))
	for n := range m.files {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Puts returns how many files were written.
func (m *MemFiles) Puts() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.puts
}

// Size returns the total size of the stored files.
func (m *MemFiles) Size() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for _, b := range m.files {
		n += int64(len(b))
	}
	return n
}

// Bytes returns a copy of a file's content (nil when there is none).
func (m *MemFiles) Bytes(name string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return bytes.Clone(m.files[name])
}

// Replace replaces a file's content (to damage it).
func (m *MemFiles) Replace(name string, content []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[name] = bytes.Clone(content)
}

// Delete removes a file (as a prune does).
func (m *MemFiles) Delete(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, name)
}
