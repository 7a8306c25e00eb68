package lsm

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/streamsql/streamsql/state"
)

// format is the version of the handles' layout (meta, catalog, keys).
const format = 1

// meta is a Handle's Meta: Local[i] is the name in the database folder of
// the file Handle.Files[i].
type meta struct {
	Format         int      `json:"format"`
	Codec          int      `json:"codec"`
	MaxParallelism int      `json:"max_parallelism"`
	Local          []string `json:"local"`
}

type snapshot struct {
	b    *Backend
	id   int64
	dir  string
	kgs  state.KeyGroupRange
	maxP int
	once sync.Once
}

// Snapshot records the entry counts and checkpoints the database into a
// folder of Config.Dir (hard links to its SSTs, synced copies of the rest).
func (b *Backend) Snapshot(id int64) (state.Snapshot, error) {
	if b.closed {
		return nil, fmt.Errorf("pebble state of %s: snapshot of a closed backend", operator(b.cfg))
	}
	batch := b.db.NewBatch()
	defer batch.Close()
	if b.saved == nil {
		b.saved = make([]int64, len(b.counts))
		for i := range b.saved {
			b.saved[i] = -1
		}
	}
	for i, n := range b.counts {
		if b.saved[i] == n {
			continue // unchanged since the last snapshot
		}
		b.saved[i] = n
		kg := b.kgs.Start + i
		if err := batch.Set(append(bytes.Clone(catalogCount), byte(kg>>8), byte(kg)), binary.AppendUvarint(nil, uint64(n)), nil); err != nil {
			return nil, err
		}
	}
	if err := batch.Commit(pebble.NoSync); err != nil {
		return nil, fmt.Errorf("pebble state of %s: %w", operator(b.cfg), err)
	}
	// The database has no write-ahead log (a crashed task's database is
	// never reused: a restore starts from a checkpoint): flush the
	// memtable, so that the checkpoint is SSTs only, and what was written
	// since the last checkpoint is a new SST, uploaded once.
	if err := b.db.Flush(); err != nil {
		return nil, fmt.Errorf("pebble state of %s: checkpoint %d: %w", operator(b.cfg), id, err)
	}
	b.snapSeq++
	dir := filepath.Join(b.cfg.Dir, fmt.Sprintf("checkpoint-%d-%d", id, b.snapSeq))
	if err := b.db.Checkpoint(dir); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pebble state of %s: checkpoint %d: %w", operator(b.cfg), id, err)
	}
	return &snapshot{b: b, id: id, dir: dir, kgs: b.kgs, maxP: b.cfg.MaxParallelism}, nil
}

// Release deletes the local checkpoint.
func (s *snapshot) Release() {
	s.once.Do(func() { os.RemoveAll(s.dir) })
}

// Write uploads the checkpoint's files that no earlier successful Write of
// the backend uploaded (SSTs are immutable and never renamed: one uploaded
// before is referenced where it is) and returns a handle listing every
// file the checkpoint needs.
func (s *snapshot) Write(ctx context.Context, files state.Files, prefix string) (state.Handle, error) {
	b := s.b
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return state.Handle{}, fmt.Errorf("pebble state of %s: %w", operator(b.cfg), err)
	}
	b.upMu.Lock()
	prev := b.uploaded // replaced, never changed: safe to read unlocked
	b.upMu.Unlock()
	up := map[string]state.FileRef{}
	m := meta{Format: format, Codec: state.CodecVersion, MaxParallelism: s.maxP}
	var refs []state.FileRef
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() {
			return state.Handle{}, fmt.Errorf("pebble state of %s: unexpected %s in the checkpoint", operator(b.cfg), name)
		}
		info, err := e.Info()
		if err != nil {
			return state.Handle{}, err
		}
		sst := strings.HasSuffix(name, ".sst")
		ref, ok := prev[name]
		if !sst || !ok || ref.Size != info.Size() {
			if ref, err = upload(ctx, files, filepath.Join(s.dir, name), prefix+name, info.Size()); err != nil {
				return state.Handle{}, fmt.Errorf("writing pebble state of %s: %w", operator(b.cfg), err)
			}
		}
		if sst {
			up[name] = ref
		}
		refs = append(refs, ref)
		m.Local = append(m.Local, name)
	}
	b.upMu.Lock()
	b.uploaded = up // SSTs gone from this checkpoint never come back
	b.upMu.Unlock()
	mj, err := json.Marshal(m)
	if err != nil {
		return state.Handle{}, err
	}
	return state.Handle{Kind: Name, KeyGroups: s.kgs, Files: refs, Meta: mj}, nil
}

