package expr

import (
	"errors"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// The ARRAY and MAP functions of Flink 2.x (ARRAY_CONTAINS, ARRAY_JOIN,
// MAP_KEYS, ...). A NULL array or map gives NULL; NULL elements are values
// like any other (ARRAY_CONTAINS finds them, ARRAY_DISTINCT keeps one).
// Elements compare with types.Comparator of the element type, built once
// per call site.

// arrayElem returns the element type of an ARRAY argument, false when the
// argument is no ARRAY.
func arrayElem(e Expr) (types.Type, bool) {
	t := e.Type()
	if t.Kind != types.KindArray {
		return types.Type{}, false
	}
	return *t.Elem, true
}

// checkArrayFn accepts an ARRAY as the first argument; result checks the
// others and returns the call's type.
func checkArrayFn(result func(c *Call, elem types.Type) (types.Type, bool)) func(c *Call) (types.Type, error) {
	return func(c *Call) (types.Type, error) {
		elem, ok := arrayElem(c.Args[0])
		if !ok {
			return types.Type{}, errArgs
		}
		t, ok := result(c, elem)
		if !ok {
			return types.Type{}, errArgs
		}
		return t, nil
	}
}

// elemArg checks that argument i is comparable with elem and casts it to
// elem's type when it differs.
func elemArg(c *Call, i int, elem types.Type) bool {
	if !comparableTypes(c.Args[i].Type(), elem) {
		return false
	}
	if c.Args[i].Type().Kind != types.KindNull && !c.Args[i].Type().Nullable().Equal(elem.Nullable()) {
		t, ok := leastRestrictive(elem, c.Args[i].Type())
		if !ok {
			return false
		}
		c.Args[i] = coerce(c.Args[i], t)
	}
	return true
}

// equalOrBothNull reports whether a and b are the same value or both NULL.
func equalOrBothNull(cmp func(a, b types.Value) int, a, b types.Value) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	return cmp(a, b) == 0
}

var checkArrayContains = checkArrayFn(func(c *Call, elem types.Type) (types.Type, bool) {
	if len(c.Args) != 2 || !elemArg(c, 1, elem) {
		return types.Type{}, false
	}
	return withNull(types.Boolean(), c.Args[0].Type().NotNull), true
})

// buildArrayContains reports whether the array holds the value (a NULL
// value finds a NULL element).
func buildArrayContains(b *builder, c *Call, a []evalFn) (evalFn, error) {
	cmp := types.Comparator(*c.Args[0].Type().Elem)
	arr, x := a[0], a[1]
	return func(row []types.Value) (types.Value, error) {
		l, err := arr(row)
		if err != nil || l.IsNull() {
			return types.Value{}, err
		}
		v, err := x(row)
		if err != nil {
			return types.Value{}, err
		}
		for _, e := range l.List() {
			if equalOrBothNull(cmp, e, v) {
				return types.Bool(true), nil
			}
		}
		return types.Bool(false), nil
	}, nil
}

var checkArrayPosition = checkArrayFn(func(c *Call, elem types.Type) (types.Type, bool) {
	if len(c.Args) != 2 || !elemArg(c, 1, elem) {
		return types.Type{}, false
	}
	return withNull(types.Int(), allNotNull(c)), true
})

// buildArrayPosition gives the 1-based position of the first element
// equal to the value, 0 when there is none; NULL for a NULL value.
func buildArrayPosition(b *builder, c *Call, a []evalFn) (evalFn, error) {
	cmp := types.Comparator(*c.Args[0].Type().Elem)
	return strict2(a[0], a[1], func(l, v types.Value) (types.Value, error) {
		for i, e := range l.List() {
			if !e.IsNull() && cmp(e, v) == 0 {
				return types.Int64(int64(i + 1)), nil
			}
		}
		return types.Int64(0), nil
	}), nil
}

var checkArrayRemove = checkArrayFn(func(c *Call, elem types.Type) (types.Type, bool) {
	if len(c.Args) != 2 || !elemArg(c, 1, elem) {
		return types.Type{}, false
	}
	return c.Args[0].Type(), true
})

