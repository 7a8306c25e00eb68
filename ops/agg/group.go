package agg

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/ops/internal/slab"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// NewGroupAggregate returns the factory of the GROUP BY operator of spec
// (Flink's GroupAggregate): for each input row it updates the accumulators
// of the row's key and emits the key's new result — INSERT for a new key,
// UPDATE_BEFORE (when Spec.UpdateBefore) with the old result and
// UPDATE_AFTER with the new one for a changed key, DELETE with the old
// result when the key's last row is retracted. A row that leaves the
// result as it was emits nothing (unless Spec.TTL is set, as in Flink).
// The input must be hashed by the key (every row of a key reaches one
// task). The accumulators of recently updated keys stay decoded in a small
// cache in front of the state (see slot), written back at every
// checkpoint's barrier. With Spec.MiniBatch the changes of a key's rows in
// one input batch fold into one (see Spec.MiniBatch).
func NewGroupAggregate(spec Spec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		if err := spec.check(); err != nil {
			return nil, err
		}
		return &groupAgg{spec: spec, maxP: task.MaxParallelism}, nil
	}
}

func (s *Spec) check() error {
	if len(s.Keys) != len(s.KeyTypes) {
		return fmt.Errorf("group aggregate: %d key columns but %d key types", len(s.Keys), len(s.KeyTypes))
	}
	for _, c := range s.Calls {
		if s.Retracting && (c.Func == FirstValue || c.Func == LastValue || c.Func == ListAgg) {
			return fmt.Errorf("group aggregate: %s over an input with updates or deletes is not supported yet", c.Func)
		}
	}
	return nil
}

type groupAgg struct {
	stream.Base
	spec Spec
	maxP int

	accs state.ValueTable
	// over writes back a cached key's accumulators: accs's Overwrite
	// when it has one (the key is in the table), else Put.
	over func(kg int, key, value []byte) error
	// views count the rows of each value of the DISTINCT calls, one per
	// argument column (see distinctView); values[k] counts the rows of
	// each value of MIN or MAX call k whose input retracts (the new
	// extreme after a retraction of the old).
	views  []distinctView
	values []state.MapTable
	// passing and counts are scratch for a view's calls.
	passing []bool
	counts  []int64

	// cur are the accumulators of the row's key: base's, or a cache
	// slot's.
	cur, base *Accumulators
	// cache holds the decoded accumulators of recently used keys in
	// front of accs (nil when off): see slot.
	cache []slot
	// folds says that the rows of a key in one input batch (up to
	// Spec.MiniBatch of them) make one change (Spec.MiniBatch); pending
	// are the indexes of the slots whose change is not emitted yet.
	folds          bool
	pending        []int
	tick           uint64
	skip           []bool
	key, sub, buf  []byte
	prev, next     []types.Value
	eq             []func(a, b types.Value) int
	one            [1]types.Value
	slabs          slab.Slabs // output rows' fields (output)
	width          int
	valueTypes     []types.Type
	keysOnlyColumn []int
}

func (g *groupAgg) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("group aggregate: the task has no keyed state")
	}
	if g.maxP <= 0 {
		g.maxP = state.DefaultMaxParallelism
	}
	opts := []state.TableOption{state.TTL(g.spec.TTL)}
	g.accs = ctx.State.Value("acc", opts...)
	g.over = g.accs.Put
	if o, ok := g.accs.(state.Overwriter); ok && g.spec.TTL == 0 {
		g.over = o.Overwrite
	}
	n := len(g.spec.Calls)
	g.values = make([]state.MapTable, n)
	g.eq = make([]func(a, b types.Value) int, n)
	g.valueTypes = make([]types.Type, n)
	if err := g.openViews(ctx, opts); err != nil {
		return err
	}
	for k, c := range g.spec.Calls {
		if g.spec.Retracting && (c.Func == Min || c.Func == Max) {
			g.values[k] = ctx.State.Map(fmt.Sprintf("values%d", k), opts...)
		}
		g.eq[k] = types.Comparator(c.Result)
		if c.Arg >= 0 {
			g.valueTypes[k] = c.ArgType.Nullable()
		}
	}
	g.base = NewAccumulators(g.spec.Calls)
	if g.spec.cached() {
		g.cache = make([]slot, cacheSlots)
	}
	g.folds = g.spec.Folds()
	g.skip = make([]bool, n)
	g.width = len(g.spec.Keys) + n
	g.keysOnlyColumn = []int{0}
	return nil
}

