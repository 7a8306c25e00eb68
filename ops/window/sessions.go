package window

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// sessionCacheLimit is the number of keys whose sessions the SESSION
// window aggregation keeps decoded in memory before it writes them all
// into the state.
const sessionCacheLimit = 1 << 10

// sessionCache keeps the sessions of recently seen keys decoded, in front
// of the "sessions" table: a row of a cached key merges into its sessions
// in memory (no state read or write, no decoding), and a cached key's
// sessions are written back (its entries in the table replaced) at a
// checkpoint barrier or when the cache is full. For a cached key the cache
// is what holds; the table's entries of it are stale until written back.
// It is an open-addressing hash table with linear probing, emptied whole.
type sessionCache struct {
	slots []sessionKey // a power of two, twice sessionCacheLimit
	used  []int32      // the slots in use
	proto *agg.Accumulators
	free  []*agg.Accumulators
}

// sessionKey is one key's sessions, by start (in the table's byte order of
// starts).
type sessionKey struct {
	hash     uint64
	kg       int
	key      []byte
	sessions []cachedSession
	used     bool
	dirty    bool // the sessions differ from the table's
}

type cachedSession struct {
	start, end int64
	acc        *agg.Accumulators
}

func newSessionCache(proto *agg.Accumulators) *sessionCache {
	return &sessionCache{slots: make([]sessionKey, 2*sessionCacheLimit), proto: proto}
}

func (c *sessionCache) full() bool { return len(c.used) >= sessionCacheLimit }

