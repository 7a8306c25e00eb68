package expr

import (
	"fmt"
	"regexp"
	"sync/atomic"

	"github.com/streamsql/streamsql/internal/sqlregex"
	"github.com/streamsql/streamsql/types"
)

// BETWEEN SYMMETRIC and SIMILAR TO.

// ---- BETWEEN SYMMETRIC ----

// tri is a three-valued boolean: triFalse, triTrue or triNull.
type tri uint8

const (
	triFalse tri = iota
	triTrue
	triNull
)

func triAnd(a, b tri) tri {
	switch {
	case a == triFalse || b == triFalse:
		return triFalse
	case a == triNull || b == triNull:
		return triNull
	}
	return triTrue
}

func triOr(a, b tri) tri {
	switch {
	case a == triTrue || b == triTrue:
		return triTrue
	case a == triNull || b == triNull:
		return triNull
	}
	return triFalse
}

// buildBetweenSymmetric: as in Calcite's convertlet (which Flink uses),
// x BETWEEN SYMMETRIC a AND b is
//
//	(x >= a AND x <= b) OR (x >= b AND x <= a)
//
// with SQL's three-valued AND and OR. With one NULL bound one of the
// halves is always NULL and the other FALSE or NULL, so the result is NULL
// (5 BETWEEN SYMMETRIC NULL AND 1 is NULL, not FALSE). NOT BETWEEN
// SYMMETRIC negates the whole (NULL stays NULL).
func buildBetweenSymmetric(negated bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, args []evalFn) (evalFn, error) {
		ct, _ := commonType(argTypes(c)...)
		cmp := types.Comparator(ct)
		x, lo, hi := args[0], args[1], args[2]
		// ge and le compare with NULL propagation.
		ge := func(v, w types.Value) tri {
			switch {
			case v.IsNull() || w.IsNull():
				return triNull
			case cmp(v, w) >= 0:
				return triTrue
			}
			return triFalse
		}
		return func(row []types.Value) (types.Value, error) {
			v, err := x(row)
			if err != nil {
				return v, err
			}
			l, err := lo(row)
			if err != nil {
				return l, err
			}
			h, err := hi(row)
			if err != nil {
				return h, err
			}
			r := triOr(triAnd(ge(v, l), ge(h, v)), triAnd(ge(v, h), ge(l, v)))
			switch r {
			case triNull:
				return types.Value{}, nil
			case triTrue:
				return types.Bool(!negated), nil
			}
			return types.Bool(negated), nil
		}, nil
	}
}

// ---- SIMILAR TO ----

// similarRegexp compiles a SIMILAR TO pattern with its optional escape
// (hasEscape reports whether ESCAPE was given). Errors wrap
// ErrInvalidArgument; Flink raises them too, for each row whose arguments
// are not NULL.
func similarRegexp(pattern, escape string, hasEscape bool) (*regexp.Regexp, error) {
	re, err := sqlregex.Similar(pattern, escape, hasEscape)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	return re, nil
}

// similarEntry is the last pattern a non-constant SIMILAR TO compiled.
type similarEntry struct {
	pattern, escape string
	re              *regexp.Regexp
	err             error
}

// buildSimilar: NULL in any argument gives NULL. A constant pattern (and
// escape) is compiled once, when the program is built; an invalid one
// fails each row whose value is not NULL, as in Flink. A pattern from the
// row is compiled when it differs from the previous row's (one entry,
// swapped atomically, so that programs stay safe for concurrent use).
func buildSimilar(negated bool) func(*builder, *Call, []evalFn) (evalFn, error) {
	return func(b *builder, c *Call, a []evalFn) (evalFn, error) {
		hasEscape := len(a) == 3
		escConst := !hasEscape || isConstant(c.Args[2])
		if isConstant(c.Args[1]) && escConst {
			p, err := a[1](nil)
			if err != nil {
				return nil, err
			}
			e := types.Value{}
			if hasEscape {
				if e, err = a[2](nil); err != nil {
					return nil, err
				}
			}
			if p.IsNull() || (hasEscape && e.IsNull()) {
				return constFn(types.Value{}), nil
			}
			re, reErr := similarRegexp(p.Str(), e.Str(), hasEscape)
			return strict1(a[0], func(s types.Value) (types.Value, error) {
				if reErr != nil {
					return types.Value{}, reErr
				}
				return types.Bool(re.MatchString(s.Str()) != negated), nil
			}), nil
		}
		var last atomic.Pointer[similarEntry]
		match := func(s, p, e string) (types.Value, error) {
			ent := last.Load()
			if ent == nil || ent.pattern != p || ent.escape != e {
				re, err := similarRegexp(p, e, hasEscape)
				ent = &similarEntry{pattern: p, escape: e, re: re, err: err}
				last.Store(ent)
			}
			if ent.err != nil {
				return types.Value{}, ent.err
			}
			return types.Bool(ent.re.MatchString(s) != negated), nil
		}
		if !hasEscape {
			return strict2(a[0], a[1], func(s, p types.Value) (types.Value, error) {
				return match(s.Str(), p.Str(), "")
			}), nil
		}
		return strict3(a[0], a[1], a[2], func(s, p, e types.Value) (types.Value, error) {
			return match(s.Str(), p.Str(), e.Str())
		}), nil
	}
}
