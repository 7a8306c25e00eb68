package planner

import (
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// INTERSECT and EXCEPT (DISTINCT, the default) are planned as Flink's
// rewrite rules plan them (ReplaceIntersectWithSemiJoinRule,
// ReplaceMinusWithAntiJoinRule): a semi join (INTERSECT) or anti join
// (EXCEPT) of the left input with the right one on every column, NULL
// matching NULL (IS NOT DISTINCT FROM), then the distinct rows of its
// result. The result has the left input's column names.

//
// INTERSECT ALL and EXCEPT ALL are planned as Flink's RewriteIntersectAllRule
// and RewriteMinusAllRule plan them: the rows of both inputs, each with a
// marker of its side, counted per distinct row by a GROUP BY of every
// column, then each row replicated (Unnest.Replicate) as many times as
// the fewer of its two counts (INTERSECT ALL) or the left count minus the
// right one (EXCEPT ALL); none when that is not positive. The counts are
// updated as rows come and go, and the replicated rows carry the update's
// kind: a row whose count goes from 2 to 3 is retracted twice and added
// three times, as Flink's replicate-rows table function does.

// setOpInputs resolves the two inputs of q and returns them with the types
// of the result's columns (each the two inputs' common type).
func (p *planner) setOpInputs(q *ddl.SetOp, depth int) (left, right *relation, common []types.Type, err error) {
	if left, err = p.resolveQuery(q.Left, depth); err != nil {
		return nil, nil, nil, err
	}
	if right, err = p.resolveQuery(q.Right, depth); err != nil {
		return nil, nil, nil, err
	}
	what := q.Kind.String()
	if q.All {
		what += " ALL"
	}
	if len(left.names) != len(right.names) {
		return nil, nil, nil, p.f.errorAt(q.Pos, ErrType, nil, fmt.Sprintf("the inputs of %s have %d and %d columns; they must have the same number",
			what, len(left.names), len(right.names)))
	}
	for i := range left.names {
		t, ok := commonType(left.types[i], right.types[i])
		if !ok {
			return nil, nil, nil, p.f.errorAt(q.Pos, ErrType, nil, fmt.Sprintf("column %d ('%s') of %s is %s on the left and %s on the right, which have no common type",
				i+1, left.names[i], what, left.types[i], right.types[i]))
		}
		common = append(common, t)
	}
	return left, right, common, nil
}

// resolveIntersectExcept resolves q, INTERSECT or EXCEPT without ALL.
func (p *planner) resolveIntersectExcept(q *ddl.SetOp, depth int) (*relation, error) {
	left, right, _, err := p.setOpInputs(q, depth)
	if err != nil {
		return nil, err
	}
	what := q.Kind.String()
	nl := len(left.names)
	var conds []expr.Expr
	for i := range left.names {
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

// resolveSetOpAll resolves q, INTERSECT ALL or EXCEPT ALL.
func (p *planner) resolveSetOpAll(q *ddl.SetOp, depth int) (*relation, error) {
	left, right, common, err := p.setOpInputs(q, depth)
	if err != nil {
		return nil, err
	}
	n := len(common)
	if nb := len(left.branches) + len(right.branches); nb > maxUnionInputs {
		return nil, p.f.errorAt(q.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
			"%s ALL of more than %d inputs (counting those of the views it reads) is not supported", q.Kind, maxUnionInputs))
	}
	// The markers, as Flink's rules write them: INTERSECT ALL counts a
	// BOOLEAN per side (TRUE on its side, NULL on the other); EXCEPT ALL
	// sums 1 for a left row and -1 for a right one.
	var markers [2][]expr.Expr
	var calls []agg.Call
	intersect := q.Kind == ddl.Intersect
	if intersect {
		b := types.Boolean()
		yes, no := expr.Lit(b, types.Bool(true)), expr.Lit(b, types.Value{})
		markers = [2][]expr.Expr{{yes, no}, {no, yes}}
		for i := range 2 {
			res, err := agg.ResultType(agg.Count, b, true)
			if err != nil {
				return nil, err
			}
			calls = append(calls, agg.Call{Func: agg.Count, Arg: n + i, ArgType: b, Filter: -1, Result: res})
		}
	} else {
		b := types.BigInt().NotNullable()
		markers = [2][]expr.Expr{{expr.Lit(b, types.Int64(1))}, {expr.Lit(b, types.Int64(-1))}}
		res, err := agg.ResultType(agg.Sum, b, true)
		if err != nil {
			return nil, err
		}
		calls = append(calls, agg.Call{Func: agg.Sum, Arg: n, ArgType: b, Filter: -1, Result: res})
	}
	names := slices.Clone(left.names)
	node := &Node{Kind: GroupAggregate, Pos: q.Pos, Names: slices.Clone(names), Types: slices.Clone(common)}
	inNames := slices.Clone(names)
	for i := range len(markers[0]) {
		inNames = append(inNames, fmt.Sprintf("$marker%d", i))
	}
	for side, rel := range [2]*relation{left, right} {
		for _, b := range rel.branches {
			fl := &Flow{Source: b.src, Unnest: b.unnest, Filter: and(b.filters), Names: inNames}
			for i, c := range b.cols {
				e, err := p.assignTo(c, common[i], q.Pos)
				if err != nil {
					return nil, err
				}
				fl.Projection = append(fl.Projection, e)
			}
			fl.Projection = append(fl.Projection, markers[side]...)
			if err := p.checkCompiles(fl, nil, q.Pos); err != nil {
				return nil, err
			}
			fl.ReadFields, fl.ReadRows = readFields(fl)
			node.Inputs = append(node.Inputs, fl)
		}
	}
	spec := &agg.Spec{TTL: p.plan.StateTTL, MiniBatch: p.plan.MiniBatch, Calls: calls}
	for i, t := range common {
		spec.Keys = append(spec.Keys, i)
		spec.KeyTypes = append(spec.KeyTypes, t)
	}
	for i, c := range calls {
		node.Names = append(node.Names, fmt.Sprintf("$count%d", i))
		node.Types = append(node.Types, c.Result)
	}
	node.Agg, node.Keys = spec, spec.Keys
	what := "the left and right rows"
	if !intersect {
		what = "the left rows less the right ones"
	}
	var callNames []string
	for i, c := range calls {
		callNames = append(callNames, fmt.Sprintf("%s($marker%d)", c.Func, i))
	}
	node.Describe = fmt.Sprintf("GroupAggregate(%s) (%s ALL: counting %s of each row)", describeCalls(names, calls, callNames), q.Kind, what)

	// The output: each row as many times as the count says.
	count := expr.Expr(expr.Col(n, node.Names[n], node.Types[n]))
	if intersect {
		if count, err = expr.Resolve(expr.Fn("LEAST", count, expr.Col(n+1, node.Names[n+1], node.Types[n+1]))); err != nil {
			return nil, err
		}
	}
	src := &Source{Pos: q.Pos, Node: node, RowTypes: node.Types}
	nb := &branch{src: src, unnest: []*Unnest{{Array: count, Width: len(node.Types), Replicate: true}}}
	for i, name := range names {
		nb.cols = append(nb.cols, expr.Col(i, name, common[i]))
	}
	return &relation{names: names, pos: slices.Clone(left.pos), types: common, branches: []*branch{nb}}, nil
}
