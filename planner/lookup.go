package planner

import (
	"fmt"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/ops/lookup"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// This file plans lookup joins: FROM s JOIN t FOR SYSTEM_TIME AS OF
// s.proc_time AS t ON s.k = t.k, where s.proc_time is a processing-time
// attribute and t a table whose connector can look rows up by key
// (factory.ConnectorFactory.Lookup: jdbc). Each row of s is joined with
// the rows of t its key finds when the row arrives; t is not a stream
// here but an external table, so the node has one input. ON's equalities
// of t's columns with s are the lookup key (at least one is needed); the
// rest is the residual condition, applied to the looked-up rows. The
// table's lookup.* options configure the cache and retries, and
// table.exec.async-lookup.* how many lookups a task keeps in flight.

// The settings of lookup joins.
const (
	// SettingAsyncLookupCapacity is table.exec.async-lookup.buffer-capacity:
	// the lookups a lookup join task keeps in flight.
	SettingAsyncLookupCapacity = "table.exec.async-lookup.buffer-capacity"
	// SettingAsyncLookupTimeout is table.exec.async-lookup.timeout.
	SettingAsyncLookupTimeout = "table.exec.async-lookup.timeout"
)

// Flink's defaults of the lookup settings.
const (
	defaultLookupCapacity = 100
	defaultLookupTimeout  = 3 * time.Minute
)

var (
	settingAsyncLookupCapacity = option.Int(SettingAsyncLookupCapacity).Default(defaultLookupCapacity).
					Description("The most lookups of a lookup join task in flight at once (the rows of one input batch are " +
			"looked up concurrently, up to this many, and emitted in their order).")
	settingAsyncLookupTimeout = option.Duration(SettingAsyncLookupTimeout).Default(defaultLookupTimeout).
					Description("How long one lookup of a lookup join may take before it fails (and is retried, " +
			"`lookup.max-retries` times).")
)

// LookupPlan configures a lookup join node (Node.Join.Lookup).
type LookupPlan struct {
	// Spec is the operator's spec but its lookup (Spec.Open), which
	// package job opens from Table's connector (a
	// connector.LookupSource).
	Spec lookup.Spec
	// Table is the looked-up table, as a source of the plan.
	Table *Source
	// Keys are the table's columns (indexes into its rows) that the
	// lookup key equates, in the order of Spec.Keys.
	Keys []int
	// sides are the operator's view of its input (0) and of the looked-up
	// rows (1), for pruning.
	sides [2]join.Side
}

// procAsOf reports whether the join's FOR SYSTEM_TIME AS OF reads a
// processing-time attribute of the left input: a lookup join.
func (jb *joinBuilder) procAsOf() bool {
	c, ok := jb.asOf.(*expr.ColumnRef)
	if !ok || c.Index >= jb.nl {
		return false
	}
	_, proc := jb.timeAttr(0, c.Index)
	return proc
}

// buildLookup makes the lookup join's node and the relation that reads
// it.
func (jb *joinBuilder) buildLookup(hints *queryHints) (*relation, error) {
	p, right := jb.p, jb.ins[1]
	pos := right.asOfPos
	if jb.typ != join.Inner && jb.typ != join.Left {
		return nil, p.f.errorAt(jb.j.Pos, ddl.ErrUnsupported, nil, "a lookup join is INNER or LEFT; "+jb.typ.String()+" is not supported")
	}
	rel := right.rel
	var src *Source
	if len(rel.branches) == 1 {
		src = rel.branches[0].src
	}
	name := "the right input"
	if len(right.names) > 0 {
		name = "'" + right.names[0] + "'"
	}
	if src == nil || src.Table == nil || src.Validated == nil || !src.Validated.Factory.Lookup {
		what := ""
		if src != nil && src.Table != nil {
			what = fmt.Sprintf(" (connector '%s')", src.Connector())
		}
		return nil, p.f.errorAt(pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
			"FOR SYSTEM_TIME AS OF a processing-time attribute is a lookup join, which needs a table a connector can look rows up in (jdbc); %s%s cannot", name, what))
	}
	// The table's columns as the lookup returns them: its row.
	tableCol := make([]int, len(rel.names))
	for i, e := range rel.branches[0].cols {
		c, ok := e.(*expr.ColumnRef)
		if !ok {
			return nil, p.f.errorAt(pos, ddl.ErrUnsupported, nil, fmt.Sprintf("the computed column '%s' of a lookup join's table is not supported yet", rel.names[i]))
		}
		tableCol[i] = c.Index
	}
	// The lookup key: equalities of a table column with the left input.
	lp := &LookupPlan{Table: src}
	left := jb.ins[0]
	var leftKeys []int
	var keyTypes []types.Type
	var keyText []string
	for k, pair := range jb.keys {
		rc, ok := pair[1].(*expr.ColumnRef)
		if !ok || jb.nullSafe[k] {
			// Not a lookup key: checked on each looked-up row.
			e, err := mapCols(pair[1], func(c *expr.ColumnRef) expr.Expr { return expr.Col(jb.nl+c.Index, c.Name, c.Typ) })
			if err != nil {
				return nil, p.f.errorAt(jb.j.Pos, ErrType, err, err.Error())
			}
			op := "="
			if jb.nullSafe[k] {
				op = "IS NOT DISTINCT FROM"
			}
			eq, err := expr.Resolve(expr.Fn(op, pair[0], e))
			if err != nil {
				return nil, p.f.errorAt(jb.j.Pos, ErrType, err, err.Error())
			}
			jb.residual = append(jb.residual, eq)
			continue
		}
		t := src.RowTypes[tableCol[rc.Index]].Nullable()
		if c, isCol := pair[0].(*expr.ColumnRef); isCol && c.Typ.Nullable().Equal(t) {
			leftKeys = append(leftKeys, c.Index)
		} else {
			ce, err := expr.AssignTo(pair[0], t)
			if err != nil {
				if ce, err = expr.Resolve(expr.CastTo(pair[0], t)); err != nil {
					return nil, p.f.errorAt(jb.j.Pos, ErrType, err, fmt.Sprintf("the lookup key %s cannot be compared as %s: %v", pair[0], t, err))
				}
			}
			leftKeys = append(leftKeys, jb.width(0)+len(left.hidden))
			left.hidden = append(left.hidden, ce)
		}
		lp.Keys = append(lp.Keys, tableCol[rc.Index])
		keyTypes = append(keyTypes, t)
		keyText = append(keyText, fmt.Sprintf("%s = %s", jb.describe(pair[0], 0), jb.describe(pair[1], 1)))
	}
	if len(lp.Keys) == 0 {
		return nil, p.f.errorAt(jb.j.Pos, ErrType, nil, fmt.Sprintf(
			"a lookup join needs an equality of a column of %s with the left input in ON: its rows are looked up by it", name))
	}
	node := &Node{Kind: LookupJoin, Pos: jb.j.Pos}
	wl, err := jb.flows(node, 0)
	if err != nil {
		return nil, err
	}
	fl := node.Inputs[0]
	jp := &JoinPlan{Type: jb.typ, Lookup: lp, keys: keyText}
	var leftTypes []types.Type
	for _, e := range fl.Projection {
		leftTypes = append(leftTypes, e.Type())
	}
	lp.sides[0] = join.Side{Types: leftTypes, Keys: leftKeys}
	lp.sides[1] = join.Side{Types: src.RowTypes}
	for i, t := range leftTypes {
		jp.names = append(jp.names, uniqueName(jp.names, fl.Names[i]))
		jp.types = append(jp.types, t)
	}
	for i, t := range src.RowTypes {
		n := fmt.Sprintf("$%d", i)
		if i < len(src.Schema.Columns) {
			n = src.Schema.Columns[i].Name
		}
		if jb.typ == join.Left {
			t = t.Nullable()
		}
		jp.names = append(jp.names, uniqueName(jp.names, n))
		jp.types = append(jp.types, t)
	}
	jp.leftWidth = len(leftTypes)
	node.Names, node.Types = jp.output()
	nodeCol := func(relCol int) int {
		if relCol < jb.nl {
			return relCol
		}
		return len(leftTypes) + tableCol[relCol-jb.nl]
	}
	if len(jb.residual) > 0 {
		cond, err := mapCols(and(jb.residual), func(c *expr.ColumnRef) expr.Expr {
			i := nodeCol(c.Index)
			t := leftTypes
			if i >= len(leftTypes) {
				return expr.Col(i, jp.names[i], src.RowTypes[i-len(leftTypes)])
			}
			return expr.Col(i, jp.names[i], t[i])
		})
		if err != nil {
			return nil, p.f.errorAt(jb.j.Pos, ErrType, err, err.Error())
		}
		jp.Condition = cond
	}
	opts := src.Validated.Config
	cache, err := option.LookupCacheOf(opts)
	if err != nil {
		return nil, p.f.errorAt(pos, ErrInvalidTable, err, fmt.Sprintf("table %s: %v", name, err))
	}
	capacity, timeout, err := p.lookupSettings()
	if err != nil {
		return nil, p.f.errorAt(jb.j.Pos, ErrInvalidSetting, err, err.Error())
	}
	lp.Spec = lookup.Spec{Left: jb.typ == join.Left, Keys: leftKeys, KeyTypes: keyTypes, Width: len(src.RowTypes),
		MaxRetries: option.LookupMaxRetries.Get(opts), Concurrency: capacity, Timeout: timeout, Table: src.Name()}
	if hints != nil {
		for _, n := range right.names {
			if h := hints.lookup[n]; h != nil {
				h.apply(&lp.Spec)
				h.used = true
			}
		}
	}
	if cache != nil {
		lp.Spec.Cache = &lookup.Cache{MaxRows: cache.MaxRows, ExpireAfterWrite: cache.ExpireAfterWrite,
			ExpireAfterAccess: cache.ExpireAfterAccess, CacheMissingKey: cache.CacheMissingKey}
	}
	if err := jp.compile(p.exprOptions()); err != nil {
		return nil, p.f.errorAt(jb.j.Pos, ErrType, err, err.Error())
	}
	node.Join = jp
	node.Describe = describeLookup(node, wl)

	out := &relation{}
	osrc := &Source{Pos: jb.j.Pos, Node: node, RowTypes: node.Types}
	b := &branch{src: osrc}
	for s, in := range jb.ins {
		for i, n := range in.rel.names {
			t := in.rel.types[i]
			if s == 1 && jb.typ == join.Left {
				t = t.Nullable()
			}
			out.names = append(out.names, n)
			out.types = append(out.types, t)
			out.pos = append(out.pos, in.rel.pos[i])
			out.colQuals = append(out.colQuals, in.rel.colQualsOf(i))
			nc := nodeCol(s*jb.nl + i)
			b.cols = append(b.cols, expr.Col(nc, node.Names[nc], node.Types[nc]))
		}
	}
	out.branches = []*branch{b}
	return out, nil
}