// buildArrayRemove drops every element equal to the value.
func buildArrayRemove(b *builder, c *Call, a []evalFn) (evalFn, error) {
	cmp := types.Comparator(*c.Args[0].Type().Elem)
	arr, x := a[0], a[1]
	return func(row []types.Value) (types.Value, error) {
		l, err := arr(row)
		if err != nil || l.IsNull() {
			return types.Value{}, err
		}
		v, err := x(row)
		if err != nil {
			return types.Value{}, err
		}
		in := l.List()
		out := make([]types.Value, 0, len(in))
		for _, e := range in {
			if !equalOrBothNull(cmp, e, v) {
				out = append(out, e)
			}
		}
		return types.List(out), nil
	}, nil
}

// checkSameArray accepts one ARRAY and returns its type.
var checkSameArray = checkArrayFn(func(c *Call, elem types.Type) (types.Type, bool) {
	return c.Args[0].Type(), len(c.Args) == 1
})

// buildArrayDistinct keeps the first of equal elements, in order.
func buildArrayDistinct(b *builder, c *Call, a []evalFn) (evalFn, error) {
	cmp := types.Comparator(*c.Args[0].Type().Elem)
	return strict1(a[0], func(l types.Value) (types.Value, error) {
		in := l.List()
		out := make([]types.Value, 0, len(in))
	next:
		for _, e := range in {
			for _, o := range out {
				if equalOrBothNull(cmp, e, o) {
					continue next
				}
			}
			out = append(out, e)
		}
		return types.List(out), nil
	}), nil
}

func buildArrayReverse(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict1(a[0], func(l types.Value) (types.Value, error) {
		in := l.List()
		out := make([]types.Value, len(in))
		for i, e := range in {
			out[len(in)-1-i] = e
		}
		return types.List(out), nil
	}), nil
}

var checkArrayMinMax = checkArrayFn(func(c *Call, elem types.Type) (types.Type, bool) {
	return elem.Nullable(), len(c.Args) == 1 && familyOf(elem) != famMap
})

// buildArrayMinMax gives the largest (max) or smallest element, ignoring
// NULL elements; NULL for an empty array.
func buildArrayMinMax(max bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		cmp := types.Comparator(*c.Args[0].Type().Elem)
		return strict1(a[0], func(l types.Value) (types.Value, error) {
			var best types.Value
			for _, e := range l.List() {
				if e.IsNull() {
					continue
				}
				if best.IsNull() || (cmp(e, best) > 0) == max && cmp(e, best) != 0 {
					best = e
				}
			}
			return best, nil
		}), nil
	}
}

var checkArraySlice = checkArrayFn(func(c *Call, elem types.Type) (types.Type, bool) {
	for _, x := range c.Args[1:] {
		if !x.Type().IsInteger() && x.Type().Kind != types.KindNull {
			return types.Type{}, false
		}
	}
	return withNull(c.Args[0].Type(), allNotNull(c)), len(c.Args) <= 3
})

// buildArraySlice returns the elements from start to end (1-based,
// inclusive; negative positions count from the end), end defaulting to
// the last element; an empty array when the range is empty.
func buildArraySlice(b *builder, c *Call, a []evalFn) (evalFn, error) {
	slice := func(in []types.Value, from, to int64) types.Value {
		n := int64(len(in))
		if from < 0 {
			from += n + 1
		}
		if to < 0 {
			to += n + 1
		}
		if from == 0 {
			from = 1
		}
		if to > n {
			to = n
		}
		if from < 1 || from > to {
			return types.List([]types.Value{})
		}
		return types.List(in[from-1 : to : to])
	}
	if len(a) == 2 {
		return strict2(a[0], a[1], func(l, from types.Value) (types.Value, error) {
			return slice(l.List(), from.Int64(), int64(len(l.List()))), nil
		}), nil
	}
	return strict3(a[0], a[1], a[2], func(l, from, to types.Value) (types.Value, error) {
		return slice(l.List(), from.Int64(), to.Int64()), nil
	}), nil
}

