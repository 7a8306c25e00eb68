package planner

import (
	"fmt"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/planner/expr"
)

// INTERSECT and EXCEPT (DISTINCT, the default) are planned as Flink's
// rewrite rules plan them (ReplaceIntersectWithSemiJoinRule,
// ReplaceMinusWithAntiJoinRule): a semi join (INTERSECT) or anti join
// (EXCEPT) of the left input with the right one on every column, NULL
// matching NULL (IS NOT DISTINCT FROM), then the distinct rows of its
// result. The result has the left input's column names.

// resolveIntersectExcept resolves q, INTERSECT or EXCEPT without ALL.
func (p *planner) resolveIntersectExcept(q *ddl.SetOp, depth int) (*relation, error) {
	left, err := p.resolveQuery(q.Left, depth)
	if err != nil {
		return nil, err
	}
	right, err := p.resolveQuery(q.Right, depth)
	if err != nil {
		return nil, err
	}
	what := q.Kind.String()
	if len(left.names) != len(right.names) {
		return nil, p.f.errorAt(q.Pos, ErrType, nil, fmt.Sprintf("the inputs of %s have %d and %d columns; they must have the same number",
			what, len(left.names), len(right.names)))
	}
	nl := len(left.names)
	var conds []expr.Expr
	for i := range left.names {
		if _, ok := commonType(left.types[i], right.types[i]); !ok {
			return nil, p.f.errorAt(q.Pos, ErrType, nil, fmt.Sprintf("column %d ('%s') of %s is %s on the left and %s on the right, which have no common type",
				i+1, left.names[i], what, left.types[i], right.types[i]))
		}
		eq, err := expr.Resolve(expr.Fn("IS NOT DISTINCT FROM", expr.Col(i, left.names[i], left.types[i]), expr.Col(nl+i, right.names[i], right.types[i])))
		if err != nil {
			return nil, p.f.errorAt(q.Pos, ErrType, err, fmt.Sprintf("column %d ('%s') of %s: %v", i+1, left.names[i], what, err))
		}
		conds = append(conds, eq)
	}
	typ := join.Semi
	if q.Kind == ddl.Except {
		typ = join.Anti
	}
	j := &ddl.Join{Pos: q.Pos, Kind: ddl.JoinInner}
	jb := &joinBuilder{p: p, j: j, typ: typ, ins: [2]*joinInput{{rel: left}, {rel: right}}, nl: nl}
	if err := jb.classify(conds, false); err != nil {
		return nil, err
	}
	rel, err := jb.build(nil)
	if err != nil {
		return nil, err
	}
	return p.distinctRelation(rel, q.Pos)
}