func (g *groupAgg) Process(_ int, rows []types.Row, out *stream.Output) error {
	if !g.folds {
		for i := range rows {
			if err := g.row(&rows[i], out); err != nil {
				return err
			}
		}
		return nil
	}
	// A mini-batch: each key's rows of up to MiniBatch rows are folded
	// into its slot, and each changed key emits once at the end. Nothing
	// outlives the call (its rows are valid only during it).
	for len(rows) > 0 {
		n := min(len(rows), g.spec.MiniBatch)
		for i := range rows[:n] {
			if err := g.row(&rows[i], out); err != nil {
				return err
			}
		}
		for _, i := range g.pending {
			if s := &g.cache[i]; s.pend {
				if err := g.emit(s, out); err != nil {
					return err
				}
			}
		}
		g.pending = g.pending[:0]
		rows = rows[n:]
	}
	return nil
}

// cacheBits sets the number of cache slots of a group aggregation's task,
// 1 << cacheBits: enough for the keys a stream updates over and over (the
// auctions that get bids) at about a kilobyte each.
const (
	cacheBits  = 10
	cacheSlots = 1 << cacheBits
)

// A slot of the cache of decoded accumulators. A key's accumulators stay
// decoded in one of the two slots its key's hash picks, with the results
// last emitted for them (the old result of the key's next update), until
// another key takes the slot (the one of the two used less recently). A new key is written to state at once (the state's entry
// count stays exact), an update of a cached key only when it leaves the
// slot or at the next checkpoint's barrier (PrepareSnapshot writes every
// changed slot back before the state is cut, so that the snapshot holds
// every update). The cache is off under a TTL (a write sets an entry's
// time) and for LISTAGG (an accumulator that grows without bound would
// escape the state's memory limit).
type slot struct {
	key   []byte
	kg    int
	acc   *Accumulators
	res   []types.Value // acc's results
	last  uint64        // when the slot was last used (groupAgg.tick)
	used  bool
	dirty bool // acc differs from the state's entry
	// When the operator folds a mini-batch (groupAgg.folds): pend says
	// that acc changed since res was emitted (or that the key is new), in
	// the fields of the key's last row of the batch; out that res was
	// emitted (the key is in the result).
	pend, out bool
	in        []types.Value
}

