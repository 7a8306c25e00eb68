package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/ops/materialize"
	"github.com/streamsql/streamsql/ops/normalize"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// This file infers the changelog of every edge of a plan, as Flink's
// FlinkChangelogModeInferenceProgram does in two passes: bottom up, which
// row kinds each operator emits (a GROUP BY emits updates; a window
// aggregation only inserts), then top down, whether a consumer needs the
// UPDATE_BEFORE rows of an update (an operator that retracts, or a sink
// that prints the full changelog) — only then does a GROUP BY emit them —
// and whether the sink can take what arrives at all.

// RowKinds is a set of row kinds.
type RowKinds uint8

// The sets of row kinds a stream carries.
const (
	KindsInsert       RowKinds = 1 << types.Insert
	KindsUpdateBefore RowKinds = 1 << types.UpdateBefore
	KindsUpdateAfter  RowKinds = 1 << types.UpdateAfter
	KindsDelete       RowKinds = 1 << types.Delete
	// KindsAll is a retracting changelog: every kind.
	KindsAll = KindsInsert | KindsUpdateBefore | KindsUpdateAfter | KindsDelete
)

// Has reports whether s contains every kind of o.
func (s RowKinds) Has(o RowKinds) bool { return s&o == o }

// InsertOnly reports whether s carries inserts only.
func (s RowKinds) InsertOnly() bool { return s&^KindsInsert == 0 }

