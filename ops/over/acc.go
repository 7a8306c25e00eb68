package over

import (
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// accs are a partition's aggregates: package agg's accumulators, kept in
// a value table, and what a frame that retracts rows needs beyond them —
// the count of each value of a MIN or MAX call (the next extreme when the
// current one leaves the frame) and of each value of a DISTINCT call
// (a value counts while a row of it is in the frame).
type accs struct {
	calls []agg.Call
	table state.ValueTable
	// distinct[k] and values[k] are the value counts of call k, or nil.
	distinct, values []state.MapTable
	valueTypes       []types.Type

	cur       *agg.Accumulators
	skip      []bool
	kg        int
	key       []byte
	sub, buf  []byte
	one       [1]types.Value
	oneCol    []int
	eq        []func(a, b types.Value) int
	resultBuf []types.Value
}

// newAccs opens the tables of calls; retracts says whether rows leave the
// frame (a bounded frame).
func newAccs(st state.Backend, calls []agg.Call, retracts bool, opts []state.TableOption) *accs {
	a := &accs{calls: calls, table: st.Value("acc", opts...), oneCol: []int{0}}
	n := len(calls)
	a.distinct, a.values = make([]state.MapTable, n), make([]state.MapTable, n)
	a.valueTypes, a.eq = make([]types.Type, n), make([]func(a, b types.Value) int, n)
	for k, c := range calls {
		if c.Distinct {
			a.distinct[k] = st.Map(fmt.Sprintf("distinct%d", k), opts...)
		}
		if retracts && (c.Func == agg.Min || c.Func == agg.Max) {
			a.values[k] = st.Map(fmt.Sprintf("values%d", k), opts...)
		}
		if c.Arg >= 0 {
			a.valueTypes[k] = c.ArgType.Nullable()
			a.eq[k] = types.Comparator(c.ArgType)
		}
	}
	a.cur = agg.NewAccumulators(calls)
	a.skip = make([]bool, n)
	return a
}

// load reads the accumulators of partition key (key group kg).
func (a *accs) load(kg int, key []byte) error {
	a.kg, a.key = kg, append(a.key[:0], key...)
	v, ok, err := a.table.Get(kg, key)
	if err != nil {
		return err
	}
	if !ok {
		a.cur.Reset()
		return nil
	}
	if err := a.cur.Read(v); err != nil {
		return fmt.Errorf("over aggregate: key group %d: %w", kg, err)
	}
	return nil
}

// store writes the accumulators back.
func (a *accs) store() error {
	a.buf = a.cur.Append(a.buf[:0])
	return a.table.Put(a.kg, a.key, a.buf)
}

// takes reports whether call k takes row: its FILTER is TRUE (or it has
// none) and, but for COUNT(*), its argument is not NULL.
func (a *accs) takes(k int, row []types.Value) bool {
	c := &a.calls[k]
	if c.Filter >= 0 && (row[c.Filter].IsNull() || !row[c.Filter].Bool()) {
		return false
	}
	return c.Arg < 0 || !row[c.Arg].IsNull()
}

// apply adds row to the frame (retract false) or takes it out.
func (a *accs) apply(row []types.Value, retract bool) error {
	for k, c := range a.calls {
		a.skip[k] = false
		if !a.takes(k, row) {
			continue
		}
		if c.Distinct {
			edge, err := a.count(a.distinct[k], k, row[c.Arg], retract, false)
			if err != nil {
				return err
			}
			// A DISTINCT call sees a value when its first row enters and
			// its last row leaves.
			if a.skip[k] = !edge; a.skip[k] {
				continue
			}
		}
		if a.values[k] != nil {
			if _, err := a.count(a.values[k], k, row[c.Arg], retract, true); err != nil {
				return err
			}
			if retract {
				a.skip[k] = true
				if err := a.retractExtreme(k, row[c.Arg]); err != nil {
					return err
				}
			}
		}
	}
	if err := a.cur.Apply(row, retract, a.skip); err != nil {
		return fmt.Errorf("over aggregate: %w", err)
	}
	return nil
}

// count adds (or takes away) a row of value v to call k's value counts in
// m, and reports whether the value was absent before an addition or is
// absent after a removal. withValue keeps v's encoding with its count.
func (a *accs) count(m state.MapTable, k int, v types.Value, retract, withValue bool) (bool, error) {
	a.one[0] = v
	a.sub = state.AppendKey(a.sub[:0], a.one[:], a.oneCol, a.valueTypes[k:k+1])
	old, ok, err := m.Get(a.kg, a.key, a.sub)
	if err != nil {
		return false, err
	}
	var n int64
	if ok {
		var used int
		if n, used = binary.Varint(old); used <= 0 {
			return false, fmt.Errorf("over aggregate: key group %d: %w: a value count", a.kg, state.ErrCorrupt)
		}
	}
	if retract {
		if !ok {
			return false, nil
		}
		if n <= 1 {
			return true, m.Delete(a.kg, a.key, a.sub)
		}
		n--
	} else {
		n++
	}
	a.buf = binary.AppendVarint(a.buf[:0], n)
	if withValue {
		a.buf = state.AppendValue(a.buf, v, a.valueTypes[k])
	}
	return !retract && n == 1, m.Put(a.kg, a.key, a.sub, a.buf)
}

// retractExtreme sets MIN or MAX call k after a row of value v left: when
// v was the extreme, the new one is the smallest (MIN) or largest (MAX)
// value counted.
func (a *accs) retractExtreme(k int, v types.Value) error {
	if cur, has := a.cur.Extreme(k); has && a.eq[k](cur, v) != 0 {
		return nil
	}
	var found []byte
	isMin := a.calls[k].Func == agg.Min
	err := a.values[k].RangeKey(a.kg, a.key, func(_, val []byte) bool {
		found = append(found[:0], val...)
		return !isMin
	})
	if err != nil {
		return err
	}
	if found == nil {
		a.cur.SetExtreme(k, types.Value{}, false)
		return nil
	}
	_, used := binary.Varint(found)
	nv, _, err := state.ReadValue(found[used:], a.valueTypes[k])
	if err != nil {
		return fmt.Errorf("over aggregate: key group %d: %w", a.kg, err)
	}
	a.cur.SetExtreme(k, nv, true)
	return nil
}

// results returns the calls' results (valid until the next call).
func (a *accs) results() ([]types.Value, error) {
	var err error
	a.resultBuf, err = a.cur.Results(a.resultBuf[:0])
	return a.resultBuf, err
}

// clear drops the partition's aggregates.
func (a *accs) clear() error {
	if err := a.table.Delete(a.kg, a.key); err != nil {
		return err
	}
	for k := range a.calls {
		for _, m := range []state.MapTable{a.distinct[k], a.values[k]} {
			if m != nil {
				if err := m.DeleteKey(a.kg, a.key); err != nil {
					return err
				}
			}
		}
	}
	a.cur.Reset()
	return nil
}