// lookupSettings reads table.exec.async-lookup.buffer-capacity and
// .timeout.
func (p *planner) lookupSettings() (int, time.Duration, error) {
	capacity, timeout := defaultLookupCapacity, defaultLookupTimeout
	if v, ok := p.plan.Settings[SettingAsyncLookupCapacity]; ok {
		n, err := settingAsyncLookupCapacity.Parse(v)
		if err == nil && n < 1 {
			err = fmt.Errorf("must be at least 1")
		}
		if err != nil {
			return 0, 0, fmt.Errorf("'%s' = '%s': %v", SettingAsyncLookupCapacity, v, err)
		}
		capacity = n
	}
	if v, ok := p.plan.Settings[SettingAsyncLookupTimeout]; ok {
		d, err := settingAsyncLookupTimeout.Parse(v)
		if err != nil {
			return 0, 0, fmt.Errorf("'%s' = '%s': %v", SettingAsyncLookupTimeout, v, err)
		}
		timeout = d
	}
	return capacity, timeout, nil
}

// describeLookup is a lookup join's EXPLAIN line.
func describeLookup(n *Node, _ int) string {
	lp := n.Join.Lookup
	parts := []string{"type=" + n.Join.Type.String(), "table=" + lp.Table.Name(), "keys=[" + strings.Join(n.Join.keys, ", ") + "]"}
	if n.Join.Condition != nil {
		parts = append(parts, "condition="+n.Join.Condition.String())
	}
	return fmt.Sprintf("%s(%s)", n.Kind, strings.Join(parts, ", "))
}

