package join

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// How a regular join's side without a unique key stores its rows (each
// distinct row is the sub-key of its entry, under the join key):
//
//   - The compact format (table "left/2", "right/2"), for a side whose
//     columns are all of types whose value encoding is canonical (integers,
//     booleans, dates and times, timestamps, strings and binary strings:
//     equal values encode to equal bytes): the row's value encoding
//     (state.AppendRow: a NULL bitmap, varints, length-prefixed strings)
//     of every column but the join-key columns, which the entry's key
//     already holds. A probe decodes those from the key once and the
//     others from the row. A Nexmark bid takes about 12 bytes less than in
//     the key encoding (~148 instead of ~160).
//   - Otherwise (a FLOAT, DOUBLE, DECIMAL or nested column, whose equal
//     values may differ in their value encoding: -0.0 and 0.0, 1.0 and
//     1.00) the key encoding of every column (state.AppendKey), canonical
//     for every type, in table "left" or "right" as before.
//
// State of the key-encoded format written by an older version for a side
// that now uses the compact one is converted when the operator opens
// (migrate), so that older checkpoints restore.

// compactTable is the table name of a side's rows in the compact format.
func compactTable(name string) string { return name + "/2" }

// compactKinds are the kinds whose value encoding is canonical.
func compactKind(k types.Kind) bool {
	switch k {
	case types.KindBoolean, types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindDate, types.KindTime, types.KindIntervalYearMonth, types.KindIntervalDayTime,
		types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary,
		types.KindTimestamp, types.KindTimestampLTZ:
		return true
	}
	return false
}

// fromKey reports whether a column of type col that is join-key column of
// type key decodes from the key's encoding to the value the row held: the
// same kind (and length of a CHAR, precision of a timestamp).
func fromKey(col, key types.Type) bool {
	if col.Kind != key.Kind || !compactKind(col.Kind) {
		return false
	}
	switch col.Kind {
	case types.KindChar, types.KindBinary:
		return col.Length == key.Length
	case types.KindTimestamp, types.KindTimestampLTZ, types.KindTime:
		return col.Precision == key.Precision
	}
	return true
}

// keyCol is a column of a compact row that comes from join-key column i.
type keyCol struct{ col, i int }

// compactLayout sets up v's compact format for side sd with the join's
// key types, and reports whether the side can use it.
func (v *view) compactLayout(sd *Side, keyTypes []types.Type) bool {
	for _, t := range sd.Types {
		if !compactKind(t.Kind) {
			return false
		}
	}
	v.compact = true
	for c, t := range sd.Types {
		if i := slices.Index(sd.Keys, c); i >= 0 && fromKey(t, keyTypes[i]) {
			v.fromKey = append(v.fromKey, keyCol{col: c, i: i})
			continue
		}
		v.stored = append(v.stored, c)
		v.storedTs = append(v.storedTs, t)
	}
	return true
}

// appendSub appends the sub-key of row in v: its compact or key encoding.
func (r *regular) appendSub(dst []byte, v *view, row []types.Value) []byte {
	if !v.compact {
		return state.AppendKey(dst, row, v.sub, v.subTs)
	}
	r.scratch = r.scratch[:0]
	for _, c := range v.stored {
		r.scratch = append(r.scratch, row[c])
	}
	return state.AppendRow(dst, r.scratch, v.storedTs)
}

// readSub appends to r.vals the row of v whose sub-key is sub, under the
// join key r.key.
func (r *regular) readSub(v *view, sub []byte) error {
	if !v.compact {
		var err error
		r.vals, _, err = r.rr.ReadKey(sub, v.side.Types, r.vals)
		return err
	}
	if len(v.fromKey) > 0 && !r.keyRead {
		var err error
		r.keyVals, _, err = r.rr.ReadKey(r.key, r.spec.KeyTypes, r.keyVals[:0])
		if err != nil {
			return err
		}
		r.keyRead = true
	}
	var err error
	var rest []byte
	r.scratch, rest, err = r.rr.ReadRow(sub, v.storedTs, r.scratch[:0])
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: %d bytes after a join row", state.ErrCorrupt, len(rest))
	}
	start := len(r.vals)
	r.vals = slices.Grow(r.vals, len(v.side.Types))[:start+len(v.side.Types)]
	row := r.vals[start:]
	for j, c := range v.stored {
		row[c] = r.scratch[j]
	}
	for _, k := range v.fromKey {
		row[k.col] = r.keyVals[k.i]
	}
	return nil
}

// migrate moves the rows of v's side that an older version kept in the
// key encoding (table name, restored from an older checkpoint) into v's
// compact table, for the key groups kgs.
func (r *regular) migrate(v *view, old state.MapTable, kgs state.KeyGroupRange) error {
	return r.drainOld(v, old, kgs, true, func(kg int, key, sub, val []byte) error {
		return v.table.Put(kg, key, sub, val)
	})
}