func upload(ctx context.Context, files state.Files, path, name string, size int64) (state.FileRef, error) {
	f, err := os.Open(path)
	if err != nil {
		return state.FileRef{}, err
	}
	defer f.Close()
	n, err := files.PutFile(ctx, name, f)
	if err != nil {
		return state.FileRef{}, fmt.Errorf("%s: %w", name, err)
	}
	if n != size {
		return state.FileRef{}, fmt.Errorf("%s: stored %d bytes of %d", name, n, size)
	}
	return state.FileRef{Name: name, Size: n}, nil
}

func parseMeta(h state.Handle) (meta, error) {
	var m meta
	if err := json.Unmarshal(h.Meta, &m); err != nil {
		return m, fmt.Errorf("%w: pebble handle meta: %v", state.ErrCorrupt, err)
	}
	if m.Format != format {
		return m, fmt.Errorf("pebble state format %d is not known to this version (it reads %d)", m.Format, format)
	}
	if m.Codec > state.CodecVersion {
		return m, fmt.Errorf("state codec version %d is newer than this version's %d", m.Codec, state.CodecVersion)
	}
	if len(m.Local) != len(h.Files) {
		return m, fmt.Errorf("%w: pebble handle lists %d files and %d local names", state.ErrCorrupt, len(h.Files), len(m.Local))
	}
	for _, n := range m.Local {
		if n == "" || n != filepath.Base(n) || n == "." || n == ".." {
			return m, fmt.Errorf("%w: pebble handle's local file name %q", state.ErrCorrupt, n)
		}
	}
	return m, nil
}