// explainLookup writes what EXPLAIN says of a lookup join below its line.
func (pl *Plan) explainLookup(b *strings.Builder, n *Node) {
	lp := n.Join.Lookup
	s := lp.Spec
	cache := "none: every row is looked up (lookup.cache = NONE)"
	if c := s.Cache; c != nil {
		var parts []string
		if c.MaxRows > 0 {
			parts = append(parts, fmt.Sprintf("max-rows %d", c.MaxRows))
		}
		if c.ExpireAfterWrite > 0 {
			parts = append(parts, "expire-after-write "+formatDuration(c.ExpireAfterWrite))
		}
		if c.ExpireAfterAccess > 0 {
			parts = append(parts, "expire-after-access "+formatDuration(c.ExpireAfterAccess))
		}
		parts = append(parts, fmt.Sprintf("cache-missing-key %v", c.CacheMissingKey))
		cache = "PARTIAL per task, " + strings.Join(parts, ", ")
	}
	fmt.Fprintf(b, "    input: each task looks its rows up (no exchange), up to %d lookups in flight, each within %s, retried %d times\n",
		s.Concurrency, formatDuration(s.Timeout), s.MaxRetries)
	if s.MissRetries > 0 {
		fmt.Fprintf(b, "    a key found missing is looked up again up to %d times, %s apart (LOOKUP hint)\n", s.MissRetries, formatDuration(s.MissDelay))
	}
	fmt.Fprintf(b, "    changelog: %s\n", n.Changelog)
	fmt.Fprintf(b, "    state: none; lookup cache: %s\n", cache)
}