// String returns Flink's notation: "[I,UB,UA,D]".
func (s RowKinds) String() string {
	var parts []string
	for _, k := range []struct {
		kinds RowKinds
		name  string
	}{{KindsInsert, "I"}, {KindsUpdateBefore, "UB"}, {KindsUpdateAfter, "UA"}, {KindsDelete, "D"}} {
		if s.Has(k.kinds) {
			parts = append(parts, k.name)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Changelog is what a stream carries: its row kinds and, when it updates,
// the columns that identify a row (its upsert key: a row's updates and
// delete carry the same values there).
type Changelog struct {
	Kinds RowKinds
	// UpsertKey are the columns that identify a row; nil when unknown.
	UpsertKey []int
}

// String returns "[I,UA,D] upsert key (0, 2)".
func (c Changelog) String() string {
	if c.UpsertKey == nil || c.Kinds.InsertOnly() {
		return c.Kinds.String()
	}
	keys := make([]string, len(c.UpsertKey))
	for i, k := range c.UpsertKey {
		keys[i] = fmt.Sprint(k)
	}
	return fmt.Sprintf("%s upsert key (%s)", c.Kinds, strings.Join(keys, ", "))
}

// tableChangelog is the changelog a table source delivers: a connector's
// (or format's) mode, keyed by the table's primary key columns pk.
func tableChangelog(m factory.ChangelogMode, pk []int) Changelog {
	switch m {
	case factory.Upsert:
		return Changelog{Kinds: KindsInsert | KindsUpdateAfter | KindsDelete, UpsertKey: pk}
	case factory.AllKinds:
		return Changelog{Kinds: KindsAll, UpsertKey: pk}
	}
	return Changelog{Kinds: KindsInsert}
}

// projectChangelog maps the changelog of a flow's input through its
// projection: the upsert key survives when each of its columns is passed
// on unchanged.
func projectChangelog(in Changelog, proj []expr.Expr) Changelog {
	out := Changelog{Kinds: in.Kinds}
	if in.UpsertKey == nil || in.Kinds.InsertOnly() {
		return out
	}
	key := make([]int, 0, len(in.UpsertKey))
	for _, k := range in.UpsertKey {
		j := slices.IndexFunc(proj, func(e expr.Expr) bool {
			// An assignment's widening cast keeps the values apart.
			if c, ok := e.(*expr.Cast); ok && !c.Try {
				e = c.Expr
			}
			c, ok := e.(*expr.ColumnRef)
			return ok && c.Index == k
		})
		if j < 0 {
			return out
		}
		key = append(key, j)
	}
	out.UpsertKey = key
	return out
}

// sameColumns reports whether a and b hold the same columns, in any order.
func sameColumns(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// sourceChangelog returns what the rows of s carry, inferring (once) the
// changelogs of the nodes below it.
func (p *planner) sourceChangelog(s *Source) (Changelog, error) {
	switch {
	case s.Node != nil:
		return p.nodeChangelog(s.Node)
	case s.Table == nil:
		return Changelog{Kinds: KindsInsert}, nil
	}
	return tableChangelog(s.Changelog, s.primaryKey), nil
}

// flowChangelog returns what the rows of fl carry: its source's changelog
// through its projection.
func (p *planner) flowChangelog(fl *Flow) (Changelog, error) {
	in, err := p.sourceChangelog(fl.Source)
	if err != nil {
		return Changelog{}, err
	}
	if len(fl.Unnest) > 0 {
		in.UpsertKey = nil // a row becomes one per element: the key identifies none
	}
	fl.Changelog = projectChangelog(in, fl.Projection)
	return fl.Changelog, nil
}

// nodeChangelog infers what node n emits (bottom up) and records it in
// n.Changelog; a node whose input it cannot take is an error.
func (p *planner) nodeChangelog(n *Node) (Changelog, error) {
	if n.Changelog.Kinds != 0 {
		return n.Changelog, nil
	}
	var in RowKinds
	for _, fl := range n.Inputs {
		if fl.Source.Table != nil && tableChangelog(fl.Source.Changelog, nil).Kinds == KindsInsert|KindsUpdateAfter|KindsDelete && n.Kind != ChangelogNormalize &&
			(n.Kind != TemporalJoin || fl.Input == 0) { // a temporal join reads a versioned table's upserts as versions
			// An upsert source says which rows replace which only by its
			// key: a stateful operator needs the old row of each update
			// to retract it, which ChangelogNormalize keeps per key.
			if err := p.normalize(fl); err != nil {
				return Changelog{}, err
			}
		}
		c, err := p.flowChangelog(fl)
		if err != nil {
			return Changelog{}, err
		}
		in |= c.Kinds
	}
	switch n.Kind {
	case GroupAggregate:
		n.Agg.Retracting = !in.InsertOnly()
		kinds := KindsInsert | KindsUpdateAfter
		switch {
		case n.Agg.Retracting:
			kinds |= KindsDelete
		case len(n.Agg.Calls) == 0:
			// SELECT DISTINCT over inserts: a key's first row is its
			// only output (as in Flink).
			kinds = KindsInsert
		}
		key := make([]int, len(n.Agg.Keys))
		for i := range key {
			key[i] = i
		}
		n.Changelog = Changelog{Kinds: kinds, UpsertKey: key}
	case WindowAggregate:
		if !in.InsertOnly() {
			return Changelog{}, p.f.errorAt(n.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
				"a window aggregation over an input with updates or deletes (%s) is not supported yet; window aggregations take insert-only input", in))
		}
		n.Changelog = Changelog{Kinds: KindsInsert}
	case WindowTableFunction:
		if !in.InsertOnly() {
			return Changelog{}, p.f.errorAt(n.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
				"a window table function over an input with updates or deletes (%s) is not supported yet", in))
		}
		n.Changelog = Changelog{Kinds: KindsInsert}
	case TemporalSort:
		if !in.InsertOnly() {
			return Changelog{}, p.f.errorAt(n.Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
				"ORDER BY a time attribute over an input with updates or deletes (%s) is not supported, as in Flink (a temporal sort takes an insert-only input)", in))
		}
		n.Changelog = Changelog{Kinds: KindsInsert}
	case ChangelogNormalize:
		n.Changelog = Changelog{Kinds: KindsAll, UpsertKey: n.Normalize.Keys}
	case Join, IntervalJoin, WindowJoin, TemporalJoin, LookupJoin:
		c, err := p.joinChangelog(n)
		if err != nil {
			return Changelog{}, err
		}
		n.Changelog = c
	case Rank, Deduplicate, WindowRank, WindowDeduplicate:
		c, err := p.rankChangelog(n, in)
		if err != nil {
			return Changelog{}, err
		}
		n.Changelog = c
	case OverAggregate:
		c, err := p.overChangelog(n, in)
		if err != nil {
			return Changelog{}, err
		}
		n.Changelog = c
	}
	return n.Changelog, nil
}

// requireUpdateBefore tells the producers of fl's rows whether the
// consumer needs UPDATE_BEFORE rows (top down): a GroupAggregate emits
// them only then, and always needs them from an updating input of its own.
func requireUpdateBefore(fl *Flow, need bool) {
	n := fl.Source.Node
	if n == nil {
		return
	}
	retracts := false // whether n needs UPDATE_BEFORE from its own input
	switch n.Kind {
	case GroupAggregate:
		n.Agg.UpdateBefore = n.Agg.UpdateBefore || need
		if n.Agg.UpdateBefore && n.Changelog.Kinds.Has(KindsUpdateAfter) {
			n.Changelog.Kinds |= KindsUpdateBefore
		}
	case Rank, Deduplicate:
		retracts = rankNeedsUpdateBefore(n, need)
	case OverAggregate:
		if n.Over.Updating {
			n.Over.UpdateBefore = n.Over.UpdateBefore || need
			if n.Over.UpdateBefore {
				n.Changelog.Kinds |= KindsUpdateBefore
			}
		}
	}
	for _, in := range n.Inputs {
		// A retracting aggregation takes back the old row of each update,
		// and so do a join and a retracting Top-N; ChangelogNormalize
		// keeps old rows itself.
		requireUpdateBefore(in, n.Kind == GroupAggregate && n.Agg.Retracting || n.Kind == Join || (n.Kind == TemporalJoin || n.Kind == LookupJoin) && in.Input == 0 || retracts ||
			n.Kind == OverAggregate && n.Over.Updating)
	}
}

// normalize makes fl, which reads an upsert table, read the table through
// a ChangelogNormalize node keyed by the table's primary key.
func (p *planner) normalize(fl *Flow) error {
	src := fl.Source
	if len(src.primaryKey) == 0 {
		return p.f.errorAt(src.Pos, ErrInvalidTable, nil, fmt.Sprintf(
			"table '%s' is an upsert source without a PRIMARY KEY: its updates cannot be told apart", src.Name()))
	}
	n := &Node{Kind: ChangelogNormalize, Pos: src.Pos, Types: src.RowTypes, Keys: src.primaryKey}
	in := &Flow{Source: src}
	for i, t := range src.RowTypes {
		name := fmt.Sprintf("$%d", i)
		if i < len(src.Schema.Columns) {
			name = src.Schema.Columns[i].Name
		}
		n.Names = append(n.Names, name)
		in.Names = append(in.Names, name)
		in.Projection = append(in.Projection, expr.Col(i, name, t))
	}
	spec := &normalize.Spec{Keys: src.primaryKey, Types: src.RowTypes}
	var keyNames []string
	for _, k := range src.primaryKey {
		spec.KeyTypes = append(spec.KeyTypes, src.RowTypes[k])
		keyNames = append(keyNames, n.Names[k])
	}
	n.Normalize = spec
	n.Inputs = []*Flow{in}
	n.Describe = fmt.Sprintf("ChangelogNormalize(key=[%s])", strings.Join(keyNames, ", "))
	fl.Source = &Source{Pos: src.Pos, Node: n, RowTypes: src.RowTypes}
	fl.ReadFields, fl.ReadRows = nil, nil
	return nil
}

// sinkChangelog checks that the sink of ins takes what fl, a flow into
// it, carries, and tells fl's producers whether the sink needs
// UPDATE_BEFORE rows (a printing or changelog-format sink shows them; an
// upsert sink writes by key and needs none). cols are the sink's columns.
// A flow straight from a table keeps the check connect made.
func (p *planner) sinkChangelog(ins *Insert, fl *Flow, cols []*ddl.Column) error {
	n := fl.Source.Node
	if n == nil {
		return nil
	}
	if err := pruneRanks(fl); err != nil {
		return p.f.errorAt(ins.Pos, ErrType, err, err.Error())
	}
	if err := pruneJoins(fl, p.exprOptions()); err != nil {
		return p.f.errorAt(ins.Pos, ErrType, err, err.Error())
	}
	cl, err := p.flowChangelog(fl)
	if err != nil {
		return err
	}
	sink := ins.Sink
	switch sink.Changelog {
	case factory.InsertOnly:
		if !cl.Kinds.InsertOnly() {
			what := "update"
			if cl.Kinds.Has(KindsDelete) {
				what = "update and delete"
			}
			return p.f.errorAt(ins.Pos, ErrInvalidTable, nil, fmt.Sprintf(
				"table '%s' (connector '%s') doesn't support consuming %s changes, which are produced by %s at line %d; write to a sink that takes them: upsert-kafka or jdbc with a PRIMARY KEY, or kafka with a changelog format such as 'debezium-json'",
				sink.Name(), sink.Connector(), what, n.Kind, n.Pos.Line))
		}
		requireUpdateBefore(fl, false)
	case factory.Upsert:
		if !cl.Kinds.InsertOnly() {
			// An upsert sink without PRIMARY KEY is planned as
			// append-only (planner.sink), so pk is set here.
			pk := sink.PrimaryKey
			if fl.Filter != nil || !sameColumns(cl.UpsertKey, pk) {
				// A filter may drop a key's new row but not its old one,
				// and rows keyed otherwise change the sink's rows by
				// other keys: the materializer keeps the sink right.
				p.materialize(fl, sink)
				return nil
			}
		}
		requireUpdateBefore(fl, false)
	case factory.NoUpdateBefore:
		requireUpdateBefore(fl, false)
	default:
		requireUpdateBefore(fl, true)
	}
	return nil
}

// materialize puts an UpsertMaterialize node, keyed by the sink's primary
// key, between fl and the upsert sink it writes: fl's filter and
// projection move into the node's input, and fl passes the node's rows
// on.
func (p *planner) materialize(fl *Flow, sink *Sink) {
	in := *fl
	var ts []types.Type
	for _, f := range sink.Fields {
		ts = append(ts, f.Type)
	}
	spec := &materialize.Spec{Keys: sink.PrimaryKey, Types: ts, TTL: p.plan.StateTTL}
	var keyNames []string
	for _, k := range sink.PrimaryKey {
		spec.KeyTypes = append(spec.KeyTypes, ts[k])
		keyNames = append(keyNames, sink.Fields[k].Name)
	}
	var names []string
	for _, f := range sink.Fields {
		names = append(names, f.Name)
	}
	in.Names = names
	n := &Node{Kind: UpsertMaterialize, Pos: sink.Pos, Inputs: []*Flow{&in}, Names: names, Types: ts, Keys: sink.PrimaryKey,
		Materialize: spec, Changelog: Changelog{Kinds: KindsInsert | KindsUpdateAfter | KindsDelete, UpsertKey: sink.PrimaryKey},
		Describe: fmt.Sprintf("UpsertMaterialize(key=[%s])", strings.Join(keyNames, ", "))}
	*fl = Flow{Source: &Source{Pos: sink.Pos, Node: n, RowTypes: ts}, Names: names, SinkName: fl.SinkName, Changelog: n.Changelog}
	for i, t := range ts {
		fl.Projection = append(fl.Projection, expr.Col(i, names[i], t))
	}
	requireUpdateBefore(&in, true)
}
