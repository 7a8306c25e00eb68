package rank

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/ops/internal/slab"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// NewTopN returns the factory of Top-N operators of spec. Its input must
// be hashed by Spec.Partition (or gathered in one task without a
// partition).
//
// For each input row it emits what changed in its partition's ranks
// 1..End from Start on, as Flink's function for the spec's strategy does
// (Spec.Function): with the row number in the output, a row that moves
// to another rank is an UPDATE_BEFORE of the row that had the rank and an
// UPDATE_AFTER of the one that has it now; without it, a row that enters
// the top is an INSERT and one that leaves a DELETE, and moves within
// the top emit nothing.
func NewTopN(spec Spec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		if err := spec.check(); err != nil {
			return nil, err
		}
		t := &topN{spec: spec, maxP: task.MaxParallelism}
		if t.maxP <= 0 {
			t.maxP = state.DefaultMaxParallelism
		}
		return t, nil
	}
}

type topN struct {
	stream.Base
	spec Spec
	maxP int

	rows   state.MapTable   // partition → sort key → list of rows (AppendOnly, Retract, Updatable)
	meta   state.ValueTable // partition → its row count and worst sort key (AppendOnly)
	part   state.ValueTable // partition → all its rows in one value (AppendOnly, packed)
	top1   state.ValueTable // partition → its first row (Top1), or only its sort key (keyOnly)
	rows1  state.ValueTable // keyOnly: the whole-row table of a restored checkpoint, read once per partition
	counts state.ValueTable // partition → rows emitted (FirstN)

	// keyOnly says that top1 holds the first row's sort key alone: a
	// Top1 whose consumer needs no UPDATE_BEFORE never emits the row it
	// replaces, so it need not keep it.
	keyOnly bool
	// packed says that an AppendOnly Top-N keeps each partition in one
	// value of part (packedLayout) instead of rows and meta. The other
	// layout's tables are set too when the restored state holds
	// partitions in them (legacy): a partition found there moves to the
	// operator's layout when it is next written.
	packed, legacy bool
	overwrite      state.Overwriter // part's, when it has one (packed)
	// dict, when part keeps its values in the operator's form (a
	// state.Recoder: the heap backend), holds the strings that recur in
	// the packed rows: they are in the dictionary's row form
	// (state.StringDict), and part's snapshots in the plain one.
	dict      *state.StringDict
	migBuf    []byte // the legacy rows of the loaded partition, compacted
	eqA       []byte // rows expanded to compare them (sameRow)
	eqB       []byte
	recoded   []byte // a restored partition in the dictionary's form
	migrating bool   // the loaded partition came from the legacy layout
	partFound bool   // the loaded partition was in part (packed)

	partTypes   []types.Type
	rowKeyTypes []types.Type
	pkey, sk    []byte // the current row's partition and sort keys
	in, rk      []byte // the current row's encoding and unique key (Updatable)
	buf         []byte
	scratch     []byte // the loaded lists' rows (readList)
	inBuf       []byte // the current row's encoding (AppendOnly)
	entries     []entry
	free        []entry
	slabs       slab.Slabs      // output rows' fields (fields)
	rr          state.RowReader // decodes the emitted rows of the state
	width       int
	// input and inEnc are the current input row and its encoding; memo
	// the last rows of the state decoded for the current input row.
	input    []types.Value
	inEnc    []byte
	memo     [2]memoRow
	memoNext int
}

// memoRow is a decoded row of the state.
type memoRow struct {
	enc  []byte
	vals []types.Value
}

// entry is one sort key of a partition, as loaded from the state.
type entry struct {
	key     []byte
	list    rowList
	dirty   bool // to write back
	deleted bool // to delete
}

