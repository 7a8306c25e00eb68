package join

import (
	"fmt"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// New returns the factory of regular join operators of spec (Flink's
// Join: StreamingJoinOperator, and StreamingSemiAntiJoinOperator for SEMI
// and ANTI). Both inputs may carry any changelog; each row is matched
// against the rows the other side holds for its key, and the changes of
// the join's result are emitted as Flink emits them:
//
//   - INNER: a row's pairs with the input row's kind (+I, +U, -U, -D).
//   - An outer side's row with no match emits itself padded (+I), and
//     takes the padded row back (-D) when its first match arrives; its
//     pairs are +I and -D; a row of the other side retracted takes the
//     padded row back in (+I) when it was the outer row's last match.
//   - SEMI emits a left row (with its kind) while it has a match, ANTI
//     while it has none; a right row's arrival or retraction emits or
//     retracts the left rows whose match count leaves or reaches zero.
//
// What a side keeps (Flink's JoinRecordStateView designs): a side with a
// unique key keeps one row per key value (an accumulating row with the
// key of a held row replaces it); a side without keeps each distinct row
// with its count. An outer side (and the left side of SEMI and ANTI) also
// keeps each row's number of matches, so that it knows when to pad.
func New(spec Spec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		if err := spec.check("join"); err != nil {
			return nil, err
		}
		r := &regular{joiner: newJoiner(&spec, task, "join")}
		r.prune.wm = stream.MinWatermark
		r.prune.kgs = task.KeyGroups
		if r.prune.kgs.Len() == 0 {
			r.prune.kgs = state.KeyGroupRange{Start: 0, End: r.maxP}
		}
		return r, nil
	}
}

type regular struct {
	stream.Base
	joiner

	sides [2]view
	// matched are the other side's rows that match the row being
	// processed; their bytes and decoded fields live in arena and vals.
	matched []match
	arena   []byte
	vals    []types.Value
	buf     []byte
	err     error
	// rr decodes the matched rows: their strings are cut from its
	// chunks, not allocated one by one (they go out in the joined rows).
	rr state.RowReader
	// gatherFn is gatherOne bound once (a closure per probe escaped to
	// the heap: an allocation per input row); gIn, gKg and gRow are the
	// probe's input, key group and row.
	gatherFn func(sub, value []byte) bool
	// gatherListFn is gatherListed bound once.
	gatherListFn func(row []byte) bool
	gIn, gKg     int
	gRow         []types.Value
	// scratch holds a compact row's stored columns (rows.go); keyVals
	// the join key's values decoded once per probe (keyRead).
	scratch []types.Value
	keyVals []types.Value
	keyRead bool
	// recent are the rows of each side a probe decoded last (rows.go);
	// gFirst says that the probe has decoded no row yet.
	recent [2][recentRows]recentRow
	gFirst bool
	// prune is the state of Spec.Prune (prune.go).
	prune pruneState
}

// view is one side's state: a map table from the join key to the side's
// rows. A row's sub-key is its unique key's encoding (Side.UniqueKey), or
// the whole row's (rows.go: the compact format, or the key encoding); its
// value is its count and number of matches (two uvarints), then, with a
// unique key, the row (AppendRow).
type view struct {
	side  *Side
	table state.MapTable
	ins   state.MapInserter // table's, when its backend has one
	// list, when set, holds the side's rows instead of table (an
	// insert-only side without a unique key: Side.InsertOnly): each row's
	// sub-key appended to its join key's list, once per copy.
	list   state.ListTable
	counts bool // the view keeps each row's number of matches (an outer side)
	unique bool
	sub    []int // the columns of the sub-key
	subTs  []types.Type
	// compact: the rows are the sub-keys in the compact format (rows.go):
	// the columns stored (of types storedTs) and those from the key.
	compact  bool
	stored   []int
	storedTs []types.Type
	fromKey  []keyCol
}

// match is a row of the other side that matches: offsets of its sub-key,
// value and fields in the arenas, its count and number of matches.
type match struct {
	sub, val     [2]int
	row          [2]int
	count, assoc int64
}

