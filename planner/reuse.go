package planner

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/planner/expr"
)

// Sub-plan and source reuse, as Flink's optimizer does them
// (table.optimizer.reuse-sub-plan-enabled and
// table.optimizer.reuse-source-enabled, both on by default). Within one
// INSERT that runs as a graph (a stateful or event-time one), a stateful
// operator that is identical to another — the same kind, description,
// keys, output columns, changelog and state, over identical input flows —
// becomes one operator whose output feeds every flow that read either;
// and scans of the same table with the same options (hints included),
// watermark, changelog and dead-letter handling become one scan, which
// decodes the union of the fields its readers read, each reader keeping
// its own filter and projection. Nexmark's joins read the one `nexmark`
// topic through views once per view, and q5 computes one window
// aggregation twice: with reuse the topic is read and decoded once and the
// aggregation computed once.
//
// Reuse never merges what would change results: a flow that evaluates a
// non-deterministic function (UUID(), CURRENT_TIMESTAMP, a Go function
// marked so) is never shared, and neither is anything above it; VALUES,
// lookup joins and the scans of a table whose rejected rows go by a policy
// (factory.TableInfo.RejectsRows) are never shared. A shared operator keeps the id its
// first occurrence had (Plan.assignIDs numbers the operators before
// reuse), so a checkpoint taken with reuse restores with it; a checkpoint
// taken without it holds the state of operators and sources the reused
// job does not have, and the runtime refuses it, naming them (see
// docs/stateful.md, "Sub-plan and source reuse").

// ReuseRestoreHint says, for an error about a restored checkpoint holding
// sources or operators a job does not have, that the reuse settings change
// them.
const ReuseRestoreHint = "sharing identical scans and operators (" + SettingReuseSubPlan + " and " + SettingReuseSource +
	", on by default) gives a job fewer sources and operators than it has without: a checkpoint taken with other values " +
	"of those settings (or by a streamsql that did not share them) restores with those values, " +
	"such as --set " + SettingReuseSubPlan + "=false"

// The reuse settings.
const (
	// SettingReuseSubPlan is table.optimizer.reuse-sub-plan-enabled.
	SettingReuseSubPlan = "table.optimizer.reuse-sub-plan-enabled"
	// SettingReuseSource is table.optimizer.reuse-source-enabled.
	SettingReuseSource = "table.optimizer.reuse-source-enabled"
)

var (
	settingReuseSubPlan = option.Bool(SettingReuseSubPlan).Default(true).
				Description("Share identical parts of an INSERT's plan, as Flink does: stateful operators (window " +
			"aggregations, joins, ...) that compute the same thing over the same input, in one INSERT or across the INSERTs of a statement set, run once and feed every reader. " +
			"A shared operator keeps the state id of its first occurrence; a checkpoint taken with another setting " +
			"holds the state of operators this job does not have and is refused with their names (set this back to " +
			"restore it). See docs/stateful.md.")
	settingReuseSource = option.Bool(SettingReuseSource).Default(true).
				Description("Read each table once per INSERT and per statement set, as Flink does: scans of the same table with the same " +
			"options and hints, watermark and changelog become one scan that decodes the union of the columns its " +
			"readers use, each reader keeping its own filter and projection (Nexmark's joins then read their topic once " +
			"instead of once per view). Only with `table.optimizer.reuse-sub-plan-enabled` on, as in Flink. A checkpoint " +
			"taken with another setting holds the positions of sources this job does not have and is refused with their " +
			"names. See docs/stateful.md.")
)

// reuseSettings reads the two reuse settings into the plan.
func (p *planner) reuseSettings() []error {
	var errs []error
	for _, s := range []struct {
		o   option.Opt[bool]
		dst *bool
	}{{settingReuseSubPlan, &p.plan.ReuseSubPlan}, {settingReuseSource, &p.plan.ReuseSource}} {
		*s.dst = true
		if v, ok := p.plan.Settings[s.o.Key()]; ok {
			on, err := s.o.Parse(v)
			if err != nil {
				errs = append(errs, p.settingError(s.o.Key(), fmt.Errorf("%w: '%s' = '%s': %v", ErrInvalidSetting, s.o.Key(), v, err)))
				continue
			}
			*s.dst = on
		}
	}
	return errs
}