// checkArrayConcat accepts ARRAYs of a common element type.
func checkArrayConcat(c *Call) (types.Type, error) {
	ts := argTypes(c)
	for _, t := range ts {
		if t.Kind != types.KindArray {
			return types.Type{}, errArgs
		}
	}
	t, ok := leastRestrictive(ts...)
	if !ok {
		return types.Type{}, errArgs
	}
	coerceArgs(c, t)
	return withNull(t, allNotNull(c)), nil
}

func buildArrayConcat(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strictN(a, func(xs []types.Value) (types.Value, error) {
		n := 0
		for _, x := range xs {
			n += len(x.List())
		}
		out := make([]types.Value, 0, n)
		for _, x := range xs {
			out = append(out, x.List()...)
		}
		return types.List(out), nil
	}), nil
}

var checkArrayJoin = checkArrayFn(func(c *Call, elem types.Type) (types.Type, bool) {
	if !elem.IsString() || len(c.Args) > 3 {
		return types.Type{}, false
	}
	for _, x := range c.Args[1:] {
		if !is(x.Type(), famString) {
			return types.Type{}, false
		}
	}
	return withNull(types.String(), c.Args[0].Type().NotNull && c.Args[1].Type().NotNull), true
})

// buildArrayJoin joins the string elements with the delimiter; NULL
// elements are skipped, or replaced by the third argument when given.
func buildArrayJoin(b *builder, c *Call, a []evalFn) (evalFn, error) {
	join := func(l types.Value, delim string, repl *string) types.Value {
		var sb strings.Builder
		first := true
		for _, e := range l.List() {
			s := ""
			if e.IsNull() {
				if repl == nil {
					continue
				}
				s = *repl
			} else {
				s = e.Str()
			}
			if !first {
				sb.WriteString(delim)
			}
			first = false
			sb.WriteString(s)
		}
		return types.Str(sb.String())
	}
	if len(a) == 2 {
		return strict2(a[0], a[1], func(l, d types.Value) (types.Value, error) {
			return join(l, d.Str(), nil), nil
		}), nil
	}
	return func(row []types.Value) (types.Value, error) {
		l, err := a[0](row)
		if err != nil || l.IsNull() {
			return types.Value{}, err
		}
		d, err := a[1](row)
		if err != nil || d.IsNull() {
			return types.Value{}, err
		}
		r, err := a[2](row)
		if err != nil {
			return types.Value{}, err
		}
		if r.IsNull() {
			return join(l, d.Str(), nil), nil
		}
		s := r.Str()
		return join(l, d.Str(), &s), nil
	}, nil
}

// checkMapPart accepts a MAP and returns the ARRAY of its keys (keys) or
// values.
func checkMapPart(keys bool) func(c *Call) (types.Type, error) {
	return func(c *Call) (types.Type, error) {
		t := c.Args[0].Type()
		if t.Kind != types.KindMap {
			return types.Type{}, errArgs
		}
		part := *t.Value
		if keys {
			part = *t.Elem
		}
		return withNull(types.Array(part), t.NotNull), nil
	}
}

// buildMapPart returns a MAP's keys or values in the map's order.
func buildMapPart(keys bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		return strict1(a[0], func(m types.Value) (types.Value, error) {
			md := m.Map()
			if md == nil {
				return types.List([]types.Value{}), nil
			}
			part := md.Values
			if keys {
				part = md.Keys
			}
			return types.List(append([]types.Value(nil), part...)), nil
		}), nil
	}
}