func (t *topN) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("top-n: the task has no keyed state")
	}
	opts := []state.TableOption{state.TTL(t.spec.TTL)}
	switch {
	case t.spec.FirstN:
		t.counts = ctx.State.Value("count", opts...)
	case t.spec.Top1() && !t.spec.UpdateBefore:
		// Another table than the one of whole rows, so that the two
		// layouts never read each other's state.
		t.keyOnly = true
		t.top1 = ctx.State.Value("top1-key", opts...)
		// A checkpoint of a Top1 that kept whole rows (its consumer
		// needed UPDATE_BEFORE, or a version before top1-key): each
		// partition's row moves to top1-key when first read.
		t.rows1 = ctx.State.Value("top1", opts...)
	case t.spec.Top1():
		t.top1 = ctx.State.Value("top1", opts...)
		if err := refuseKeyOnlyState(ctx, ctx.State.Value("top1-key", opts...)); err != nil {
			return err
		}
	case packedLayout(t.spec):
		t.packed = true
		t.part = ctx.State.Value("partition", opts...)
		t.overwrite, _ = t.part.(state.Overwriter)
		if rc, ok := t.part.(state.Recoder); ok {
			t.dict = state.NewStringDict()
			if err := rc.Recode(packedCodec{t}); err != nil {
				return fmt.Errorf("top-n: %w", err)
			}
		}
		// A checkpoint of the map layout (a version before the packed
		// one, or a TTL or an End that has changed since).
		rows := ctx.State.Map("rows", opts...)
		found, err := holdsState(ctx, rows.Keys)
		if err != nil {
			return fmt.Errorf("top-n: %w", err)
		}
		if found {
			t.legacy, t.rows, t.meta = true, rows, ctx.State.Value("meta", opts...)
		}
	default:
		t.rows = ctx.State.Map("rows", opts...)
		if t.spec.Strategy == AppendOnly {
			t.meta = ctx.State.Value("meta", opts...)
			// A checkpoint of the packed layout (its TTL or End has
			// changed since).
			part := ctx.State.Value("partition", opts...)
			found, err := holdsState(ctx, func(kg int, fn func([]byte) bool) error {
				return part.Range(kg, func(k, _ []byte) bool { return fn(k) })
			})
			if err != nil {
				return fmt.Errorf("top-n: %w", err)
			}
			if found {
				t.legacy, t.part = true, part
			}
		}
	}
	for _, c := range t.spec.Partition {
		t.partTypes = append(t.partTypes, t.spec.Types[c])
	}
	for _, c := range t.spec.RowKey {
		t.rowKeyTypes = append(t.rowKeyTypes, t.spec.Types[c])
	}
	t.width = len(t.spec.Types)
	if t.spec.OutputRank {
		t.width++
	}
	return nil
}

// ForgetsInput implements stream.InputForgetter: a row's values are
// encoded into the state or copied into the operator's own output rows,
// and the input row is referred to (t.input) only while it is processed.
func (t *topN) ForgetsInput() bool { return true }