// drainOld hands put every entry of old in the key groups kgs — its
// sub-key converted from the key encoding into v's compact one when
// convert — and deletes each key once its entries are put: the move of an
// older checkpoint's rows into v's table or list.
func (r *regular) drainOld(v *view, old state.MapTable, kgs state.KeyGroupRange, convert bool, put func(kg int, key, sub, val []byte) error) error {
	var keys [][]byte
	type entry struct{ sub, val []byte }
	var entries []entry
	for kg := kgs.Start; kg < kgs.End; kg++ {
		keys = keys[:0]
		if err := old.Keys(kg, func(key []byte) bool {
			keys = append(keys, slices.Clone(key))
			return true
		}); err != nil {
			return err
		}
		for _, key := range keys {
			entries = entries[:0]
			if err := old.RangeKey(kg, key, func(sub, val []byte) bool {
				entries = append(entries, entry{slices.Clone(sub), slices.Clone(val)})
				return true
			}); err != nil {
				return err
			}
			for _, e := range entries {
				sub := e.sub
				if convert {
					row, rest, err := state.ReadKey(e.sub, v.side.Types, nil)
					if err != nil {
						return fmt.Errorf("key group %d: %w", kg, err)
					}
					if len(rest) != 0 {
						return fmt.Errorf("key group %d: %w: %d bytes after a join row", kg, state.ErrCorrupt, len(rest))
					}
					sub = r.appendSub(nil, v, row)
				}
				if err := put(kg, key, sub, e.val); err != nil {
					return err
				}
			}
			if err := old.DeleteKey(kg, key); err != nil {
				return err
			}
		}
	}
	return nil
}

// recentRows is the number of decoded rows a regular join keeps per side
// (recentRow), a slot per join key's hash modulo recentRows: the ~110
// auctions Nexmark's bids go to at any time mostly keep a slot each. Of
// q9's decodes of an auction for a bid at 10⁶ events, 8 slots by key
// group reused 329,000 (58%) and decoded 239,000 again; 256 reuse
// 517,000 (91%) and decode ~52,000, about one per auction (1,024 slots:
// the same).
const recentRows = 256

// recentRow is a row of a side as a probe decoded it, by its join key and
// its entry's bytes (the sub-key, and the row after the counts of a side
// with a unique key). Rows of one key are often probed again soon (a
// Nexmark auction by its bids), and decoding the same bytes again gives
// the same values; the strings it holds come from the join's RowReader
// chunks, which are never rewritten, so the values stay valid for any
// number of output rows. A slot pins at most the chunks of its row's
// strings (4 KiB each).
type recentRow struct {
	key, sub, rest []byte
	vals           []types.Value
}

// decodeRow appends to r.vals the row of side s held as (sub, rest) under
// the join key r.key: the values a probe decoded last for the same key
// and bytes, else decoded (and kept, for the first row a probe decodes,
// in the slot of its key's hash).
func (r *regular) decodeRow(s int, sub, rest []byte) error {
	v := &r.sides[s]
	slot := &r.recent[s][(r.keyHash>>32)%recentRows]
	if slot.vals != nil && bytes.Equal(slot.sub, sub) && bytes.Equal(slot.rest, rest) && bytes.Equal(slot.key, r.key) {
		r.vals = append(r.vals, slot.vals...)
		return nil
	}
	start := len(r.vals)
	var err error
	if v.unique {
		r.vals, _, err = r.rr.ReadRow(rest, v.side.Types, r.vals)
	} else {
		err = r.readSub(v, sub)
	}
	if err != nil || !r.gFirst {
		return err
	}
	r.gFirst = false
	slot.key = append(slot.key[:0], r.key...)
	slot.sub = append(slot.sub[:0], sub...)
	slot.rest = slot.rest[:0]
	if v.unique {
		slot.rest = append(slot.rest, rest...)
	}
	slot.vals = append(slot.vals[:0], r.vals[start:]...)
	return nil
}

// listTable is the table name of a side's rows kept as lists.
func listTable(name string) string { return name + "/list" }

// listSide reports whether side sd keeps its rows as lists (view.list):
// insert-only, without a unique key, a TTL, or numbers of matches (counts).
func listSide(sd *Side, counts bool) bool {
	return sd.InsertOnly && len(sd.UniqueKey) == 0 && sd.TTL == 0 && !counts
}

// sideOf returns the input whose view v is.
func (r *regular) sideOf(v *view) int {
	if v == &r.sides[1] {
		return 1
	}
	return 0
}

// openList opens v's list table (table name's list, listTable) from
// lister, and moves into it the rows an older version kept of the side as
// a count per distinct row: in the compact format (compactTable) or the
// key encoding (name), each appended as many times as it was counted.
// A checkpoint taken before list tables so restores.
func (r *regular) openList(v *view, lister state.Lister, be state.Backend, name string, kgs state.KeyGroupRange) error {
	sd := v.side
	compact := v.compactLayout(sd, r.spec.KeyTypes)
	v.list = lister.List(listTable(name))
	olds := []string{name}
	if compact {
		olds = append(olds, compactTable(name))
	}
	for _, oldName := range olds {
		err := r.drainOld(v, be.Map(oldName), kgs, oldName == name && compact, func(kg int, key, sub, val []byte) error {
			count, _, _, err := readCounts(val)
			if err != nil {
				return fmt.Errorf("key group %d: %w", kg, err)
			}
			for range count {
				if err := v.list.Append(kg, key, sub); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
