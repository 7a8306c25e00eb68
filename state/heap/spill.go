package heap

import (
	"errors"
	"fmt"
	"math"
	"os"
)

// A list table's sealed chunks (full, never rewritten: pack.go) move to a
// working file once the backend's state takes more memory than
// state.Config.SpillThreshold, as Flink's proposed spillable heap backend
// does: the index, the heads and the prev links stay in memory as they
// are (offsets are those of the chunk's records), and a spilled chunk is
// read back through the table's cache of unpacked chunks (lcache) when a
// probe, a DeleteIf or a compaction walks through it, and by a snapshot's
// writer into its own buffer. The file is the backend's own (one per
// task), in state.Config.Dir; it is never part of a checkpoint: a
// snapshot reads the spilled chunks and writes their records in the same
// format as chunks in memory, and a restore appends them again (spilling
// or not, as the restoring backend's threshold says). It is removed as
// soon as it is created (the open file lives on until Close), so that a
// killed process leaves none of it behind.
//
// A chunk is spilled raw (not Huffman-coded, even when
// state.Config.CompressLists packs chunks below the threshold): spilled
// bytes cost no memory whatever their size, and a read back from the
// page cache is a copy, not a decode. Every chunk takes a slot of
// chunkSize bytes in the file; a compaction frees the slots of the chunks
// it drops, and a slot is written again once no unreleased snapshot may
// still read it (one cut before the free). A table whose reads keep
// missing the cache stops spilling as it stops packing (maxMisses).
//
// The memory count (Stats.Bytes, the memory limit) is of what is in
// memory: a spilled chunk counts nothing (its lchunk only).

// spill is a backend's working file for its list tables' sealed chunks.
// Only the task's goroutine uses it, except for the file's ReadAt, which
// a snapshot's writer calls too (with the file it had at the cut).
type spill struct {
	b         *Backend
	dir       string
	threshold int64 // 0 (or no dir): never spill
	f         *os.File
	end       int64   // the file's length: slots are at multiples of chunkSize below it
	free      []int64 // slots that can be written again
	pending   []freedSlot
	used      int64 // slots holding a chunk
	freed     int64 // slots freed, ever
}

// freedSlot is a slot freed while the backend's epoch was epoch: a
// snapshot cut before (epoch below it) may still read it.
type freedSlot struct {
	at    int64
	epoch uint64
}

// wants reports whether a chunk sealed now goes to the file.
func (s *spill) wants() bool {
	return s.threshold > 0 && s.dir != "" && s.b.bytes.Load() > s.threshold
}

// write writes the sealed chunk ch to a free slot of the file and returns
// its offset.
func (s *spill) write(ch []byte) (int64, error) {
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, "lists-*.spill")
		if err != nil {
			return 0, fmt.Errorf("creating the file its full list chunks spill to: %w", err)
		}
		// The file is unlinked at once and lives on through f: a
		// process killed by SIGKILL leaves no spilled chunks on disk
		// (where a system cannot remove an open file, Close does).
		_ = os.Remove(f.Name())
		s.f = f
	}
	at := s.slot()
	if _, err := s.f.WriteAt(ch, at); err != nil {
		s.free = append(s.free, at)
		return 0, fmt.Errorf("writing a full list chunk to %s: %w", s.f.Name(), err)
	}
	s.used++
	return at, nil
}

func (s *spill) slot() int64 {
	if len(s.free) == 0 && len(s.pending) > 0 {
		s.reclaim()
	}
	if n := len(s.free); n > 0 {
		at := s.free[n-1]
		s.free = s.free[:n-1]
		return at
	}
	at := s.end
	s.end += chunkSize
	return at
}

// reclaim makes the freed slots no unreleased snapshot can read free.
func (s *spill) reclaim() {
	low := uint64(math.MaxUint64) // the epoch of the oldest unreleased snapshot
	s.b.mu.Lock()
	for _, e := range s.b.snaps {
		low = min(low, e)
	}
	s.b.mu.Unlock()
	keep := s.pending[:0]
	for _, p := range s.pending {
		if p.epoch <= low {
			s.free = append(s.free, p.at)
		} else {
			keep = append(keep, p)
		}
	}
	s.pending = keep
}

// release frees the slots of the spilled chunks among chs, which the
// task's state no longer holds.
func (s *spill) release(chs []lchunk) {
	for i := range chs {
		if at := chs[i].at; at != 0 {
			s.pending = append(s.pending, freedSlot{at: at - 1, epoch: s.b.epoch})
			s.used--
			s.freed++
		}
	}
}

// read reads the spilled chunk ch into dst[:ch.raw] from f.
func readSpilled(f *os.File, ch *lchunk, dst []byte) error {
	if f == nil {
		return errors.New("a spilled list chunk without a spill file")
	}
	if _, err := f.ReadAt(dst[:ch.raw], ch.at-1); err != nil {
		return fmt.Errorf("reading a spilled list chunk from %s: %w", f.Name(), err)
	}
	return nil
}

// close closes and removes the file.
func (s *spill) close() error {
	if s.f == nil {
		return nil
	}
	name := s.f.Name()
	err := s.f.Close()
	s.f = nil
	if rerr := os.Remove(name); err == nil && rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("closing the list spill file: %w", err)
	}
	return nil
}
