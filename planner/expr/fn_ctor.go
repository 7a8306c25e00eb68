package expr

import (
	"fmt"
	"strconv"

	"github.com/streamsql/streamsql/types"
)

// Value constructors and the functions on collections: ARRAY[...],
// MAP[...], ROW(...), CARDINALITY and ELEMENT.
//
// The typing rules are Flink 1.20's (checked by the golden cases
// "more/ctor/..."):
//
//   - ARRAY[e1, ...] needs at least one element; the element type is the
//     least restrictive common type of the elements (the rule CASE uses,
//     see leastRestrictive), nullable when an element is; the array itself
//     is NOT NULL. Elements that are all untyped NULL have no type: an
//     error.
//   - MAP[k1, v1, ...] needs a positive even number of arguments; the key
//     and the value types are the common types of the keys and of the
//     values. When a key is given twice (NULL keys included) the later
//     entry replaces the earlier one, as in Flink. Entries keep the order
//     of their arguments (a repeated key takes its later position); the
//     order is not observable in SQL, and Flink's CAST(map AS STRING)
//     prints entries in an order that changes between runs.
//   - ROW(e1, ...) (and (e1, e2, ...)) keeps each element's type; its fields
//     are named EXPR$0, EXPR$1, ... An untyped NULL element is an error.
//
// Evaluation allocates only the constructed value: for ARRAY and ROW the
// element slice and the slice header [types.List] boxes; for MAP one slice
// holding keys and values, and the MapData.

// ctorError reports a constructor whose arguments Flink refuses, saying
// why.
func ctorError(c *Call, why string) error {
	return &ArgumentError{Function: c.Name, Given: argTypes(c), Expected: c.fn.expected + " " + why}
}

// commonOf returns the common type of the arguments of c at positions
// from, from+step, ..., casting them to it. what names them in errors.
func commonOf(c *Call, from, step int, what string) (types.Type, error) {
	var ts []types.Type
	for i := from; i < len(c.Args); i += step {
		ts = append(ts, c.Args[i].Type())
	}
	t, ok := leastRestrictive(ts...)
	if !ok {
		return types.Type{}, ctorError(c, "with "+what+" of types that have a common type")
	}
	if t.Kind == types.KindNull {
		return types.Type{}, ctorError(c, "with "+what+" that are not all untyped NULL (CAST a NULL to the type wanted)")
	}
	for i := from; i < len(c.Args); i += step {
		c.Args[i] = coerce(c.Args[i], t)
	}
	return t, nil
}

func checkArray(c *Call) (types.Type, error) {
	if len(c.Args) == 0 {
		return types.Type{}, ctorError(c, "with at least one element (Flink has no empty ARRAY[])")
	}
	et, err := commonOf(c, 0, 1, "elements")
	if err != nil {
		return types.Type{}, err
	}
	return types.Array(et).NotNullable(), nil
}

func checkMap(c *Call) (types.Type, error) {
	if len(c.Args) == 0 || len(c.Args)%2 != 0 {
		return types.Type{}, ctorError(c, "with a positive, even number of arguments: keys and values alternate")
	}
	kt, err := commonOf(c, 0, 2, "keys")
	if err != nil {
		return types.Type{}, err
	}
	vt, err := commonOf(c, 1, 2, "values")
	if err != nil {
		return types.Type{}, err
	}
	return types.Map(kt, vt).NotNullable(), nil
}

// rowFieldName is the name Flink gives field i of ROW(...): EXPR$i.
func rowFieldName(i int) string { return "EXPR$" + strconv.Itoa(i) }

func checkRow(c *Call) (types.Type, error) {
	if len(c.Args) == 0 {
		return types.Type{}, ctorError(c, "with at least one field")
	}
	fields := make([]types.Field, len(c.Args))
	for i, a := range c.Args {
		t := a.Type()
		if t.Kind == types.KindNull {
			return types.Type{}, ctorError(c, "without an untyped NULL field (CAST it to the field's type)")
		}
		fields[i] = types.Field{Name: rowFieldName(i), Type: t}
	}
	return types.RowType(fields...).NotNullable(), nil
}

// buildList evaluates ARRAY[...] and ROW(...): a new slice of the
// (already coerced) arguments.
func buildList(b *builder, c *Call, args []evalFn) (evalFn, error) {
	ops := make([]operand, len(args))
	for i := range args {
		ops[i] = b.operandOf(c.Args[i], args[i])
	}
	return func(row []types.Value) (types.Value, error) {
		out := make([]types.Value, len(ops))
		for i := range ops {
			v, err := ops[i].read(row)
			if err != nil {
				return types.Value{}, err
			}
			out[i] = v
		}
		return types.List(out), nil
	}, nil
}