func (g *groupAgg) row(r *types.Row, out *stream.Output) error {
	g.key = state.AppendKey(g.key[:0], r.Fields, g.spec.Keys, g.spec.KeyTypes)
	h := state.Hash(g.key)
	kg := state.KeyGroupOfHash(h, g.maxP)
	retract := r.Kind == types.UpdateBefore || r.Kind == types.Delete
	var s *slot
	si := 0 // s's index in the cache
	had := false
	g.cur = g.base
	if g.cache != nil {
		// Two ways: the key's hash picks a pair of slots, and a key that
		// is in neither takes the one used less recently.
		g.tick++
		i := h >> (64 - cacheBits) &^ 1
		a, b := &g.cache[i], &g.cache[i+1]
		switch {
		case a.used && string(a.key) == string(g.key):
			s, si = a, int(i)
		case b.used && string(b.key) == string(g.key):
			s, si = b, int(i+1)
		}
		if s != nil {
			had = true
			g.cur, g.prev = s.acc, s.res
		} else {
			if s, si = a, int(i); a.used && (!b.used || b.last < a.last) {
				s, si = b, int(i+1)
			}
			if err := g.evict(s, out); err != nil {
				return err
			}
		}
		s.last = g.tick
	}
	if !had {
		old, ok, err := g.accs.Get(kg, g.key)
		if err != nil {
			return err
		}
		if !ok && retract {
			// A retraction of a row the state does not hold: the key
			// expired (table.exec.state.ttl) or the input retracts what it
			// never sent. Flink ignores it too.
			return nil
		}
		if s != nil {
			if s.acc == nil {
				s.acc = g.base.clone()
			}
			s.key, s.kg, s.used = append(s.key[:0], g.key...), kg, true
			s.out, s.pend = ok, false
			g.cur = s.acc
		}
		if had = ok; !had {
			g.cur.Reset()
		} else {
			if err := g.cur.Read(old); err != nil {
				return fmt.Errorf("group aggregate: key group %d: %w", kg, err)
			}
			if s != nil {
				if s.res, err = g.cur.Results(s.res[:0]); err != nil {
					return err
				}
				g.prev = s.res
			} else if g.prev, err = g.cur.Results(g.prev[:0]); err != nil {
				return err
			}
		}
	}
	for i := range g.views {
		// Sets skip for the view's calls.
		if err := g.countView(&g.views[i], kg, r.Fields, retract); err != nil {
			return err
		}
	}
	for k, c := range g.spec.Calls {
		if !c.Distinct {
			g.skip[k] = false
		} else if g.skip[k] {
			continue
		}
		if !g.cur.passes(k, r.Fields) {
			continue
		}
		if g.values[k] != nil {
			if _, err := g.count(g.values[k], kg, k, r.Fields[c.Arg], retract, true); err != nil {
				return err
			}
			if retract {
				g.skip[k] = true
				if err := g.retractExtreme(kg, k, r.Fields[c.Arg]); err != nil {
					return err
				}
			}
		}
	}
	if err := g.cur.Apply(r.Fields, retract, g.skip); err != nil {
		return fmt.Errorf("group aggregate: %w", err)
	}
	if g.cur.Rows() <= 0 {
		// A key new in this mini-batch has emitted nothing yet.
		emitted := had && (s == nil || s.out || !g.folds)
		if s != nil {
			s.used, s.dirty, s.pend, s.in = false, false, false, nil
		}
		if err := g.clear(kg); err != nil {
			return err
		}
		if emitted {
			out.Emit(g.output(types.Delete, r.Fields, g.prev))
		}
		return nil
	}
	if s == nil || !had {
		g.buf = g.cur.Append(g.buf[:0])
		if err := g.accs.Put(kg, g.key, g.buf); err != nil {
			return err
		}
	} else {
		s.dirty = true
	}
	if g.folds {
		if !s.pend {
			s.pend = true
			g.pending = append(g.pending, si)
		}
		s.in = r.Fields
		return nil
	}
	var err error
	if g.next, err = g.cur.Results(g.next[:0]); err != nil {
		return err
	}
	switch {
	case !had:
		out.Emit(g.output(types.Insert, r.Fields, g.next))
	case len(g.spec.Calls) > 0 && (g.spec.TTL > 0 || !g.same(g.prev, g.next)):
		if g.spec.UpdateBefore {
			out.Emit(g.output(types.UpdateBefore, r.Fields, g.prev))
		}
		out.Emit(g.output(types.UpdateAfter, r.Fields, g.next))
	}
	if s != nil {
		// The slot keeps the new results; its old ones were copied into
		// the rows emitted.
		s.res, g.next = g.next, s.res
	}
	return nil
}

// emit emits the change of slot s's key since its result was last
// emitted (a mini-batch's fold), and keeps the new result.
func (g *groupAgg) emit(s *slot, out *stream.Output) error {
	next, err := s.acc.Results(g.next[:0])
	if err != nil {
		return err
	}
	switch {
	case !s.out:
		out.Emit(g.output(types.Insert, s.in, next))
	case len(g.spec.Calls) > 0 && !g.same(s.res, next):
		if g.spec.UpdateBefore {
			out.Emit(g.output(types.UpdateBefore, s.in, s.res))
		}
		out.Emit(g.output(types.UpdateAfter, s.in, next))
	}
	s.res, g.next = next, s.res
	s.out, s.pend, s.in = true, false, nil
	return nil
}