// download fetches a handle's files into dir.
func (b *Backend) download(ctx context.Context, h state.Handle, m meta, dir string) error {
	if b.cfg.Files == nil {
		return errors.New("no state files to restore from (Config.Files is nil)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, f := range h.Files {
		if err := fetch(ctx, b.cfg.Files, f, filepath.Join(dir, m.Local[i])); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return nil
}

func fetch(ctx context.Context, files state.Files, f state.FileRef, path string) error {
	rc, err := files.OpenFile(ctx, f.Name)
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, rc)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n != f.Size {
		return fmt.Errorf("%w: read %d bytes, the handle says %d", state.ErrCorrupt, n, f.Size)
	}
	return nil
}

func kgKey(kg int) []byte { return []byte{byte(kg >> 8), byte(kg)} }

// restore opens the task's database: empty, or from the handles.
func (b *Backend) restore(ctx context.Context, handles []state.Handle) error {
	var use []state.Handle
	var metas []meta
	for _, h := range handles {
		if h.Kind != Name {
			return fmt.Errorf("the checkpoint holds state of the %q backend, not of %q: restore it with state.backend.type = '%s'", h.Kind, Name, h.Kind)
		}
		if h.KeyGroups.Intersect(b.kgs).Len() == 0 {
			continue
		}
		m, err := parseMeta(h)
		if err != nil {
			return err
		}
		if mp := b.cfg.MaxParallelism; mp > 0 && m.MaxParallelism > 0 && m.MaxParallelism != mp {
			return fmt.Errorf("the state was written with %d key groups (pipeline.max-parallelism), the job has %d", m.MaxParallelism, mp)
		}
		use = append(use, h)
		metas = append(metas, m)
	}
	if len(use) == 0 {
		return b.openMain()
	}
	// The handle with most of the task's key groups becomes the database.
	base := 0
	for i, h := range use {
		if h.KeyGroups.Intersect(b.kgs).Len() > use[base].KeyGroups.Intersect(b.kgs).Len() {
			base = i
		}
	}
	if err := b.download(ctx, use[base], metas[base], b.dbDir); err != nil {
		return err
	}
	if err := b.openMain(); err != nil {
		return err
	}
	tables, counts, err := loadCatalog(b.db)
	if err != nil {
		return err
	}
	for id, ce := range tables {
		b.tables[ce.name] = &table{b: b, name: ce.name, id: id, isMap: ce.isMap}
		b.nextID = max(b.nextID, id+1)
	}
	// Drop the base's key groups the task does not own, and their counts.
	bk := use[base].KeyGroups
	for _, r := range []state.KeyGroupRange{{Start: bk.Start, End: min(bk.End, b.kgs.Start)}, {Start: max(bk.Start, b.kgs.End), End: bk.End}} {
		if r.Len() == 0 {
			continue
		}
		if err := b.db.DeleteRange(kgKey(r.Start), kgKey(r.End), pebble.NoSync); err != nil {
			return err
		}
		cs := append(bytes.Clone(catalogCount), kgKey(r.Start)...)
		ce := append(bytes.Clone(catalogCount), kgKey(r.End)...)
		if err := b.db.DeleteRange(cs, ce, pebble.NoSync); err != nil {
			return err
		}
	}
	b.setCounts(use[base].KeyGroups, counts)
	for i, name := range metas[base].Local {
		if strings.HasSuffix(name, ".sst") {
			b.uploaded[name] = use[base].Files[i]
		}
	}
	for i, h := range use {
		if i == base {
			continue
		}
		if err := b.copyFrom(ctx, h, metas[i], filepath.Join(b.cfg.Dir, fmt.Sprintf("restore-%d", i))); err != nil {
			return err
		}
	}
	var total int64
	for _, n := range b.counts {
		total += n
	}
	b.entries.Store(total)
	return nil
}

// setCounts takes the entry counts of the key groups of r the task owns.
func (b *Backend) setCounts(r state.KeyGroupRange, counts map[int]int64) {
	r = r.Intersect(b.kgs)
	for kg := r.Start; kg < r.End; kg++ {
		b.counts[kg-b.kgs.Start] = counts[kg]
	}
}

// copyFrom copies the task's key groups of handle h into the database.
func (b *Backend) copyFrom(ctx context.Context, h state.Handle, m meta, dir string) (err error) {
	defer os.RemoveAll(dir)
	if err := b.download(ctx, h, m, dir); err != nil {
		return err
	}
	src, err := b.openTemp(dir)
	if err != nil {
		return err
	}
	defer src.Close()
	tables, counts, err := loadCatalog(src)
	if err != nil {
		return err
	}
	ids := map[uint16]uint16{} // source table id → ours
	for id, ce := range tables {
		t := b.tables[ce.name]
		if t == nil {
			if t, err = b.createTable(ce.name, ce.isMap); err != nil {
				return err
			}
		} else if t.isMap != ce.isMap {
			return fmt.Errorf("%w: table %q is a map table in one handle and a value table in another", state.ErrCorrupt, ce.name)
		}
		ids[id] = t.id
	}
	r := h.KeyGroups.Intersect(b.kgs)
	it, err := src.NewIter(&pebble.IterOptions{LowerBound: kgKey(r.Start), UpperBound: kgKey(r.End)})
	if err != nil {
		return err
	}
	defer it.Close()
	batch := b.db.NewBatch()
	defer func() { batch.Close() }()
	var key []byte
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) < 4 {
			return fmt.Errorf("%w: key %x", state.ErrCorrupt, k)
		}
		id, found := ids[uint16(k[2])<<8|uint16(k[3])]
		if !found {
			return fmt.Errorf("%w: key %x of no table", state.ErrCorrupt, k)
		}
		key = append(append(append(key[:0], k[:2]...), byte(id>>8), byte(id)), k[4:]...)
		if err := batch.Set(key, it.Value(), nil); err != nil {
			return err
		}
		if batch.Len() >= 4<<20 {
			if err := batch.Commit(pebble.NoSync); err != nil {
				return err
			}
			batch.Close()
			batch = b.db.NewBatch()
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	if err := batch.Commit(pebble.NoSync); err != nil {
		return err
	}
	b.setCounts(h.KeyGroups, counts)
	return nil
}