var checkArrayAppend = checkArrayFn(func(c *Call, elem types.Type) (types.Type, bool) {
	if len(c.Args) != 2 || !comparableTypes(c.Args[1].Type(), elem) {
		return types.Type{}, false
	}
	// The element must fit the array's element type: Flink refuses
	// ARRAY_APPEND(ARRAY[1], CAST(2 AS BIGINT)).
	et := elem
	if vt := c.Args[1].Type(); vt.Kind != types.KindNull {
		common, ok := leastRestrictive(elem, vt)
		if !ok || !common.Nullable().Equal(elem.Nullable()) {
			return types.Type{}, false
		}
		et = withNull(elem, elem.NotNull && vt.NotNull)
	} else {
		et = elem.Nullable()
	}
	c.Args[0] = coerce(c.Args[0], types.Array(et))
	c.Args[1] = coerce(c.Args[1], et)
	return withNull(types.Array(et), allNotNull(c)), true
})

// buildArrayAppend adds the element at the end (append) or the front.
func buildArrayAppend(appendAtEnd bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		return func(row []types.Value) (types.Value, error) {
			l, err := a[0](row)
			if err != nil || l.IsNull() {
				return types.Value{}, err
			}
			v, err := a[1](row)
			if err != nil {
				return types.Value{}, err
			}
			in := l.List()
			out := make([]types.Value, 0, len(in)+1)
			if !appendAtEnd {
				out = append(out, v)
			}
			out = append(out, in...)
			if appendAtEnd {
				out = append(out, v)
			}
			return types.List(out), nil
		}, nil
	}
}

// setOp names ARRAY_UNION, ARRAY_EXCEPT and ARRAY_INTERSECT.
type setOp int

const (
	setUnion setOp = iota
	setExcept
	setIntersect
)

// buildArraySetOp combines two arrays as sets: each result element once,
// in the order of its first occurrence (the first array's, then the
// second's for a union). NULL elements count as one value.
func buildArraySetOp(op setOp) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		cmp := types.Comparator(*c.Type().Elem)
		has := func(l []types.Value, v types.Value) bool {
			for _, e := range l {
				if equalOrBothNull(cmp, e, v) {
					return true
				}
			}
			return false
		}
		return strict2(a[0], a[1], func(x, y types.Value) (types.Value, error) {
			xs, ys := x.List(), y.List()
			out := make([]types.Value, 0, len(xs))
			add := func(v types.Value) {
				if !has(out, v) {
					out = append(out, v)
				}
			}
			for _, v := range xs {
				switch op {
				case setUnion:
					add(v)
				case setExcept:
					if !has(ys, v) {
						add(v)
					}
				case setIntersect:
					if has(ys, v) {
						add(v)
					}
				}
			}
			if op == setUnion {
				for _, v := range ys {
					add(v)
				}
			}
			return types.List(out), nil
		}), nil
	}
}

// checkArrayPair accepts two ARRAYs of a common element type.
func checkArrayPair(c *Call) (types.Type, error) {
	if len(c.Args) != 2 {
		return types.Type{}, errArgs
	}
	return checkArrayConcat(c)
}

var checkArraySort = checkArrayFn(func(c *Call, elem types.Type) (types.Type, bool) {
	for _, x := range c.Args[1:] {
		if x.Type().Kind != types.KindBoolean && x.Type().Kind != types.KindNull {
			return types.Type{}, false
		}
	}
	return withNull(c.Args[0].Type(), allNotNull(c)), familyOf(elem) != famMap
})

// buildArraySort sorts the elements, ascending unless the second argument
// is FALSE; NULL elements go first when ascending and last when
// descending, unless the third argument says where (TRUE: first).
func buildArraySort(b *builder, c *Call, a []evalFn) (evalFn, error) {
	cmp := types.Comparator(*c.Args[0].Type().Elem)
	return strictN(a, func(xs []types.Value) (types.Value, error) {
		asc := len(xs) < 2 || xs[1].Bool()
		nullsFirst := asc
		if len(xs) == 3 {
			nullsFirst = xs[2].Bool()
		}
		in := xs[0].List()
		out := make([]types.Value, len(in))
		copy(out, in)
		slices.SortStableFunc(out, func(x, y types.Value) int {
			switch {
			case x.IsNull() && y.IsNull():
				return 0
			case x.IsNull():
				if nullsFirst {
					return -1
				}
				return 1
			case y.IsNull():
				if nullsFirst {
					return 1
				}
				return -1
			}
			if asc {
				return cmp(x, y)
			}
			return cmp(y, x)
		})
		return types.List(out), nil
	}), nil
}

