package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/ops/agg"
	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/ops/materialize"
	"github.com/streamsql/streamsql/ops/normalize"
	"github.com/streamsql/streamsql/ops/over"
	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/ops/timesort"
	"github.com/streamsql/streamsql/ops/window"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// NodeKind is the kind of a stateful operator of a plan.
type NodeKind uint8

// The node kinds.
const (
	// GroupAggregate is GROUP BY (and SELECT DISTINCT): Node.Agg.
	GroupAggregate NodeKind = iota
	// WindowAggregate is GROUP BY over a window table function or a legacy
	// group window: Node.Window.
	WindowAggregate
	// ChangelogNormalize turns an upsert source's rows (INSERT,
	// UPDATE_AFTER, DELETE by primary key) into a full changelog with
	// UPDATE_BEFORE rows, for a stateful operator that retracts:
	// Node.Normalize.
	ChangelogNormalize
	// UpsertMaterialize turns a changelog keyed otherwise than the upsert
	// sink it goes into into upserts by the sink's key (Flink's
	// SinkUpsertMaterializer): Node.Materialize.
	UpsertMaterialize
	// Join is a regular join of two changelogs; IntervalJoin a join
	// bounded in time; WindowJoin a join of two windowed inputs;
	// TemporalJoin an event-time temporal join (FOR SYSTEM_TIME AS OF) of a
	// versioned table: Node.Join (join.go). Their flows feed input 0 (the
	// left side) or 1 (Flow.Input).
	Join
	IntervalJoin
	WindowJoin
	TemporalJoin
	// Rank is a Top-N (ROW_NUMBER() OVER ... with a filter on it);
	// Deduplicate is one ordered by a time attribute that keeps a row per
	// partition (rn = 1); WindowRank and WindowDeduplicate are both per
	// window of a window table function: Node.Rank (rank.go).
	Rank
	Deduplicate
	WindowRank
	WindowDeduplicate
	// OverAggregate computes agg(...) OVER (...) for each row: Node.Over
	// (over.go).
	OverAggregate
	// LookupJoin joins each row of its one input with the rows of an
	// external table its key looks up (FOR SYSTEM_TIME AS OF a
	// processing-time attribute): Node.Join.Lookup (lookup.go).
	LookupJoin
	// WindowTableFunction assigns each row of its input to the TUMBLE,
	// HOP or CUMULATE windows its time falls in (a window table function
	// read as a table): Node.Window. It keeps no state; its rows go out at
	// once and its input is forwarded to it, not hashed.
	WindowTableFunction
	// TemporalSort is ORDER BY a time attribute without LIMIT: its rows
	// go out in that order as time passes them: Node.Sort (timesort.go).
	TemporalSort
)

var nodeKindNames = [...]string{"GroupAggregate", "WindowAggregate", "ChangelogNormalize", "UpsertMaterialize", "Join", "IntervalJoin", "WindowJoin", "TemporalJoin",
	"Rank", "Deduplicate", "WindowRank", "WindowDeduplicate", "OverAggregate", "LookupJoin", "WindowTableFunction", "TemporalSort"}

// String returns Flink's name of the operator.
func (k NodeKind) String() string {
	if int(k) < len(nodeKindNames) {
		return nodeKindNames[k]
	}
	return fmt.Sprintf("NodeKind(%d)", k)
}

// Node is a stateful operator of a plan: its input rows come from flows
// (each a source or another node, with a filter and projection: a Flow
// whose Source.Node is set reads a node's output), and its output rows
// are read by the flows above it, through a Source whose Node is this one.
type Node struct {
	// ID identifies the operator in the job's graph and keys its state in
	// checkpoints: "<pipeline>/<kind>-<n>", stable as long as the
	// statement's shape is (Plan.assignIDs sets it).
	ID   string
	Pos  ddl.Pos
	Kind NodeKind
	// Inputs are the flows into the operator's input (several under UNION
	// ALL). Their projections produce the operator's input row.
	Inputs []*Flow
	// Names and Types describe the output row.
	Names []string
	Types []types.Type
	// Keys are the input columns the rows are hashed on before the
	// operator (every row of a key reaches one task); nil for a global
	// operator, which runs in one task.
	Keys []int
	// Changelog is what the operator emits (inferred; see changelog.go).
	Changelog Changelog
	// Agg, Window, Normalize, Materialize, Join, Rank, Over and Sort
	// configure the operator of Kind.
	Agg         *agg.Spec
	Window      *window.Spec
	Normalize   *normalize.Spec
	Materialize *materialize.Spec
	Join        *JoinPlan
	Rank        *RankPlan
	Over        *over.Spec
	overPlan    *overPlan
	Sort        *timesort.Spec
	// windowCols says, for a window join, which window column (0:
	// window_start, 1: window_end, 2: window_time; -1: none) each output
	// column is, and windowSpec their window: its inputs' window columns
	// but those an outer join pads (Flink's window properties of a window
	// join).
	windowCols []int
	windowSpec *window.Spec
	// Describe is the operator's one-line description for EXPLAIN, such
	// as "GroupAggregate(keys=[bidder], calls=[COUNT(*)])".
	Describe string
}