// evict writes slot s's accumulators back to state when they changed, and
// empties it; a key whose change a mini-batch has not emitted yet emits it
// first.
func (g *groupAgg) evict(s *slot, out *stream.Output) error {
	if s.used && s.pend {
		if err := g.emit(s, out); err != nil {
			return err
		}
	}
	if s.used && s.dirty {
		g.buf = s.acc.Append(g.buf[:0])
		if err := g.over(s.kg, s.key, g.buf); err != nil {
			return err
		}
	}
	s.used, s.dirty = false, false
	return nil
}

// PrepareSnapshot writes the cached accumulators that changed since they
// were last written into state, before the runtime cuts it.
func (g *groupAgg) PrepareSnapshot(int64, *stream.Output) error {
	for i := range g.cache {
		s := &g.cache[i]
		if !s.dirty {
			continue
		}
		g.buf = s.acc.Append(g.buf[:0])
		if err := g.over(s.kg, s.key, g.buf); err != nil {
			return err
		}
		s.dirty = false
	}
	return nil
}

// count adds (or retracts) one row of value v to the value counts of call
// k in m and reports whether the value was absent before an addition, or
// is absent after a retraction. withValue keeps v's encoding with the
// count (MIN and MAX read the extremes back from it).
func (g *groupAgg) count(m state.MapTable, kg, k int, v types.Value, retract, withValue bool) (bool, error) {
	g.one[0] = v
	g.sub = state.AppendKey(g.sub[:0], g.one[:], g.keysOnlyColumn, g.valueTypes[k:k+1])
	old, ok, err := m.Get(kg, g.key, g.sub)
	if err != nil {
		return false, err
	}
	var n int64
	if ok {
		var used int
		if n, used = binary.Varint(old); used <= 0 {
			return false, fmt.Errorf("group aggregate: key group %d: corrupt value count", kg)
		}
	}
	if retract {
		if !ok {
			return false, nil // a retraction of a value never counted (expired state)
		}
		if n <= 1 {
			return true, m.Delete(kg, g.key, g.sub)
		}
		n--
	} else {
		n++
	}
	g.buf = binary.AppendVarint(g.buf[:0], n)
	if withValue {
		g.buf = state.AppendValue(g.buf, v, g.valueTypes[k])
	}
	return !retract && n == 1, m.Put(kg, g.key, g.sub, g.buf)
}

// retractExtreme sets MIN or MAX call k after a row of value v was
// retracted: when v was the extreme and no row of it is left, the new one
// is the smallest (MIN) or largest (MAX) value left.
func (g *groupAgg) retractExtreme(kg, k int, v types.Value) error {
	cur, has := g.cur.Extreme(k)
	if has && g.eq[k](cur, v) != 0 {
		return nil
	}
	// The value counts come in value order: MIN takes the first, MAX the
	// last.
	var found []byte
	isMin := g.spec.Calls[k].Func == Min
	err := g.values[k].RangeKey(kg, g.key, func(_, val []byte) bool {
		found = append(found[:0], val...)
		return !isMin
	})
	if err != nil {
		return err
	}
	if found == nil {
		g.cur.SetExtreme(k, types.Value{}, false)
		return nil
	}
	_, used := binary.Varint(found)
	nv, _, err := state.ReadValue(found[used:], g.valueTypes[k])
	if err != nil {
		return fmt.Errorf("group aggregate: key group %d: %w", kg, err)
	}
	g.cur.SetExtreme(k, nv, true)
	return nil
}