// reuse shares the identical operators and scans of the job's INSERTs
// (see the top of the file). As Flink optimizes a statement set as one
// plan, sharing reaches across the INSERTs of a statement set: two of them
// that read one table read it once. An INSERT of a statement set without
// stateful operators or event time that then reads a shared scan runs on
// the graph (Insert.Graph), which can feed one scan to several flows; one
// whose scans are its own stays a pipeline. INSERTs outside a statement
// set are separate jobs in Flink and share nothing with each other here
// either (checkpoints taken before sharing reached across INSERTs restore
// unchanged). A scaled-out job shares only within each stateful or
// event-time INSERT: its sources are members of their consumer group, and
// its stateless INSERTs run as pipelines whose sinks commit their sources'
// positions (checkScaleOut, checkDurability). An EXPLAIN's statement is
// shared within itself only.
func (pl *Plan) reuse() {
	if !pl.ReuseSubPlan {
		return
	}
	var all []*reuser
	sets := map[int]*reuser{}
	for _, ins := range pl.Inserts {
		graph := ins.Stateful() || ins.EventTime()
		set := ins.StatementSet
		if ins.Explain || pl.ScaleOut {
			set = 0
		}
		if set == 0 && !graph {
			// Runs as a pipeline of its own per source
			// (runtime.Pipeline), which has no place to share a scan.
			continue
		}
		r := sets[set]
		if r == nil {
			r = &reuser{pl: pl, scans: map[string]*Source{}, nodes: map[string]*Node{}, ids: map[any]string{},
				readers: map[*Source][]*Flow{}, done: map[any]bool{}, sources: pl.ReuseSource}
			all = append(all, r)
			if set != 0 {
				sets[set] = r
			}
		}
		for _, fl := range ins.Flows {
			r.flow(fl)
		}
	}
	for _, r := range all {
		for s, fls := range r.readers {
			if len(fls) < 2 {
				continue
			}
			read, rows := readFieldsOf(s, fls)
			for _, fl := range fls {
				fl.ReadFields, fl.ReadRows = read, rows
			}
		}
	}
	for _, ins := range pl.Inserts {
		r := sets[ins.StatementSet]
		if r == nil || ins.Explain {
			continue
		}
		for _, fl := range ins.Flows {
			if fl.Source.Table != nil && len(r.readers[fl.Source]) > 1 {
				ins.SharesScan = true
			}
		}
	}
}

// reuser shares the scans and operators of the INSERTs it visits.
type reuser struct {
	pl      *Plan
	sources bool
	// scans and nodes are the first scan and operator of each key; ids
	// names each scan and operator kept (its key's stand-in in the keys of
	// what reads it).
	scans   map[string]*Source
	nodes   map[string]*Node
	ids     map[any]string
	readers map[*Source][]*Flow
	// done marks the scans and operators seen: a later flow that reads one
	// is Flow.Reused.
	done map[any]bool
}

// id returns the name of scan or operator x in the keys of its readers.
func (r *reuser) id(x any) string {
	if id, ok := r.ids[x]; ok {
		return id
	}
	id := "#" + strconv.Itoa(len(r.ids))
	r.ids[x] = id
	return id
}