func (t *topN) Process(_ int, rows []types.Row, out *stream.Output) error {
	defer func() { t.input = nil }()
	for i := range rows {
		r := &rows[i]
		t.input, t.inEnc, t.memo = r.Fields, nil, [2]memoRow{}
		t.pkey = state.AppendKey(t.pkey[:0], r.Fields, t.spec.Partition, t.partTypes)
		kg := state.KeyGroupOf(t.pkey, t.maxP)
		accumulate := r.Kind == types.Insert || r.Kind == types.UpdateAfter
		var err error
		switch {
		case t.spec.FirstN:
			err = t.firstN(kg, r, out)
		case t.spec.Top1():
			if !accumulate {
				return fmt.Errorf("top-n: a %s row in an input that does not retract", r.Kind)
			}
			err = t.fastTop1(kg, r, out)
		default:
			t.sk = AppendSortKey(t.sk[:0], r.Fields, t.spec.Order, t.spec.Types)
			if t.spec.Strategy != AppendOnly {
				t.in = state.AppendRow(t.in[:0], r.Fields, t.spec.Types)
			}
			switch t.spec.Strategy {
			case AppendOnly:
				if !accumulate {
					return fmt.Errorf("top-n: a %s row in an insert-only input", r.Kind)
				}
				err = t.appendOnly(kg, r, out)
			case Retract:
				err = t.retractable(kg, accumulate, out)
			case Updatable:
				if !accumulate {
					return fmt.Errorf("top-n: a %s row in an input that does not retract", r.Kind)
				}
				t.rk = state.AppendKey(t.rk[:0], r.Fields, t.spec.RowKey, t.rowKeyTypes)
				err = t.updatable(kg, out)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Emission. The row of an emission is an encoded row (the input's, or
// one from the state), decoded into a slab shared by a few output rows
// (slabs: reused only when nothing after the operator keeps a row).

func (t *topN) fields() []types.Value { return t.slabs.Take(t.width)[:0] }

// ReuseOutput implements stream.OutputReuser: the rows emitted are cut
// from slabs that are the operator's again at each release. The decoded
// rows of the state (memo) are only read within the call that decoded
// them.
func (t *topN) ReuseOutput() (release func()) {
	t.slabs.Reuse()
	return t.slabs.Release
}

func (t *topN) emitRow(out *stream.Output, kind types.RowKind, enc []byte, rank int64) error {
	f, err := t.decode(enc)
	if err != nil {
		return err
	}
	if t.spec.OutputRank {
		f = append(f, types.Int64(rank))
	}
	out.Emit(types.Row{Kind: kind, Fields: f})
	return nil
}

// decode returns the fields of an encoded row, in fields from t.fields: the
// current input row's own (t.input, when enc is its encoding t.inEnc), or
// a row of the state decoded — once for the two emissions in a row that a
// row moving rank makes (an UPDATE_BEFORE at one rank, then an
// UPDATE_AFTER at the next).
func (t *topN) decode(enc []byte) ([]types.Value, error) {
	if len(enc) > 0 && len(t.inEnc) > 0 && &enc[0] == &t.inEnc[0] {
		return append(t.fields(), t.input...), nil
	}
	for i := range t.memo {
		if m := &t.memo[i]; len(enc) > 0 && len(m.enc) == len(enc) && &m.enc[0] == &enc[0] {
			return append(t.fields(), m.vals...), nil
		}
	}
	var f []types.Value
	var err error
	if t.dict != nil {
		f, _, err = t.dict.ReadRow(&t.rr, enc, t.spec.Types, t.fields())
	} else {
		f, _, err = t.rr.ReadRow(enc, t.spec.Types, t.fields())
	}
	if err != nil {
		return nil, fmt.Errorf("top-n: %w", err)
	}
	m := &t.memo[t.memoNext]
	t.memoNext = (t.memoNext + 1) % len(t.memo)
	m.enc, m.vals = enc, f
	return f, nil
}

// emitRanked emits a row at rank when the rank is in [Start, End] (Flink's
// collect... with a rank); an UPDATE_BEFORE only when the consumer needs
// it.
func (t *topN) emitRanked(out *stream.Output, kind types.RowKind, enc []byte, rank int64) error {
	if rank < t.spec.Start || rank > t.spec.End || (kind == types.UpdateBefore && !t.spec.UpdateBefore) {
		return nil
	}
	return t.emitRow(out, kind, enc, rank)
}

// emitPlain emits a row without a rank check (Flink's collect... without
// one), for the algorithms that do not output the row number.
func (t *topN) emitPlain(out *stream.Output, kind types.RowKind, enc []byte) error {
	if kind == types.UpdateBefore && !t.spec.UpdateBefore {
		return nil
	}
	return t.emitRow(out, kind, enc, 0)
}

// withRowNumber reports whether the algorithms that track row numbers
// run: when the row number is output, or the ranks start after 1.
func (t *topN) withRowNumber() bool { return t.spec.OutputRank || t.spec.Start > 1 }

// State of a partition's map: loading, and writing back.

// load reads the partition's sort keys in rank order into t.entries,
// until the entries hold more than limit rows (limit < 0: all of them).
func (t *topN) load(kg int, limit int64, withKeys bool) error {
	t.free = append(t.free, t.entries...)
	t.entries = t.entries[:0]
	// The lists of the previous row are no longer needed (what was
	// emitted from them was decoded into copies).
	t.scratch = t.scratch[:0]
	var total int64
	var ferr error
	err := t.rows.RangeKey(kg, t.pkey, func(sub, val []byte) bool {
		e := t.newEntry(sub)
		if ferr = readList(val, &e.list, withKeys, &t.scratch); ferr != nil {
			return false
		}
		t.entries = append(t.entries, e)
		total += int64(len(e.list.rows))
		return limit < 0 || total <= limit
	})
	if err == nil {
		err = ferr
	}
	if err == nil && len(t.entries) == 0 && t.legacy && !t.packed {
		// The partition may be in the packed layout of a restored
		// checkpoint: its rows move to the map (every entry written).
		err = t.loadLegacyPacked(kg)
	}
	if err != nil {
		return fmt.Errorf("top-n: key group %d: %w", kg, err)
	}
	return nil
}

// The packed layout (AppendOnly, no TTL, End <= packedMaxEnd): each
// partition's rows in one value of the table "partition",
//
//	uvarint row count | uvarint len(worst sort key) | worst sort key |
//	per sort key, in rank order: uvarint len(sort key) | sort key | list (appendList)
//
// so that a row that enters the top costs one Get and one Put of its
// partition, instead of a Get of meta, a RangeKey of rows, a Put and a
// Delete of rows and a Put of meta, and a partition is one entry of a
// hash table rather than a sorted map of its own (on the heap backend: no
// per-partition arena and offsets for the collector to mark, no slack in
// each). Every write rewrites the partition's rows, which is why End is
// bounded.

// packedMaxEnd is the largest End kept in the packed layout: a write of a
// partition rewrites about End rows (Nexmark q19: up to 10 rows, 1.3 KB
// on average at 2·10⁶ events).
const packedMaxEnd = 32

// packedLayout reports whether a Top-N of spec keeps its partitions in the
// packed layout.
func packedLayout(spec Spec) bool {
	return spec.Strategy == AppendOnly && !spec.FirstN && !spec.Top1() && spec.TTL == 0 && spec.End <= packedMaxEnd
}

// readPackedHead returns a packed partition's row count, its worst sort
// key and its sort keys' lists.
func readPackedHead(v []byte) (n uint64, worst, body []byte, err error) {
	n, used := binary.Uvarint(v)
	if used <= 0 {
		return 0, nil, nil, fmt.Errorf("%w: a partition's row count", state.ErrCorrupt)
	}
	v = v[used:]
	wl, used := binary.Uvarint(v)
	if used <= 0 || uint64(len(v)-used) < wl {
		return 0, nil, nil, fmt.Errorf("%w: a partition's worst sort key", state.ErrCorrupt)
	}
	return n, v[used : used+int(wl)], v[used+int(wl):], nil
}

// readPacked fills t.entries with a packed partition's sort keys, whose
// rows alias body.
func (t *topN) readPacked(body []byte) error {
	for len(body) > 0 {
		kl, used := binary.Uvarint(body)
		if used <= 0 || uint64(len(body)-used) < kl {
			return fmt.Errorf("%w: a partition's sort key", state.ErrCorrupt)
		}
		e := t.newEntry(body[used : used+int(kl)])
		body = body[used+int(kl):]
		n, used := binary.Uvarint(body)
		if used <= 0 {
			return fmt.Errorf("%w: a rank list's length", state.ErrCorrupt)
		}
		body = body[used:]
		for range n {
			rl, used := binary.Uvarint(body)
			if used <= 0 || uint64(len(body)-used) < rl {
				return fmt.Errorf("%w: a rank list's row", state.ErrCorrupt)
			}
			e.list.rows = append(e.list.rows, body[used:used+int(rl):used+int(rl)])
			body = body[used+int(rl):]
		}
		t.entries = append(t.entries, e)
	}
	return nil
}

// loadPacked reads the current row's partition (packed layout) into
// t.entries. It reports skip when the row cannot enter the partition's
// top: the top is full and the row's sort key is not better than the
// worst (Flink's checkSortKeyInBufferRange, from the head alone).
func (t *topN) loadPacked(kg int) (skip bool, err error) {
	t.free = append(t.free, t.entries...)
	t.entries = t.entries[:0]
	t.scratch = t.scratch[:0]
	t.migrating = false
	v, ok, err := t.part.Get(kg, t.pkey)
	if err != nil {
		return false, err
	}
	t.partFound = ok
	if !ok {
		if !t.legacy {
			return false, nil
		}
		// A partition of a restored checkpoint of the map layout.
		if err := t.load(kg, -1, false); err != nil {
			return false, err
		}
		t.migrating = len(t.entries) > 0
		if t.migrating && t.dict != nil {
			if err := t.compactLoaded(); err != nil {
				return false, fmt.Errorf("top-n: key group %d: %w", kg, err)
			}
		}
		return false, nil
	}
	n, worst, body, err := readPackedHead(v)
	if err == nil {
		if int64(n) >= t.spec.End && bytes.Compare(t.sk, worst) >= 0 {
			return true, nil
		}
		// The rows alias v, which stays valid until the Put of
		// storePacked (no other call on the table comes between).
		err = t.readPacked(body)
	}
	if err != nil {
		return false, fmt.Errorf("top-n: key group %d: %w", kg, err)
	}
	return false, nil
}

// storePacked writes the loaded partition back (packed layout), and
// removes it from the map layout's tables when it came from there.
func (t *topN) storePacked(kg int) error {
	var worst []byte
	var n int64
	for i := range t.entries {
		if e := &t.entries[i]; !e.deleted && len(e.list.rows) > 0 {
			worst = e.key
			n += int64(len(e.list.rows))
		}
	}
	var err error
	switch {
	case n == 0:
		err = t.part.Delete(kg, t.pkey)
	default:
		b := binary.AppendUvarint(t.buf[:0], uint64(n))
		b = binary.AppendUvarint(b, uint64(len(worst)))
		b = append(b, worst...)
		for i := range t.entries {
			if e := &t.entries[i]; !e.deleted && len(e.list.rows) > 0 {
				b = binary.AppendUvarint(b, uint64(len(e.key)))
				b = append(b, e.key...)
				b = appendList(b, &e.list, false)
			}
		}
		t.buf = b
		if t.partFound && t.overwrite != nil {
			err = t.overwrite.Overwrite(kg, t.pkey, b)
		} else {
			err = t.part.Put(kg, t.pkey, b)
		}
	}
	if err == nil && t.migrating {
		if err = t.rows.DeleteKey(kg, t.pkey); err == nil {
			err = t.meta.Delete(kg, t.pkey)
		}
	}
	return err
}

// loadLegacyPacked reads the current row's partition from the packed
// layout of a restored checkpoint into t.entries (map layout), each entry
// to be written.
func (t *topN) loadLegacyPacked(kg int) error {
	v, ok, err := t.part.Get(kg, t.pkey)
	if err != nil || !ok {
		return err
	}
	_, _, body, err := readPackedHead(v)
	if err != nil {
		return err
	}
	// A copy: the rows outlive the next call on the table.
	t.scratch = append(t.scratch[:0], body...)
	if err := t.readPacked(t.scratch); err != nil {
		return err
	}
	for i := range t.entries {
		t.entries[i].dirty = true
	}
	t.migrating = true
	return nil
}

// compactLoaded puts the loaded entries' rows, read from the map layout
// (plain rows), in the dictionary's form, into t.migBuf.
func (t *topN) compactLoaded() error {
	b := t.migBuf[:0]
	var ends []int
	for i := range t.entries {
		for _, r := range t.entries[i].list.rows {
			var err error
			var rest []byte
			if b, rest, err = t.dict.CompactRow(b, r, t.spec.Types); err != nil {
				return err
			} else if len(rest) != 0 {
				return fmt.Errorf("%w: trailing bytes after a row", state.ErrCorrupt)
			}
			ends = append(ends, len(b))
		}
	}
	t.migBuf = b
	at, k := 0, 0
	for i := range t.entries {
		rows := t.entries[i].list.rows
		for j := range rows {
			rows[j] = b[at:ends[k]:ends[k]]
			at = ends[k]
			k++
		}
	}
	return nil
}

// sameRow reports whether two encoded rows of the operator's form hold the
// same values: in the dictionary's form a string may be inline in a row
// written before it entered the dictionary and a reference in a later one.
func (t *topN) sameRow(a, b []byte) (bool, error) {
	if bytes.Equal(a, b) || t.dict == nil {
		return bytes.Equal(a, b), nil
	}
	var err error
	if t.eqA, _, err = t.dict.ExpandRow(t.eqA[:0], a, t.spec.Types); err != nil {
		return false, fmt.Errorf("top-n: %w", err)
	}
	if t.eqB, _, err = t.dict.ExpandRow(t.eqB[:0], b, t.spec.Types); err != nil {
		return false, fmt.Errorf("top-n: %w", err)
	}
	return bytes.Equal(t.eqA, t.eqB), nil
}

// packedCodec converts the packed partitions between the dictionary's row
// form (memory) and the plain one (snapshots).
type packedCodec struct{ t *topN }

// Internal implements state.ValueCodec.
func (c packedCodec) Internal(dst, v []byte) ([]byte, error) {
	t := c.t
	return recodePacked(dst, v, &t.recoded, func(dst, row []byte) ([]byte, []byte, error) {
		return t.dict.CompactRow(dst, row, t.spec.Types)
	})
}

// Cut implements state.ValueCodec.
func (c packedCodec) Cut() func(dst, v []byte) ([]byte, error) {
	cut, typs := c.t.dict.Cut(), c.t.spec.Types
	var scratch []byte
	return func(dst, v []byte) ([]byte, error) {
		return recodePacked(dst, v, &scratch, func(dst, row []byte) ([]byte, []byte, error) {
			return cut.ExpandRow(dst, row, typs)
		})
	}
}

// recodePacked appends packed partition v to dst with each row converted
// by conv (into *scratch first, for its length).
func recodePacked(dst, v []byte, scratch *[]byte, conv func(dst, row []byte) ([]byte, []byte, error)) ([]byte, error) {
	_, _, body, err := readPackedHead(v)
	if err != nil {
		return dst, err
	}
	dst = append(dst, v[:len(v)-len(body)]...)
	for len(body) > 0 {
		kl, used := binary.Uvarint(body)
		if used <= 0 || uint64(len(body)-used) < kl {
			return dst, fmt.Errorf("%w: a partition's sort key", state.ErrCorrupt)
		}
		dst = append(dst, body[:used+int(kl)]...)
		body = body[used+int(kl):]
		n, used := binary.Uvarint(body)
		if used <= 0 {
			return dst, fmt.Errorf("%w: a rank list's length", state.ErrCorrupt)
		}
		dst = append(dst, body[:used]...)
		body = body[used:]
		for range n {
			rl, used := binary.Uvarint(body)
			if used <= 0 || uint64(len(body)-used) < rl {
				return dst, fmt.Errorf("%w: a rank list's row", state.ErrCorrupt)
			}
			row := body[used : used+int(rl)]
			body = body[used+int(rl):]
			b, rest, err := conv((*scratch)[:0], row)
			*scratch = b
			if err != nil {
				return dst, err
			}
			if len(rest) != 0 {
				return dst, fmt.Errorf("%w: trailing bytes after a row", state.ErrCorrupt)
			}
			dst = binary.AppendUvarint(dst, uint64(len(b)))
			dst = append(dst, b...)
		}
	}
	return dst, nil
}

func (t *topN) newEntry(key []byte) entry {
	var e entry
	if n := len(t.free); n > 0 {
		e = t.free[n-1]
		t.free = t.free[:n-1]
	}
	e.key = append(e.key[:0], key...)
	e.list.rows, e.list.keys = e.list.rows[:0], e.list.keys[:0]
	e.dirty, e.deleted = false, false
	return e
}

// find returns the index of the loaded entry of sort key sk, or where it
// would go, and whether it is there.
func (t *topN) find(sk []byte) (int, bool) {
	return slices.BinarySearchFunc(t.entries, sk, func(e entry, k []byte) int { return bytes.Compare(e.key, k) })
}

// add appends a row (and its unique key) to sort key sk's list, creating
// the entry, and returns its index.
func (t *topN) add(sk, row, key []byte) int {
	i, ok := t.find(sk)
	if !ok {
		t.entries = slices.Insert(t.entries, i, t.newEntry(sk))
	}
	e := &t.entries[i]
	e.list.rows = append(e.list.rows, row)
	if key != nil {
		e.list.keys = append(e.list.keys, key)
	}
	e.dirty, e.deleted = true, false
	return i
}

// store writes the changed entries back.
func (t *topN) store(kg int, withKeys bool) error {
	for i := range t.entries {
		e := &t.entries[i]
		switch {
		case e.deleted || (e.dirty && len(e.list.rows) == 0):
			if err := t.rows.Delete(kg, t.pkey, e.key); err != nil {
				return err
			}
		case e.dirty:
			t.buf = appendList(t.buf[:0], &e.list, withKeys)
			if err := t.rows.Put(kg, t.pkey, e.key, t.buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// total returns the number of rows in the loaded entries.
func (t *topN) total() int64 {
	var n int64
	for i := range t.entries {
		if !t.entries[i].deleted {
			n += int64(len(t.entries[i].list.rows))
		}
	}
	return n
}

// inBufferRange reports whether a row of sort key sk may rank, given the
// loaded entries (all of the partition's): the buffer is empty or not
// full, or sk is better than its worst key (Flink's
// checkSortKeyInBufferRange, against End).
func (t *topN) inBufferRange(sk []byte) bool {
	last := -1
	for i := len(t.entries) - 1; i >= 0; i-- {
		if !t.entries[i].deleted && len(t.entries[i].list.rows) > 0 {
			last = i
			break
		}
	}
	if last < 0 || bytes.Compare(sk, t.entries[last].key) < 0 {
		return true
	}
	return t.total() < t.spec.End
}

// AppendOnly (Flink's AppendOnlyTopNFunction): the partition keeps the
// rows that may still rank.

func (t *topN) appendOnly(kg int, r *types.Row, out *stream.Output) error {
	// Most rows of a full top cannot enter it: the partition's row count
	// and worst sort key say so without reading its rows (unless a TTL
	// may have expired some of them since).
	if t.packed {
		if skip, err := t.loadPacked(kg); err != nil || skip {
			return err
		}
	} else {
		if m, ok, err := t.meta.Get(kg, t.pkey); err != nil {
			return err
		} else if ok && t.spec.TTL == 0 {
			n, used := binary.Uvarint(m)
			if used <= 0 {
				return fmt.Errorf("top-n: key group %d: %w: a partition's row count", kg, state.ErrCorrupt)
			}
			if int64(n) >= t.spec.End && bytes.Compare(t.sk, m[used:]) >= 0 {
				return nil
			}
		}
		t.migrating = false
		if err := t.load(kg, -1, false); err != nil {
			return err
		}
	}
	if !t.inBufferRange(t.sk) {
		return nil
	}
	// The row's encoding is needed until the loaded entries are
	// written back (the state copies it); the next row may reuse it.
	var in []byte
	if t.dict != nil {
		in = t.dict.AppendRow(t.inBuf[:0], r.Fields, t.spec.Types)
	} else {
		in = state.AppendRow(t.inBuf[:0], r.Fields, t.spec.Types)
	}
	t.inBuf, t.inEnc = in, in
	t.add(t.sk, in, nil)
	var err error
	if t.withRowNumber() {
		err = t.appendWithRowNumber(in, out)
	} else {
		err = t.appendWithoutRowNumber(in, out)
	}
	if err != nil {
		return err
	}
	if t.packed {
		return t.storePacked(kg)
	}
	if err := t.store(kg, false); err != nil {
		return err
	}
	if err := t.storeMeta(kg); err != nil {
		return err
	}
	if t.migrating {
		return t.part.Delete(kg, t.pkey)
	}
	return nil
}

// storeMeta writes the partition's row count and worst sort key, from the
// loaded entries (all of the partition's).
func (t *topN) storeMeta(kg int) error {
	var worst []byte
	for i := len(t.entries) - 1; i >= 0; i-- {
		if e := &t.entries[i]; !e.deleted && len(e.list.rows) > 0 {
			worst = e.key
			break
		}
	}
	if worst == nil {
		return t.meta.Delete(kg, t.pkey)
	}
	t.buf = binary.AppendUvarint(t.buf[:0], uint64(t.total()))
	t.buf = append(t.buf, worst...)
	return t.meta.Put(kg, t.pkey, t.buf)
}

// appendWithRowNumber emits the new row at its rank and the rows it
// pushed down one rank each, and drops the sort keys past End.
func (t *topN) appendWithRowNumber(in []byte, out *stream.Output) error {
	var rank int64
	found := false
	cur := in
	i := 0
	for ; i < len(t.entries) && rank <= t.spec.End; i++ {
		e := &t.entries[i]
		switch {
		case !found && bytes.Equal(e.key, t.sk):
			rank += int64(len(e.list.rows))
			cur, found = in, true
		case found:
			for j := 0; j < len(e.list.rows) && rank <= t.spec.End; j++ {
				prev := e.list.rows[j]
				if err := t.emitRanked(out, types.UpdateBefore, prev, rank); err != nil {
					return err
				}
				if err := t.emitRanked(out, types.UpdateAfter, cur, rank); err != nil {
					return err
				}
				cur = prev
				rank++
			}
		default:
			rank += int64(len(e.list.rows))
		}
	}
	if rank <= t.spec.End {
		// The top is not full: the last row moved to a new rank.
		if err := t.emitRanked(out, types.Insert, cur, rank); err != nil {
			return err
		}
	}
	for ; i < len(t.entries); i++ {
		t.entries[i].deleted = true
	}
	return nil
}

// appendWithoutRowNumber evicts the worst row when the top overflows and
// emits it as a delete, then the new row as an insert.
func (t *topN) appendWithoutRowNumber(in []byte, out *stream.Output) error {
	if t.total() > t.spec.End {
		last := &t.entries[len(t.entries)-1]
		n := len(last.list.rows)
		evicted := last.list.rows[n-1]
		last.list.rows = last.list.rows[:n-1]
		last.dirty = true
		if n <= 1 {
			last.deleted = true
		}
		if same, err := t.sameRow(in, evicted); err != nil {
			return err
		} else if same {
			return nil // the new row itself (or one equal to it) fell out
		}
		if err := t.emitPlain(out, types.Delete, evicted); err != nil {
			return err
		}
	}
	return t.emitPlain(out, types.Insert, in)
}

// FastTop1 (Flink's FastTop1Function): the partition's first row.

func (t *topN) fastTop1(kg int, r *types.Row, out *stream.Output) error {
	prev, ok, err := t.top1.Get(kg, t.pkey)
	if err != nil {
		return err
	}
	if t.keyOnly {
		if !ok {
			if prev, ok, err = t.restoredTop1(kg); err != nil {
				return err
			}
		}
		t.sk = AppendSortKey(t.sk[:0], r.Fields, t.spec.Order, t.spec.Types)
		kind := types.Insert
		if ok {
			if bytes.Compare(t.sk, prev) >= 0 {
				return nil // not better than the first row: it stays
			}
			kind = types.UpdateAfter
		}
		if err := t.top1.Put(kg, t.pkey, t.sk); err != nil {
			return err
		}
		f := append(t.fields(), r.Fields...)
		if t.spec.OutputRank {
			f = append(f, types.Int64(1))
		}
		out.Emit(types.Row{Kind: kind, Fields: f})
		return nil
	}
	t.in = state.AppendRow(t.in[:0], r.Fields, t.spec.Types)
	t.inEnc = t.in
	if !ok {
		if err := t.top1.Put(kg, t.pkey, t.in); err != nil {
			return err
		}
		return t.emitRow(out, types.Insert, t.in, 1)
	}
	prevFields, _, err := state.ReadRow(prev, t.spec.Types, t.fields())
	if err != nil {
		return fmt.Errorf("top-n: key group %d: %w", kg, err)
	}
	t.sk = AppendSortKey(t.sk[:0], r.Fields, t.spec.Order, t.spec.Types)
	t.buf = AppendSortKey(t.buf[:0], prevFields, t.spec.Order, t.spec.Types)
	if bytes.Compare(t.sk, t.buf) >= 0 {
		return nil // not better than the first row: it stays
	}
	if err := t.top1.Put(kg, t.pkey, t.in); err != nil {
		return err
	}
	if t.spec.UpdateBefore {
		f := prevFields
		if t.spec.OutputRank {
			f = append(f, types.Int64(1))
		}
		out.Emit(types.Row{Kind: types.UpdateBefore, Fields: f})
	}
	return t.emitRow(out, types.UpdateAfter, t.in, 1)
}

// restoredTop1 returns the sort key of the partition's first row from the
// whole-row table of a restored checkpoint, moving it to top1 (keyOnly).
func (t *topN) restoredTop1(kg int) ([]byte, bool, error) {
	row, ok, err := t.rows1.Get(kg, t.pkey)
	if err != nil || !ok {
		return nil, false, err
	}
	f, _, err := state.ReadRow(row, t.spec.Types, t.fields())
	if err != nil {
		return nil, false, fmt.Errorf("top-n: key group %d: %w", kg, err)
	}
	t.buf = AppendSortKey(t.buf[:0], f, t.spec.Order, t.spec.Types)
	if err := t.top1.Put(kg, t.pkey, t.buf); err != nil {
		return nil, false, err
	}
	if err := t.rows1.Delete(kg, t.pkey); err != nil {
		return nil, false, err
	}
	return t.buf, true, nil
}

// FirstN (Flink's AppendOnlyFirstNFunction): the first End rows of the
// partition to arrive.

func (t *topN) firstN(kg int, r *types.Row, out *stream.Output) error {
	if r.Kind != types.Insert {
		return fmt.Errorf("top-n: a %s row in an insert-only input", r.Kind)
	}
	old, ok, err := t.counts.Get(kg, t.pkey)
	if err != nil {
		return err
	}
	var n uint64
	if ok {
		var used int
		if n, used = binary.Uvarint(old); used <= 0 {
			return fmt.Errorf("top-n: key group %d: %w: a row count", kg, state.ErrCorrupt)
		}
	}
	if int64(n) >= t.spec.End {
		return nil
	}
	n++
	t.buf = binary.AppendUvarint(t.buf[:0], n)
	if err := t.counts.Put(kg, t.pkey, t.buf); err != nil {
		return err
	}
	t.in = state.AppendRow(t.in[:0], r.Fields, t.spec.Types)
	t.inEnc = t.in
	if t.withRowNumber() {
		return t.emitRanked(out, types.Insert, t.in, int64(n))
	}
	return t.emitPlain(out, types.Insert, t.in)
}

// holdsState reports whether the restored state holds a key in one of the
// task's key groups, by keys (a table's Keys or Range).
func holdsState(ctx *stream.Context, keys func(kg int, fn func(key []byte) bool) error) (bool, error) {
	found := false
	for kg := ctx.Task.KeyGroups.Start; kg < ctx.Task.KeyGroups.End && !found; kg++ {
		if err := keys(kg, func([]byte) bool { found = true; return false }); err != nil {
			return false, fmt.Errorf("reading the restored state: %w", err)
		}
	}
	return found, nil
}

// refuseKeyOnlyState fails when the restored state holds a Top-1's sort
// keys only (its consumer needed no UPDATE_BEFORE): a Top-1 that must
// retract each partition's row cannot get the rows back, and starting
// without them would emit each partition's next best row as new, not as
// an update of the one the sink holds.
func refuseKeyOnlyState(ctx *stream.Context, keys state.ValueTable) error {
	found := false
	for kg := ctx.Task.KeyGroups.Start; kg < ctx.Task.KeyGroups.End && !found; kg++ {
		if err := keys.Range(kg, func(_, _ []byte) bool { found = true; return false }); err != nil {
			return fmt.Errorf("top-n: reading the restored state: %w", err)
		}
	}
	if found {
		return fmt.Errorf("top-n: the checkpoint holds this Top-1's sort keys only (its sink needed no UPDATE_BEFORE rows), " +
			"and the job now needs whole rows to retract (a sink that takes UPDATE_BEFORE): it cannot be restored from this checkpoint; " +
			"start it without the checkpoint, or keep a sink that needs no UPDATE_BEFORE")
	}
	return nil
}