func (r *regular) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("join: the task has no keyed state")
	}
	t := r.spec.Type
	counts := [2]bool{t.LeftOuter() || t.SemiOrAnti(), t.RightOuter()}
	for i, sd := range []*Side{&r.spec.Left, &r.spec.Right} {
		v := view{side: sd, counts: counts[i], unique: len(sd.UniqueKey) > 0}
		name := [2]string{"left", "right"}[i]
		if v.unique {
			v.sub = sd.UniqueKey
		} else {
			v.sub = allColumns(len(sd.Types))
		}
		for _, c := range v.sub {
			v.subTs = append(v.subTs, sd.Types[c])
		}
		if lister, ok := ctx.State.(state.Lister); ok && listSide(sd, v.counts) {
			r.sides[i] = v
			if err := r.openList(&r.sides[i], lister, ctx.State, name, ctx.Task.KeyGroups); err != nil {
				return fmt.Errorf("join: converting the %s input's rows of an older checkpoint: %w", name, err)
			}
			continue
		}
		var old state.MapTable
		if !v.unique && v.compactLayout(sd, r.spec.KeyTypes) {
			old = ctx.State.Map(name, state.TTL(sd.TTL))
			name = compactTable(name)
		}
		v.table = ctx.State.Map(name, state.TTL(sd.TTL))
		v.ins, _ = v.table.(state.MapInserter)
		r.sides[i] = v
		if old != nil {
			if err := r.migrate(&r.sides[i], old, ctx.Task.KeyGroups); err != nil {
				return fmt.Errorf("join: converting the %s input's rows of an older checkpoint: %w", [2]string{"left", "right"}[i], err)
			}
		}
	}
	return nil
}