// InputKeys returns the columns of input in's rows (0; or 1, a join's
// right side) that the rows are hashed on before the operator, and their
// types (every input encodes its key with the same types, so equal keys
// reach the same task); nil columns: every row goes to one task.
func (n *Node) InputKeys(in int) ([]int, []types.Type) {
	switch {
	case n.Join != nil:
		return n.Join.inputKeys(in)
	case len(n.Keys) == 0:
		return nil, nil
	case n.Agg != nil:
		return n.Keys, n.Agg.KeyTypes
	case n.Window != nil:
		return n.Keys, n.Window.KeyTypes
	case n.Normalize != nil:
		return n.Keys, n.Normalize.KeyTypes
	case n.Materialize != nil:
		return n.Keys, n.Materialize.KeyTypes
	case n.Rank != nil:
		return n.Keys, pick(n.Rank.InputTypes, n.Keys)
	case n.Over != nil:
		return n.Keys, pick(n.Over.Types, n.Keys)
	}
	return nil, nil
}

// OutputKeys returns output columns, and the types their key is encoded
// with, that place each row the operator emits: a task emits only rows
// whose key of these columns, hashed as an exchange on them hashes it,
// falls in its own key groups. An operator after it hashed on the same
// columns and types, with as many tasks, may take its rows forward. Only
// a regular join whose left rows are never padded (INNER, LEFT, SEMI,
// ANTI) has them: its left input's key columns, which lead its output
// row, with the join's key types (its left input was hashed on them);
// nil otherwise.
func (n *Node) OutputKeys() ([]int, []types.Type) {
	if n.Join == nil || n.Join.Regular == nil {
		return nil, nil
	}
	switch n.Join.Regular.Type {
	case join.Inner, join.Left, join.Semi, join.Anti:
		return n.Join.inputKeys(0)
	}
	return nil, nil
}

// pick returns ts[cols[0]], ts[cols[1]], ...
func pick(ts []types.Type, cols []int) []types.Type {
	out := make([]types.Type, len(cols))
	for i, c := range cols {
		out[i] = ts[c]
	}
	return out
}

// String returns the node's EXPLAIN line.
func (n *Node) String() string {
	if n.Describe != "" {
		return n.Describe
	}
	return n.Kind.String()
}

// describeCalls returns "keys=[a, b], calls=[COUNT(*), SUM(`v`)]": the
// calls as written (callNames), else as planned.
func describeCalls(keyNames []string, calls []agg.Call, callNames []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "keys=[%s]", strings.Join(keyNames, ", "))
	if len(calls) > 0 {
		b.WriteString(", calls=[")
		for i, c := range calls {
			if i > 0 {
				b.WriteString(", ")
			}
			if i < len(callNames) && callNames[i] != "" {
				b.WriteString(callNames[i])
			} else {
				b.WriteString(c.String())
			}
		}
		b.WriteString("]")
	}
	return b.String()
}

// Operator returns the factory of the node's operator, with what it
// evaluates (a join's residual condition) compiled with opts. Package job
// makes the node's vertex of it.
func (n *Node) Operator(opts expr.Options) (stream.Factory, error) {
	switch n.Kind {
	case GroupAggregate:
		return agg.NewGroupAggregate(*n.Agg), nil
	case WindowAggregate:
		return window.New(*n.Window), nil
	case WindowTableFunction:
		return window.NewTableFunction(*n.Window), nil
	case ChangelogNormalize:
		return normalize.New(*n.Normalize), nil
	case UpsertMaterialize:
		return materialize.New(*n.Materialize), nil
	case LookupJoin:
		// Its lookup opens the table's connector: package job builds it
		// (Node.Join.Lookup).
		return nil, fmt.Errorf("%s: its operator opens the looked-up table's connector; the job builds it from Node.Join.Lookup", n.Kind)
	case Join, IntervalJoin, WindowJoin, TemporalJoin:
		if err := n.Join.compile(opts); err != nil {
			return nil, err
		}
		switch {
		case n.Join.Regular != nil:
			return join.New(*n.Join.Regular), nil
		case n.Join.Interval != nil:
			return join.NewInterval(*n.Join.Interval), nil
		case n.Join.Window != nil:
			return join.NewWindow(*n.Join.Window), nil
		case n.Join.Temporal != nil:
			return join.NewTemporal(*n.Join.Temporal), nil
		}
	case Rank:
		return rank.NewTopN(*n.Rank.TopN), nil
	case Deduplicate:
		return rank.NewDeduplicate(*n.Rank.Dedup), nil
	case WindowRank, WindowDeduplicate:
		return rank.NewWindow(*n.Rank.Window), nil
	case OverAggregate:
		return over.New(*n.Over), nil
	case TemporalSort:
		return timesort.New(*n.Sort), nil
	}
	return nil, fmt.Errorf("%s: no operator for it", n.Kind)
}

// InputCount returns the number of the node's inputs: 2 for a join (but
// a lookup join, whose right input is an external table), else 1.
func (n *Node) InputCount() int {
	if n.Join != nil && n.Kind != LookupJoin {
		return 2
	}
	return 1
}