func checkMapEntries(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if t.Kind != types.KindMap {
		return types.Type{}, errArgs
	}
	row := types.RowType(types.Field{Name: "key", Type: *t.Elem}, types.Field{Name: "value", Type: *t.Value}).Nullable()
	return withNull(types.Array(row), t.NotNull), nil
}

// buildMapEntries returns the ARRAY of ROW(key, value) of a MAP.
func buildMapEntries(b *builder, c *Call, a []evalFn) (evalFn, error) {
	return strict1(a[0], func(m types.Value) (types.Value, error) {
		md := m.Map()
		if md == nil {
			return types.List([]types.Value{}), nil
		}
		out := make([]types.Value, len(md.Keys))
		fields := make([]types.Value, 2*len(md.Keys))
		for i := range md.Keys {
			f := fields[2*i : 2*i+2 : 2*i+2]
			f[0], f[1] = md.Keys[i], md.Values[i]
			out[i] = types.List(f)
		}
		return types.List(out), nil
	}), nil
}

func checkMapFromArrays(c *Call) (types.Type, error) {
	kt, ok1 := arrayElem(c.Args[0])
	vt, ok2 := arrayElem(c.Args[1])
	if !ok1 || !ok2 {
		return types.Type{}, errArgs
	}
	return withNull(types.Map(kt, vt), allNotNull(c)), nil
}

var errMapFromArraysLengths = errors.New("the keys array and the values array have different lengths")

// buildMapFromArrays pairs keys with values; a later key replaces an
// earlier equal one. Arrays of different lengths are an error.
func buildMapFromArrays(b *builder, c *Call, a []evalFn) (evalFn, error) {
	cmp := types.Comparator(*c.Args[0].Type().Elem)
	text := c.String()
	return strict2(a[0], a[1], func(k, v types.Value) (types.Value, error) {
		ks, vs := k.List(), v.List()
		if len(ks) != len(vs) {
			return types.Value{}, &EvalError{Expr: text, Err: errMapFromArraysLengths}
		}
		m := &types.MapData{Keys: make([]types.Value, 0, len(ks)), Values: make([]types.Value, 0, len(ks))}
		for i, key := range ks {
			mapPut(m, cmp, key, vs[i])
		}
		return types.MapValue(m), nil
	}), nil
}

// mapPut sets key to val, replacing the value of an equal key.
func mapPut(m *types.MapData, cmp func(a, b types.Value) int, key, val types.Value) {
	for i, k := range m.Keys {
		if equalOrBothNull(cmp, k, key) {
			m.Values[i] = val
			return
		}
	}
	m.Keys = append(m.Keys, key)
	m.Values = append(m.Values, val)
}

// checkMapUnion accepts MAPs of a common type.
func checkMapUnion(c *Call) (types.Type, error) {
	ts := argTypes(c)
	for _, t := range ts {
		if t.Kind != types.KindMap && t.Kind != types.KindNull {
			return types.Type{}, errArgs
		}
	}
	t, ok := leastRestrictive(ts...)
	if !ok || t.Kind != types.KindMap {
		return types.Type{}, errArgs
	}
	coerceArgs(c, t)
	return withNull(t, allNotNull(c)), nil
}

// buildMapUnion merges the maps; a later map's value wins for an equal
// key.
func buildMapUnion(b *builder, c *Call, a []evalFn) (evalFn, error) {
	cmp := types.Comparator(*c.Type().Elem)
	return strictN(a, func(xs []types.Value) (types.Value, error) {
		m := &types.MapData{}
		for _, x := range xs {
			if md := x.Map(); md != nil {
				for i, k := range md.Keys {
					mapPut(m, cmp, k, md.Values[i])
				}
			}
		}
		return types.MapValue(m), nil
	}), nil
}