func (r *regular) Process(input int, rows []types.Row, out *stream.Output) error {
	if input != 0 && input != 1 {
		return fmt.Errorf("join: no input %d", input)
	}
	if input == 1 && len(rows) > 0 {
		r.prune.right = true
	}
	for i := range rows {
		var err error
		if r.spec.Type.SemiOrAnti() {
			err = r.semiAnti(input, &rows[i], out)
		} else {
			err = r.join(input, &rows[i], out)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// join processes row of input in (the pseudo code of Flink's
// StreamingJoinOperator.processElement, which this follows).
func (r *regular) join(in int, row *types.Row, out *stream.Output) error {
	me, other := &r.sides[in], &r.sides[1-in]
	acc := isAccumulate(row.Kind)
	kg, ok := r.keyOf(me.side, row.Fields)
	if !ok {
		// A NULL key matches nothing: an outer row is padded at once.
		if me.counts {
			r.emitPadded(out, in, kindOf(acc), row.Fields)
		}
		return nil
	}
	if err := r.gather(in, kg, row.Fields); err != nil {
		return err
	}
	if acc {
		var total int64
		for i := range r.matched {
			total += r.matched[i].count
		}
		var replaced bool
		if in == 1 || r.keep(row.Fields) {
			var err error
			if replaced, err = r.add(me, kg, row.Fields, total); err != nil {
				return err
			}
			if in == 0 {
				r.prune.added++
			}
		}
		if len(r.matched) == 0 {
			if me.counts {
				r.emitPadded(out, in, types.Insert, row.Fields)
			}
			return nil
		}
		kind := types.Insert
		if !me.counts && !other.counts {
			kind = row.Kind
		}
		for i := range r.matched {
			m := &r.matched[i]
			o := r.row(m)
			if other.counts {
				if m.assoc == 0 {
					for range m.count {
						r.emitPadded(out, 1-in, types.Delete, o)
					}
				}
				if !replaced || m.assoc == 0 {
					if err := r.setAssoc(other, kg, m, m.assoc+1); err != nil {
						return err
					}
				}
			}
			for range m.count {
				r.emitPair(out, in, kind, row.Fields, o)
			}
		}
		return nil
	}
	if err := r.retract(me, kg, row.Fields); err != nil {
		return err
	}
	if len(r.matched) == 0 {
		if me.counts {
			r.emitPadded(out, in, types.Delete, row.Fields)
		}
		return nil
	}
	kind := row.Kind
	if me.counts {
		kind = types.Delete
	}
	for i := range r.matched {
		m := &r.matched[i]
		o := r.row(m)
		for range m.count {
			r.emitPair(out, in, kind, row.Fields, o)
		}
		if other.counts {
			if m.assoc == 1 {
				for range m.count {
					r.emitPadded(out, 1-in, types.Insert, o)
				}
			}
			if err := r.setAssoc(other, kg, m, m.assoc-1); err != nil {
				return err
			}
		}
	}
	return nil
}

// semiAnti processes row of input in of a SEMI or ANTI join (Flink's
// StreamingSemiAntiJoinOperator).
func (r *regular) semiAnti(in int, row *types.Row, out *stream.Output) error {
	anti := r.spec.Type == Anti
	me := &r.sides[in]
	acc := isAccumulate(row.Kind)
	kg, ok := r.keyOf(me.side, row.Fields)
	if !ok {
		if in == 0 && anti {
			r.emit(out, row.Kind, row.Fields, nil)
		}
		return nil
	}
	if err := r.gather(in, kg, row.Fields); err != nil {
		return err
	}
	if in == 0 {
		if (len(r.matched) > 0) != anti {
			r.emit(out, row.Kind, row.Fields, nil)
		}
		if !acc {
			return r.retract(me, kg, row.Fields)
		}
		var total int64
		for i := range r.matched {
			total += r.matched[i].count
		}
		_, err := r.add(me, kg, row.Fields, total)
		return err
	}
	left := &r.sides[0]
	var err error
	if acc {
		_, err = r.add(me, kg, row.Fields, 0)
	} else {
		err = r.retract(me, kg, row.Fields)
	}
	if err != nil {
		return err
	}
	for i := range r.matched {
		m := &r.matched[i]
		next := m.assoc - 1
		if acc {
			next = m.assoc + 1
		}
		if (acc && m.assoc == 0) || (!acc && m.assoc == 1) {
			// The left row's matches leave or reach zero: SEMI emits it
			// on its first match and takes it back on its last, ANTI the
			// other way round.
			kind := types.Delete
			if acc != anti {
				kind = types.Insert
			}
			o := r.row(m)
			for range m.count {
				r.emit(out, kind, o, nil)
			}
		}
		if err := r.setAssoc(left, kg, m, next); err != nil {
			return err
		}
	}
	return nil
}

func kindOf(acc bool) types.RowKind {
	if acc {
		return types.Insert
	}
	return types.Delete
}

// gather collects into r.matched the rows of the other side than in that
// match row: same key (r.key, of key group kg), and the residual
// condition.
func (r *regular) gather(in, kg int, row []types.Value) error {
	other := &r.sides[1-in]
	r.matched, r.arena, r.vals, r.err = r.matched[:0], r.arena[:0], r.vals[:0], nil
	r.keyRead, r.gFirst = false, true
	if r.gatherFn == nil {
		r.gatherFn = r.gatherOne
	}
	r.gIn, r.gKg, r.gRow = in, kg, row
	var err error
	if other.list != nil {
		if r.gatherListFn == nil {
			r.gatherListFn = r.gatherListed
		}
		err = other.list.RangeList(kg, r.key, r.gatherListFn)
	} else {
		err = other.table.RangeKey(kg, r.key, r.gatherFn)
	}
	r.gRow = nil
	if err != nil {
		return fmt.Errorf("join: %w", err)
	}
	return r.err
}

// gatherOne is gather's callback for one held row (sub, value) of the
// other side than r.gIn.
func (r *regular) gatherOne(sub, value []byte) bool {
	count, assoc, rest, err := readCounts(value)
	if err != nil {
		r.err = err
		return false
	}
	return r.gatherRow(sub, value, rest, count, assoc)
}

// gatherListed is gather's callback for one row of the other side's list:
// its sub-key, once.
func (r *regular) gatherListed(row []byte) bool { return r.gatherRow(row, nil, nil, 1, 0) }

// gatherRow is gather's step for one held row: its sub-key, entry value,
// the row after the counts (unique key), count and number of matches.
func (r *regular) gatherRow(sub, value, rest []byte, count, assoc int64) bool {
	in, kg, row := r.gIn, r.gKg, r.gRow
	var err error
	start := len(r.vals)
	if err = r.decodeRow(1-in, sub, rest); err != nil {
		r.err = fmt.Errorf("join: key group %d: %w", kg, err)
		return false
	}
	o := r.vals[start:]
	var ok bool
	if in == 0 {
		ok, err = r.matches(row, o)
	} else {
		ok, err = r.matches(o, row)
	}
	if err != nil {
		r.err = err
		return false
	}
	if !ok {
		r.vals = r.vals[:start]
		return true
	}
	m := match{count: count, assoc: assoc, row: [2]int{start, len(r.vals)}}
	m.sub[0] = len(r.arena)
	r.arena = append(r.arena, sub...)
	m.sub[1] = len(r.arena)
	m.val[0] = m.sub[1]
	r.arena = append(r.arena, value...)
	m.val[1] = len(r.arena)
	r.matched = append(r.matched, m)
	return true
}

// row returns the fields of a matched row. They stay valid (the arena is
// only reset by the next gather); output rows copy them.
func (r *regular) row(m *match) []types.Value { return r.vals[m.row[0]:m.row[1]:m.row[1]] }

// add adds row to its side's state with assoc matches; replaced says
// whether it replaced a held row of the same unique key.
func (r *regular) add(v *view, kg int, row []types.Value, assoc int64) (replaced bool, err error) {
	if !v.counts {
		assoc = 0
	}
	sub := r.appendSub(r.buf[:0], v, row)
	r.buf = sub
	if v.list != nil {
		return false, v.list.Append(kg, r.key, sub)
	}
	subLen := len(sub)
	if v.unique {
		_, replaced, err = v.table.Get(kg, r.key, sub)
		if err != nil {
			return false, err
		}
		val := appendCounts(sub, 1, assoc)
		val = state.AppendRow(val, row, v.side.Types)
		r.buf = val
		return replaced, v.table.Put(kg, r.key, val[:subLen], val[subLen:])
	}
	var old []byte
	var ok bool
	if v.ins != nil {
		// Mostly a row not held yet: one lookup adds it with count 1.
		val := appendCounts(sub, 1, assoc)
		r.buf = val
		var inserted bool
		old, inserted, err = v.ins.Insert(kg, r.key, val[:subLen], val[subLen:])
		if err != nil || inserted {
			return false, err
		}
		ok = true
		sub = val[:subLen]
	} else if old, ok, err = v.table.Get(kg, r.key, sub); err != nil {
		return false, err
	}
	count := int64(1)
	if ok {
		c, _, _, err := readCounts(old)
		if err != nil {
			return false, fmt.Errorf("join: key group %d: %w", kg, err)
		}
		count = c + 1
	}
	val := appendCounts(sub, count, assoc)
	r.buf = val
	return false, v.table.Put(kg, r.key, val[:subLen], val[subLen:])
}

// retract takes row back from its side's state; a row the state does not
// hold (expired by its TTL) is ignored, as Flink does.
func (r *regular) retract(v *view, kg int, row []types.Value) error {
	if v.list != nil {
		return fmt.Errorf("join: the %s input is insert-only, but a row of it was retracted", [2]string{"left", "right"}[r.sideOf(v)])
	}
	sub := r.appendSub(r.buf[:0], v, row)
	r.buf = sub
	if v.unique {
		return v.table.Delete(kg, r.key, sub)
	}
	old, ok, err := v.table.Get(kg, r.key, sub)
	if err != nil || !ok {
		return err
	}
	count, assoc, _, err := readCounts(old)
	if err != nil {
		return fmt.Errorf("join: key group %d: %w", kg, err)
	}
	if count <= 1 {
		return v.table.Delete(kg, r.key, sub)
	}
	subLen := len(sub)
	val := appendCounts(sub, count-1, assoc)
	r.buf = val
	return v.table.Put(kg, r.key, val[:subLen], val[subLen:])
}

// setAssoc sets the number of matches of a matched row of view v.
func (r *regular) setAssoc(v *view, kg int, m *match, assoc int64) error {
	_, _, rest, err := readCounts(r.arena[m.val[0]:m.val[1]])
	if err != nil {
		return err
	}
	m.assoc = max(assoc, 0)
	r.buf = appendCounts(r.buf[:0], m.count, m.assoc)
	r.buf = append(r.buf, rest...)
	return v.table.Put(kg, r.key, r.arena[m.sub[0]:m.sub[1]], r.buf)
}

// emitPair emits the pair of the row of input in and a row of the other
// side.
func (r *regular) emitPair(out *stream.Output, in int, kind types.RowKind, row, other []types.Value) {
	if in == 0 {
		r.emit(out, kind, row, other)
	} else {
		r.emit(out, kind, other, row)
	}
}

// emitPadded emits a row of side s padded with NULLs for the other side.
func (r *regular) emitPadded(out *stream.Output, s int, kind types.RowKind, row []types.Value) {
	if s == 0 {
		r.emit(out, kind, row, nil)
	} else {
		r.emit(out, kind, nil, row)
	}
}
