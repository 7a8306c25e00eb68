package lsm

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/state"
)

// List returns the list table called name: on disk, a map table (of the
// same name) from each key's distinct values to their number of copies (a
// uvarint), so the values of a key come in byte order, each as many times
// as it was appended. A list table has no TTL.
func (b *Backend) List(name string, opts ...state.TableOption) state.ListTable {
	var tc state.TableConfig
	for _, o := range opts {
		o(&tc)
	}
	if tc.TTL > 0 {
		return badList{fmt.Errorf("state table %q: a list table has no TTL", name)}
	}
	return &listTable{m: b.Map(name)}
}

var _ state.Lister = (*Backend)(nil)

// listTable is a list table over a map table of counts.
type listTable struct {
	m    state.MapTable
	buf  []byte
	subs [][]byte
}

func (l *listTable) Append(kg int, key, value []byte) error {
	old, ok, err := l.m.Get(kg, key, value)
	if err != nil {
		return err
	}
	n := uint64(1)
	if ok {
		c, k := binary.Uvarint(old)
		if k <= 0 {
			return fmt.Errorf("%w: a list value's count", state.ErrCorrupt)
		}
		n = c + 1
	}
	l.buf = binary.AppendUvarint(l.buf[:0], n)
	return l.m.Put(kg, key, value, l.buf)
}

func (l *listTable) RangeList(kg int, key []byte, fn func(value []byte) bool) error {
	var bad error
	err := l.m.RangeKey(kg, key, func(sub, value []byte) bool {
		c, k := binary.Uvarint(value)
		if k <= 0 {
			bad = fmt.Errorf("%w: a list value's count", state.ErrCorrupt)
			return false
		}
		for range c {
			if !fn(sub) {
				return false
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	return bad
}

func (l *listTable) DeleteIf(kg int, key []byte, drop func(value []byte) bool) error {
	l.subs = l.subs[:0]
	if err := l.m.RangeKey(kg, key, func(sub, _ []byte) bool {
		if drop(sub) {
			l.subs = append(l.subs, slices.Clone(sub))
		}
		return true
	}); err != nil {
		return err
	}
	for _, sub := range l.subs {
		if err := l.m.Delete(kg, key, sub); err != nil {
			return err
		}
	}
	return nil
}

func (l *listTable) DeleteKey(kg int, key []byte) error { return l.m.DeleteKey(kg, key) }

func (l *listTable) Keys(kg int, fn func(key []byte) bool) error { return l.m.Keys(kg, fn) }

type badList struct{ err error }

func (b badList) Append(int, []byte, []byte) error               { return b.err }
func (b badList) RangeList(int, []byte, func([]byte) bool) error { return b.err }
func (b badList) DeleteIf(int, []byte, func([]byte) bool) error  { return b.err }
func (b badList) DeleteKey(int, []byte) error                    { return b.err }
func (b badList) Keys(int, func([]byte) bool) error              { return b.err }