// clear drops an emptied key's state.
func (g *groupAgg) clear(kg int) error {
	if err := g.accs.Delete(kg, g.key); err != nil {
		return err
	}
	for i := range g.views {
		if err := g.views[i].m.DeleteKey(kg, g.key); err != nil {
			return err
		}
	}
	for _, m := range g.values {
		if m != nil {
			if err := m.DeleteKey(kg, g.key); err != nil {
				return err
			}
		}
	}
	return nil
}

// A distinctView counts, per key and value of one argument column, the
// rows of each DISTINCT call over that column whose filter passed, as
// Flink's distinct view shared by the calls of one argument does: Nexmark
// q16's eight COUNT(DISTINCT ...) calls over two columns make two state
// lookups a row instead of one per call whose filter passes. A value's
// entry holds one varint count per call, in the calls' order; a view of
// one call is the table "distinct<call>" with one count, the layout every
// DISTINCT call had before views, and a view of several calls is the
// table "distinctview<first call>" (openViews moves a checkpoint's
// per-call tables into it).
type distinctView struct {
	m     state.MapTable
	arg   int
	types []types.Type // the argument's type, for state.AppendKey
	calls []int
}

// openViews opens one distinct view per argument column of the DISTINCT
// calls.
func (g *groupAgg) openViews(ctx *stream.Context, opts []state.TableOption) error {
	byArg := map[int]int{}
	for k, c := range g.spec.Calls {
		if !c.Distinct {
			continue
		}
		i, ok := byArg[c.Arg]
		if !ok {
			i = len(g.views)
			byArg[c.Arg] = i
			g.views = append(g.views, distinctView{arg: c.Arg, types: []types.Type{c.ArgType.Nullable()}})
		}
		g.views[i].calls = append(g.views[i].calls, k)
	}
	most := 0
	for _, v := range g.views {
		most = max(most, len(v.calls))
	}
	g.passing = make([]bool, most)
	g.counts = make([]int64, most)
	for i := range g.views {
		v := &g.views[i]
		if len(v.calls) == 1 {
			v.m = ctx.State.Map(fmt.Sprintf("distinct%d", v.calls[0]), opts...)
			continue
		}
		v.m = ctx.State.Map(fmt.Sprintf("distinctview%d", v.calls[0]), opts...)
		for j, k := range v.calls {
			old := ctx.State.Map(fmt.Sprintf("distinct%d", k), opts...)
			if err := g.moveIntoView(ctx.Task.KeyGroups, old, v, j); err != nil {
				return fmt.Errorf("group aggregate: DISTINCT call %d's state: %w", k, err)
			}
		}
	}
	return nil
}