// lookup returns key's entry, whose key hashes to h, and whether it was
// there; a new entry (the cache must not be full) has no sessions yet.
func (c *sessionCache) lookup(h uint64, kg int, key []byte) (*sessionKey, bool) {
	mask := uint64(len(c.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := &c.slots[i]
		if !e.used {
			e.hash, e.kg, e.key, e.used, e.dirty = h, kg, append(e.key[:0], key...), true, false
			e.sessions = e.sessions[:0]
			c.used = append(c.used, int32(i))
			return e, false
		}
		if e.hash == h && string(e.key) == string(key) {
			return e, true
		}
	}
}

// find returns key's entry if it is cached.
func (c *sessionCache) find(h uint64, key []byte) *sessionKey {
	mask := uint64(len(c.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := &c.slots[i]
		if !e.used {
			return nil
		}
		if e.hash == h && string(e.key) == string(key) {
			return e
		}
	}
}

func (c *sessionCache) newAcc() *agg.Accumulators {
	if n := len(c.free); n > 0 {
		a := c.free[n-1]
		c.free = c.free[:n-1]
		a.Reset()
		return a
	}
	return c.proto.Owned()
}

func (c *sessionCache) release(a *agg.Accumulators) { c.free = append(c.free, a) }

// sessionCached adds row r (time t) to the sessions of its key (hash h) in
// the cache, merging those it bridges, as session does in the state.
func (w *windowAgg) sessionCached(kg int, h uint64, r *types.Row, t int64) error {
	start, end := t, t+w.gap
	if w.fired(end) {
		w.ctx.Metrics.LateRows.Add(1)
		return nil
	}
	c := w.cache
	if c.full() && c.find(h, w.key) == nil {
		if err := w.writeSessions(); err != nil {
			return err
		}
	}
	e, ok := c.lookup(h, kg, w.key)
	if !ok {
		if err := w.loadSessions(e); err != nil {
			return err
		}
	}
	acc := c.newAcc()
	if err := acc.Apply(r.Fields, false, nil); err != nil {
		return fmt.Errorf("window aggregate: %w", err)
	}
	// The sessions it overlaps or touches merge into one, in the order of
	// their starts (the table's).
	merged := w.merged[:0]
	kept := e.sessions[:0]
	for _, m := range e.sessions {
		if m.start <= end && m.end >= start {
			merged = append(merged, m)
		} else {
			kept = append(kept, m)
		}
	}
	for _, m := range merged {
		// The earlier session's rows came first.
		if m.start < start {
			if err := m.acc.Merge(acc); err != nil {
				return err
			}
			c.release(acc)
			acc = m.acc
		} else {
			if err := acc.Merge(m.acc); err != nil {
				return err
			}
			c.release(m.acc)
		}
		start, end = min(start, m.start), max(end, m.end)
	}
	scheduled := false
	for _, m := range merged {
		if m.start == start {
			scheduled = true // its timer finds the session under this start
		}
	}
	w.merged = merged
	e.sessions = insertSession(kept, cachedSession{start: start, end: end, acc: acc})
	e.dirty = true
	if !scheduled {
		heap.Push(&w.timers, sessionTimer{end: end, start: start, kg: kg, key: string(w.key)})
	}
	return nil
}

// insertSession inserts s into sessions, ordered by start as the table's
// byte order of starts orders them.
func insertSession(sessions []cachedSession, s cachedSession) []cachedSession {
	i, _ := slices.BinarySearchFunc(sessions, s.start, func(a cachedSession, start int64) int {
		return cmp.Compare(uint64(a.start), uint64(start))
	})
	return slices.Insert(sessions, i, s)
}

// loadSessions reads e's key's sessions from the table into e.
func (w *windowAgg) loadSessions(e *sessionKey) error {
	var ferr error
	err := w.sessions.RangeKey(e.kg, e.key, func(sub, val []byte) bool {
		if len(sub) != 8 || len(val) < 8 {
			ferr = fmt.Errorf("window aggregate: key group %d: a session of %d and %d bytes", e.kg, len(sub), len(val))
			return false
		}
		acc := w.cache.newAcc()
		if ferr = acc.Read(val[8:]); ferr != nil {
			ferr = fmt.Errorf("window aggregate: key group %d: %w", e.kg, ferr)
			return false
		}
		e.sessions = append(e.sessions, cachedSession{start: int64(binary.BigEndian.Uint64(sub)), end: int64(binary.BigEndian.Uint64(val)), acc: acc})
		return true
	})
	if err == nil {
		err = ferr
	}
	return err
}

// writeSessions writes the cached keys whose sessions changed into the
// table, and empties the cache.
func (w *windowAgg) writeSessions() error {
	c := w.cache
	if c == nil {
		return nil
	}
	for _, i := range c.used {
		e := &c.slots[i]
		if e.dirty {
			if err := w.sessions.DeleteKey(e.kg, e.key); err != nil {
				return err
			}
			for _, m := range e.sessions {
				w.enc = binary.BigEndian.AppendUint64(w.enc[:0], uint64(m.end))
				w.enc = m.acc.Append(w.enc)
				w.k8 = binary.BigEndian.AppendUint64(w.k8[:0], uint64(m.start))
				if err := w.sessions.Put(e.kg, e.key, w.k8, w.enc); err != nil {
					return err
				}
			}
		}
		for _, m := range e.sessions {
			c.release(m.acc)
		}
		clear(e.sessions)
		e.sessions, e.used, e.dirty = e.sessions[:0], false, false
	}
	c.used = c.used[:0]
	return nil
}

// fireCached handles the timer tm of a cached key's session (entry e): it
// emits and drops the session if it ends at tm.end, schedules it again if
// it grew, and skips it if it was merged into another.
func (w *windowAgg) fireCached(e *sessionKey, tm sessionTimer, out *stream.Output) error {
	for i, m := range e.sessions {
		if m.start != tm.start {
			continue
		}
		if m.end != tm.end {
			tm.end = m.end // it grew: wait for its new end
			heap.Push(&w.timers, tm)
			return nil
		}
		if err := w.emit(out, e.key, m.acc, m.start, m.end); err != nil {
			return err
		}
		w.cache.release(m.acc)
		e.sessions = slices.Delete(e.sessions, i, i+1)
		e.dirty = true
		return nil
	}
	return nil // merged into a session of another start
}
