package planner

import (
	"fmt"
	"io"
	"strings"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/jobconfig"
)

// Explain writes a description of the plan: the job and its checkpoint
// settings, then for each INSERT its sources (connector, topics, startup
// and bounded modes, isolation level), filter and projection, and sink
// (connector, delivery guarantee, transactional-id prefix), then the
// warnings. Sensitive option values are masked.
func (pl *Plan) Explain(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Job: %s\n", pl.JobName)
	cp := pl.Runtime.Checkpoint
	if cp.Interval > 0 {
		fmt.Fprintf(&b, "Checkpointing: every %s, mode %s, timeout %s, min pause %s, at most %d concurrent, %d tolerable failures, %d retained\n",
			formatDuration(cp.Interval), cp.Mode, formatDuration(cp.Timeout), formatDuration(cp.MinPause), cp.MaxConcurrent, cp.TolerableFailed, cp.NumRetained)
	} else {
		fmt.Fprintf(&b, "Checkpointing: off (execution.checkpointing.interval not set; one final checkpoint when the job stops)\n")
	}
	if f := pl.CheckpointFolder(); f != "" && pl.CheckpointDirDefault {
		fmt.Fprintf(&b, "Checkpoint storage: %s (the default folder: execution.checkpointing.dir is not set)\n", f)
	} else if f != "" {
		fmt.Fprintf(&b, "Checkpoint storage: %s\n", f)
	} else if cp.Storage == jobconfig.StorageJobManager {
		b.WriteString("Checkpoint storage: in memory (execution.checkpointing.storage is 'jobmanager'; a restarted process starts over)\n")
	} else if pl.ScaleOut {
		b.WriteString("Checkpoint storage: in memory (a scaled-out job keeps its positions in the consumer groups, committed with the output)\n")
	} else {
		b.WriteString("Checkpoint storage: in memory (execution.checkpointing.dir not set; a restarted process starts over)\n")
	}
	fmt.Fprintf(&b, "Restart strategy: %s\n", pl.Runtime.EffectiveStrategy())
	if pl.ScaleOut {
		id := pl.InstanceID
		if id == "" {
			id = "not set; give --instance-id to run"
		}
		fmt.Fprintf(&b, "Scale-out: on (pipeline.scale-out), instance %s: Kafka sources read the partitions their consumer group assigns this instance; positions live in the group\n", id)
	}
	for i, ins := range pl.Inserts {
		b.WriteString("\n")
		tag := ""
		if ins.InStatementSet {
			tag = " [statement set]"
		}
		if ins.Explain {
			tag += " [EXPLAIN only, not run]"
		}
		fmt.Fprintf(&b, "== Pipeline %d: %s (line %d)%s ==\n", i+1, ins.Statement, ins.Pos.Line, tag)
		var names []string
		for _, f := range ins.Sink.Fields {
			names = append(names, f.Name)
		}
		for _, fl := range ins.Flows {
			pl.explainFlow(&b, fl, names)
		}
		pl.explainSink(&b, ins.Sink)
	}
	if len(pl.Warnings) > 0 {
		b.WriteString("\nWarnings:\n")
		for _, w := range pl.Warnings {
			if w.Pos.IsValid() {
				fmt.Fprintf(&b, "  - line %d: %s\n", w.Pos.Line, w.Message)
			} else {
				fmt.Fprintf(&b, "  - %s\n", w.Message)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String returns the Explain text.
func (pl *Plan) String() string {
	var b strings.Builder
	_ = pl.Explain(&b)
	return b.String()
}

func (pl *Plan) explainSource(b *strings.Builder, s *Source) {
	if s.Table == nil {
		fmt.Fprintf(b, "  Source: VALUES (%d rows, bounded)\n", len(s.Values))
		return
	}
	fmt.Fprintf(b, "  Source: %s\n", s.Name())
	fmt.Fprintf(b, "    connector: %s\n", s.Connector())
	writeLines(b, s.Info.Summary)
	if pl.ScaleOut {
		fmt.Fprintf(b, "    scale-out: %s\n", s.Info.ScaleOut)
	}
	writeLines(b, s.Validated.Formats())
	fmt.Fprintf(b, "    changelog: %s\n", s.Changelog)
	if s.Watermark != nil {
		fmt.Fprintf(b, "    watermark: %s (per split, the minimum over the splits)\n", s.Watermark)
	}
	writeOptions(b, s.Options, pl.registry)
}

func (pl *Plan) explainSink(b *strings.Builder, s *Sink) {
	if s.Print {
		b.WriteString("  Sink: print (standard output)\n")
		return
	}
	fmt.Fprintf(b, "  Sink: %s\n", s.Name())
	fmt.Fprintf(b, "    connector: %s\n", s.Connector())
	writeLines(b, s.Info.Summary)
	fmt.Fprintf(b, "    delivery guarantee: %s\n", s.DeliveryGuarantee)
	if s.AfterCrash != "" {
		fmt.Fprintf(b, "    after a crash: %s\n", s.AfterCrash)
	}
	writeLines(b, s.Info.DeliverySummary)
	if pl.ScaleOut {
		fmt.Fprintf(b, "    scale-out: %s\n", s.Info.ScaleOut)
	}
	writeLines(b, s.Validated.Formats())
	fmt.Fprintf(b, "    accepts: %s\n", s.Changelog)
	writeOptions(b, s.Options, pl.registry)
}

func writeLines(b *strings.Builder, kvs []factory.KeyValue) {
	for _, kv := range kvs {
		fmt.Fprintf(b, "    %s: %s\n", kv.Key, kv.Value)
	}
}

func writeOptions(b *strings.Builder, o map[string]string, r *factory.Registry) {
	kvs := factory.MaskedOptions(o, r)
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = fmt.Sprintf("'%s'='%s'", kv.Key, kv.Value)
	}
	fmt.Fprintf(b, "    options: %s\n", strings.Join(parts, ", "))
}

// explainFlow writes fl's source (a table, VALUES, or a stateful operator
// with its own inputs first), filter and projection into the columns
// names.
func (pl *Plan) explainFlow(b *strings.Builder, fl *Flow, names []string) {
	switch n := fl.Source.Node; {
	case fl.Reused && n != nil:
		fmt.Fprintf(b, "  %s (line %d): reused, the operator above (id %s) computes it once and feeds this input too\n", n, n.Pos.Line, n.ID)
	case fl.Reused:
		fmt.Fprintf(b, "  Source: %s: reused, the scan above reads the table once and feeds this flow too\n", fl.Source.Name())
	case n != nil:
		pl.explainNode(b, n)
	default:
		pl.explainSource(b, fl.Source)
		if fl.ReadFields != nil || fl.ReadRows != nil {
			fmt.Fprintf(b, "    project: %s\n", fl.Source.projectedNames(fl.ReadFields, fl.ReadRows))
		}
		if g := fl.Source.DeadLetterGuarantee; g != "" {
			fmt.Fprintf(b, "    dead letters after a crash: %s\n", g)
		}
	}
	for _, u := range fl.Unnest {
		fmt.Fprintf(b, "  Unnest: %s\n", u)
	}
	if fl.Filter != nil {
		fmt.Fprintf(b, "  Filter: %s\n", fl.Filter)
	}
	if len(fl.Expand) > 0 {
		fmt.Fprintf(b, "  Expand: each row once per grouping set (%d), NULL where a set does not group; the first:\n", len(fl.Expand)+1)
	}
	b.WriteString("  Projection:\n")
	for j, e := range fl.Projection {
		name := fmt.Sprintf("$%d", j)
		if j < len(names) {
			name = names[j]
		} else if j < len(fl.Names) {
			name = fl.Names[j]
		}
		fmt.Fprintf(b, "    %s := %s\n", name, e)
	}
}

// explainNode writes a stateful operator after its inputs: how rows reach
// its tasks, what it emits (changelog), and its state.
func (pl *Plan) explainNode(b *strings.Builder, n *Node) {
	if n.Join != nil {
		pl.explainJoin(b, n)
		return
	}
	for _, in := range n.Inputs {
		pl.explainFlow(b, in, in.Names)
	}
	pl.nodeBody(b, n)
}

// nodeBody writes what explainNode says of n itself, after its inputs.
func (pl *Plan) nodeBody(b *strings.Builder, n *Node) {
	if n.Join != nil {
		pl.joinBody(b, n)
		return
	}
	fmt.Fprintf(b, "  %s (line %d)\n", n, n.Pos.Line)
	if n.ID != "" {
		fmt.Fprintf(b, "    id: %s\n", n.ID)
	}
	if n.Kind == WindowTableFunction {
		b.WriteString("    input: forwarded (no key)\n")
		fmt.Fprintf(b, "    changelog: %s\n", n.Changelog)
		b.WriteString("    state: none: each row goes out at once, once per window\n")
		return
	}
	if len(n.Keys) == 0 {
		b.WriteString("    input: all rows to one task (no key)\n")
	} else {
		var keys []string
		for _, k := range n.Keys {
			if k < len(n.Inputs[0].Names) {
				keys = append(keys, n.Inputs[0].Names[k])
			}
		}
		fmt.Fprintf(b, "    input: hashed by [%s] over %d task(s)\n", strings.Join(keys, ", "), pl.DefaultParallelism)
	}
	fmt.Fprintf(b, "    changelog: %s\n", n.Changelog)
	backend := pl.Settings["state.backend.type"]
	if backend == "" {
		backend = "hashmap"
	}
	switch {
	case pl.rankState(n, backend) != "":
		fmt.Fprintf(b, "    state: %s\n", pl.rankState(n, backend))
	case n.Kind == WindowAggregate:
		fmt.Fprintf(b, "    state: %s, per window until it fires\n", backend)
	case n.Agg != nil && n.Agg.TTL != pl.StateTTL && n.Agg.TTL > 0:
		fmt.Fprintf(b, "    state: %s, ttl %s (STATE_TTL hint)\n", backend, formatDuration(n.Agg.TTL))
	case n.Agg != nil && n.Agg.TTL != pl.StateTTL:
		fmt.Fprintf(b, "    state: %s, kept for ever (STATE_TTL hint of 0): it grows with the number of keys\n", backend)
	case pl.StateTTL > 0:
		fmt.Fprintf(b, "    state: %s, ttl %s (table.exec.state.ttl)\n", backend, formatDuration(pl.StateTTL))
	default:
		fmt.Fprintf(b, "    state: %s, kept for ever (table.exec.state.ttl is 0): it grows with the number of keys\n", backend)
	}
	if n.Agg != nil && n.Kind == GroupAggregate && pl.MiniBatch > 0 {
		if n.Agg.Folds() {
			fmt.Fprintf(b, "    mini-batch: each key's rows in up to %d rows of an input batch make one change (table.exec.mini-batch.size); "+
				"no row is held past its batch, so never for %s (allow-latency) nor across a checkpoint\n", pl.MiniBatch, formatDuration(pl.MiniBatchLatency))
		} else {
			b.WriteString("    mini-batch: not folded here (a state TTL, LISTAGG, ARRAY_AGG, JSON_ARRAYAGG or JSON_OBJECTAGG): one change per input row\n")
		}
	}
}