// moveIntoView moves the value counts of a restored checkpoint's table of
// one DISTINCT call (the layout before views) into the call's counts
// (index j) of view v, and empties the table. Under a TTL the moved
// entries start a new lifetime.
func (g *groupAgg) moveIntoView(kgs state.KeyGroupRange, old state.MapTable, v *distinctView, j int) error {
	type count struct {
		sub []byte
		n   int64
	}
	var keys [][]byte
	var counts []count
	for kg := kgs.Start; kg < kgs.End; kg++ {
		keys = keys[:0]
		if err := old.Keys(kg, func(key []byte) bool {
			keys = append(keys, bytes.Clone(key))
			return true
		}); err != nil {
			return err
		}
		for _, key := range keys {
			counts = counts[:0]
			var bad bool
			if err := old.RangeKey(kg, key, func(sub, val []byte) bool {
				n, used := binary.Varint(val)
				if bad = used <= 0; bad {
					return false
				}
				counts = append(counts, count{bytes.Clone(sub), n})
				return true
			}); err != nil {
				return err
			}
			if bad {
				return fmt.Errorf("key group %d: corrupt value count", kg)
			}
			for _, c := range counts {
				val, ok, err := v.m.Get(kg, key, c.sub)
				if err != nil {
					return err
				}
				n := g.counts[:len(v.calls)]
				if err := readCounts(n, val, ok); err != nil {
					return fmt.Errorf("key group %d: %w", kg, err)
				}
				n[j] = c.n
				if err := v.m.Put(kg, key, c.sub, appendCounts(g.buf[:0], n)); err != nil {
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

// readCounts decodes a view's entry (val, when ok) into n; without an
// entry every count is 0.
func readCounts(n []int64, val []byte, ok bool) error {
	if !ok {
		clear(n)
		return nil
	}
	for j := range n {
		c, used := binary.Varint(val)
		if used <= 0 {
			return fmt.Errorf("corrupt value count")
		}
		n[j], val = c, val[used:]
	}
	return nil
}

func appendCounts(b []byte, n []int64) []byte {
	for _, c := range n {
		b = binary.AppendVarint(b, c)
	}
	return b
}

// countView adds (or retracts) the row's argument value to the counts of
// view v's calls whose filter passes, and sets each call's skip: a
// DISTINCT call sees a value when it is first added and when it is last
// retracted.
func (g *groupAgg) countView(v *distinctView, kg int, fields []types.Value, retract bool) error {
	passing, some := g.passing[:len(v.calls)], false
	for j, k := range v.calls {
		g.skip[k] = false
		passing[j] = g.cur.passes(k, fields)
		some = some || passing[j]
	}
	if !some {
		return nil
	}
	g.one[0] = fields[v.arg]
	g.sub = state.AppendKey(g.sub[:0], g.one[:], g.keysOnlyColumn, v.types)
	old, ok, err := v.m.Get(kg, g.key, g.sub)
	if err != nil {
		return err
	}
	n := g.counts[:len(v.calls)]
	if err := readCounts(n, old, ok); err != nil {
		return fmt.Errorf("group aggregate: key group %d: %w", kg, err)
	}
	changed, left := false, false
	for j, k := range v.calls {
		switch {
		case !passing[j]:
		case retract && n[j] == 0:
			// A retraction of a value never counted (expired state).
			g.skip[k] = true
		case retract:
			n[j]--
			g.skip[k], changed = n[j] > 0, true
		case n[j] > 0 && !g.spec.Retracting && g.spec.TTL == 0:
			// An input that never retracts needs the value's presence
			// only, not its count: no write (under a TTL the write keeps
			// the entry alive).
			g.skip[k] = true
		default:
			n[j]++
			g.skip[k], changed = n[j] > 1, true
		}
		left = left || n[j] > 0
	}
	switch {
	case !changed:
		return nil
	case !left:
		return v.m.Delete(kg, g.key, g.sub)
	}
	g.buf = appendCounts(g.buf[:0], n)
	return v.m.Put(kg, g.key, g.sub, g.buf)
}

// same reports whether two results are equal (NULL equals NULL).
func (g *groupAgg) same(a, b []types.Value) bool {
	for k := range a {
		if types.NullsFirst(a[k], b[k], g.eq[k]) != 0 {
			return false
		}
	}
	return true
}

// ForgetsInput implements stream.InputForgetter: a row's values are
// folded into accumulators or copied into the operator's own output rows,
// and a mini-batch's slots refer to their keys' last input rows (slot.in)
// only until the batch's changes are emitted, within the call.
func (g *groupAgg) ForgetsInput() bool { return true }

// ReuseOutput implements stream.OutputReuser: the rows emitted are cut
// from slabs that are the operator's again at each release; the operator
// reads none of them after emitting it.
func (g *groupAgg) ReuseOutput() (release func()) {
	g.slabs.Reuse()
	return g.slabs.Release
}

// output builds an output row: the key's values (from the input row) and
// results. Its fields come from a slab shared by a few output rows
// (reused only when nothing after the operator keeps a row: ReuseOutput).
func (g *groupAgg) output(kind types.RowKind, in []types.Value, results []types.Value) types.Row {
	f := g.slabs.Take(g.width)
	for i, c := range g.spec.Keys {
		f[i] = in[c]
	}
	copy(f[len(g.spec.Keys):], results)
	return types.Row{Kind: kind, Fields: f}
}