// buildMap evaluates MAP[...]. When a key is given twice the later entry
// replaces the earlier one, as in Flink; when every key is a distinct
// constant the check is skipped.
func buildMap(b *builder, c *Call, args []evalFn) (evalFn, error) {
	n := len(args) / 2
	keys, vals := make([]operand, n), make([]operand, n)
	for i := range n {
		keys[i] = b.operandOf(c.Args[2*i], args[2*i])
		vals[i] = b.operandOf(c.Args[2*i+1], args[2*i+1])
	}
	cmp := types.Comparator(*c.typ.Elem)
	dedup := false
	for i := range keys {
		if !keys[i].konst && !isConstant(c.Args[2*i]) {
			dedup = true
			break
		}
	}
	if !dedup {
		// Constant keys: compare them once here.
		kv := make([]types.Value, n)
		for i := range keys {
			v, err := keys[i].read(nil)
			if err != nil {
				dedup = true
				break
			}
			kv[i] = v
		}
		for i := 0; i < n && !dedup; i++ {
			for j := 0; j < i; j++ {
				if types.NullsFirst(kv[i], kv[j], cmp) == 0 {
					dedup = true
					break
				}
			}
		}
	}
	return func(row []types.Value) (types.Value, error) {
		buf := make([]types.Value, 2*n)
		ks, vs := buf[:0:n], buf[n:n:2*n]
		for i := range keys {
			k, err := keys[i].read(row)
			if err != nil {
				return types.Value{}, err
			}
			v, err := vals[i].read(row)
			if err != nil {
				return types.Value{}, err
			}
			if dedup {
				if j := indexOfKey(ks, k, cmp); j >= 0 {
					// The later entry replaces the earlier one.
					ks = append(ks[:j], ks[j+1:]...)
					vs = append(vs[:j], vs[j+1:]...)
				}
			}
			ks = append(ks, k)
			vs = append(vs, v)
		}
		return types.MapValue(&types.MapData{Keys: ks, Values: vs}), nil
	}, nil
}

// indexOfKey returns the position of k in keys (NULL matches NULL), or -1.
func indexOfKey(keys []types.Value, k types.Value, cmp func(a, b types.Value) int) int {
	for j, x := range keys {
		if types.NullsFirst(x, k, cmp) == 0 {
			return j
		}
	}
	return -1
}

func checkCardinality(c *Call) (types.Type, error) {
	switch c.Args[0].Type().Kind {
	case types.KindArray, types.KindMap, types.KindMultiset:
		return withNull(types.Int(), c.Args[0].Type().NotNull), nil
	}
	return types.Type{}, errArgs
}

func buildCardinality(b *builder, c *Call, args []evalFn) (evalFn, error) {
	if c.Args[0].Type().Kind == types.KindArray {
		return unop(b.operandOf(c.Args[0], args[0]), func(v types.Value) (types.Value, error) {
			return types.Int64(int64(len(v.List()))), nil
		}), nil
	}
	if c.Args[0].Type().Kind == types.KindMultiset {
		// A MULTISET maps each element to its count; its cardinality
		// counts duplicates.
		return unop(b.operandOf(c.Args[0], args[0]), func(v types.Value) (types.Value, error) {
			n := int64(0)
			if m := v.Map(); m != nil {
				for _, cnt := range m.Values {
					n += cnt.Int64()
				}
			}
			return types.Int64(int64(int32(n))), nil
		}), nil
	}
	return unop(b.operandOf(c.Args[0], args[0]), func(v types.Value) (types.Value, error) {
		m := v.Map()
		if m == nil {
			return types.Int64(0), nil
		}
		return types.Int64(int64(m.Len())), nil
	}), nil
}

// checkElement types ELEMENT(arr): the element type, nullable when the
// array is (an empty array gives NULL).
func checkElement(c *Call) (types.Type, error) {
	a := c.Args[0].Type()
	if a.Kind != types.KindArray {
		return types.Type{}, errArgs
	}
	return withNull(*a.Elem, a.Elem.NotNull && a.NotNull), nil
}

// buildElement: the only element of the array, NULL when it is empty and
// an error when it has more than one (Flink's ELEMENT).
func buildElement(b *builder, c *Call, args []evalFn) (evalFn, error) {
	return unop(b.operandOf(c.Args[0], args[0]), func(v types.Value) (types.Value, error) {
		l := v.List()
		switch len(l) {
		case 0:
			return types.Value{}, nil
		case 1:
			return l[0], nil
		}
		return types.Value{}, fmt.Errorf("%w: ELEMENT of an array of %d elements; it must have at most one", ErrInvalidArgument, len(l))
	}), nil
}