// flow shares fl's source (a scan or an operator) with an identical one
// seen before and returns fl's key: equal keys compute equal rows. Flows
// are visited in EXPLAIN's order, so that the first reader of a shared
// source is the one EXPLAIN describes it under.
func (r *reuser) flow(fl *Flow) string {
	var in string
	switch s := fl.Source; {
	case s.Node != nil:
		n := r.node(s.Node)
		s.Node = n
		fl.Reused = r.done[n]
		r.done[n] = true
		in = r.id(n)
	case s.Table != nil:
		k := scanKey(s)
		if s.Info.RejectsRows {
			// Its readers' rejected rows go by the table's bad-record
			// policy, in the reader's task: each reader keeps its own.
			k = r.id(s)
		}
		first, ok := r.scans[k]
		switch {
		case !ok:
			r.scans[k] = s
		case r.sources:
			if first.Watermark == nil {
				// A reader that needs no event time (a regular join's
				// input) shares the scan of one that does, as in Flink,
				// whose scans of a table all carry its watermarks.
				first.Watermark = s.Watermark
			}
			fl.Source = first
		}
		fl.Reused = r.done[fl.Source]
		r.done[fl.Source] = true
		r.readers[fl.Source] = append(r.readers[fl.Source], fl)
		in = r.id(fl.Source)
	default:
		in = r.id(s) // VALUES: never shared
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s|in%d|", in, fl.Input)
	det := true
	add := func(e expr.Expr) {
		writeExprKey(&b, e)
		b.WriteByte(';')
		det = det && deterministic(e)
	}
	for _, u := range fl.Unnest {
		fmt.Fprintf(&b, "unnest(%d,%v,%v,%v,%s,", u.Width, u.Ordinality, u.Left, u.Replicate, typesKey(u.Types))
		add(u.Array)
		add(u.Cond)
		b.WriteString(")")
	}
	b.WriteString("where:")
	add(fl.Filter)
	b.WriteString("select:")
	for _, e := range fl.Projection {
		add(e)
	}
	for _, p := range fl.Expand {
		b.WriteString("expand:")
		for _, e := range p {
			add(e)
		}
	}
	fmt.Fprintf(&b, "notnull:%v%q%v", fl.NotNull, fl.SinkName, fl.DropNulls)
	if !det {
		// Every evaluation may differ: what reads it is its own.
		return r.id(fl)
	}
	return b.String()
}

// node returns the first operator identical to n, or n, after sharing n's
// inputs.
func (r *reuser) node(n *Node) *Node {
	if _, kept := r.ids[n]; kept {
		return n // a node reached again through a flow already shared
	}
	var b strings.Builder
	// The inputs in EXPLAIN's order (a join's left input first).
	for side := range n.InputCount() {
		for _, in := range n.Inputs {
			if n.Join == nil || in.Input == side {
				fmt.Fprintf(&b, "input[%s]\n", r.flow(in))
			}
		}
	}
	if n.Kind == LookupJoin {
		r.id(n)
		return n // it queries an external table: its own
	}
	fmt.Fprintf(&b, "%s|%s|keys%v|%q|%s|%s|%v|", n.Kind, n.String(), n.Keys, n.Names, typesKey(n.Types), n.Changelog, n.windowCols)
	if n.Agg != nil {
		fmt.Fprintf(&b, "ttl:%d|", n.Agg.TTL)
	}
	if n.Join != nil {
		fmt.Fprintf(&b, "ttlhint:%v|", n.Join.ttlHint)
	}
	// What EXPLAIN says of the operator itself (state, TTL, how rows
	// reach it), without its line and id.
	var body strings.Builder
	r.pl.nodeBody(&body, n)
	for line := range strings.Lines(body.String()) {
		if strings.HasPrefix(line, "    id: ") {
			continue
		}
		if i := strings.LastIndex(line, " (line "); i >= 0 && !strings.HasPrefix(line, "    ") {
			line = line[:i]
		}
		b.WriteString(line)
	}
	k := b.String()
	if first, ok := r.nodes[k]; ok {
		return first
	}
	r.nodes[k] = n
	r.id(n)
	return n
}

// scanKey is what makes two scans of a table one: the table, its options
// with the hints applied, the watermark, the changelog, the row the
// connector delivers and its dead-letter handling.
func scanKey(s *Source) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|", s.Table.ID)
	for _, k := range slices.Sorted(maps.Keys(s.Options)) {
		fmt.Fprintf(&b, "%q=%q,", k, s.Options[k])
	}
	// The table's WATERMARK, whether or not this scan generates it: a
	// scan that needs no event time shares one that does (reuser.flow).
	b.WriteString("|wm:")
	writeExprKey(&b, s.watermark)
	fmt.Fprintf(&b, "|%s|%s|%v|%q|%v", s.Changelog, typesKey(s.RowTypes), s.DeadLettersExactlyOnce, s.DeadLetterGuarantee, s.DeadLettersInSink)
	return b.String()
}

// writeExprKey writes e with every column by position and type, every
// literal and cast with its type: equal keys are the same computation.
func writeExprKey(b *strings.Builder, e expr.Expr) {
	switch n := e.(type) {
	case nil:
		b.WriteString("nil")
	case *expr.ColumnRef:
		fmt.Fprintf(b, "$%d:%s", n.Index, n.Typ)
	case *expr.Literal:
		fmt.Fprintf(b, "%s:%s", n, n.Typ)
	case *expr.Cast:
		fmt.Fprintf(b, "cast(%v,%s,", n.Try, n.Target)
		writeExprKey(b, n.Expr)
		b.WriteString(")")
	case *expr.Case:
		b.WriteString("case(")
		writeExprKey(b, n.Operand)
		for _, w := range n.Whens {
			b.WriteString(",when:")
			writeExprKey(b, w.Cond)
			b.WriteString(",then:")
			writeExprKey(b, w.Result)
		}
		b.WriteString(",else:")
		writeExprKey(b, n.Else)
		b.WriteString(")")
	case *expr.Call:
		// The name, unit and RETURNING type; the call's own String for what
		// else it prints (a Go function's name), then the arguments.
		fmt.Fprintf(b, "%s[%d,%s,%s](", n.Name, n.Unit, n.Returning, n.Type())
		for i, a := range n.Args {
			if i > 0 {
				b.WriteByte(',')
			}
			writeExprKey(b, a)
		}
		b.WriteString(")")
		fmt.Fprintf(b, "{%s}", n)
	default:
		// A node this walk does not know: unique, never shared.
		fmt.Fprintf(b, "%T@%p", e, e)
	}
}

// deterministic reports whether every evaluation of e over the same row
// gives the same value.
func deterministic(e expr.Expr) bool {
	return e == nil || expr.Deterministic(e)
}

func typesKey[T fmt.Stringer](ts []T) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// readFieldsOf returns what the flows fls read of their one source s
// together (see readFields).
func readFieldsOf(s *Source, fls []*Flow) ([]bool, []*factory.RowRead) {
	if s.Table == nil {
		return nil, nil
	}
	t := newReadTree(s.RowTypes)
	for _, e := range s.mustRead {
		t.mark(e)
	}
	for _, fl := range fls {
		t.markFlow(fl)
	}
	return t.flags()
}
