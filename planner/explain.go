package planner

import (
	"fmt"
	"io"
	"strings"

	"github.com/streamsql/streamsql/factory"
)

// Explain writes a description of the plan: the job and its checkpoint
// settings, then for each INSERT its sources (connector, topics, startup
// and bounded modes, isolation level), filter and projection, and sink
// (connector, delivery guarantee, transactional-id prefix), then the
// warnings. Sensitive option values are masked.
func (pl *Plan) Explain(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Job: %s\n", pl.JobName)
	cp := pl.Checkpoint
	rc := pl.Runtime.Checkpoint
	if cp.Interval > 0 {
		fmt.Fprintf(&b, "Checkpointing: every %s, mode %s, timeout %s, min pause %s, at most %d concurrent, %d tolerable failures, %d retained\n",
			formatDuration(cp.Interval), cp.Mode, formatDuration(cp.Timeout), formatDuration(rc.MinPause), rc.MaxConcurrent, rc.TolerableFailed, rc.NumRetained)
	} else {
		fmt.Fprintf(&b, "Checkpointing: off (execution.checkpointing.interval not set; one final checkpoint when the job stops)\n")
	}
	if cp.Dir != "" {
		fmt.Fprintf(&b, "Checkpoint storage: %s\n", cp.Dir)
	} else {
		b.WriteString("Checkpoint storage: in memory (execution.checkpointing.dir not set; a restarted process starts over)\n")
	}
	fmt.Fprintf(&b, "Restart strategy: %s\n", pl.Runtime.EffectiveStrategy())
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
		for _, fl := range ins.Flows {
			pl.explainSource(&b, fl.Source)
			if fl.Filter != nil {
				fmt.Fprintf(&b, "  Filter: %s\n", fl.Filter)
			}
			b.WriteString("  Projection:\n")
			for j, e := range fl.Projection {
				fmt.Fprintf(&b, "    %s := %s\n", ins.Sink.Fields[j].Name, e)
			}
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
	o := s.Options
	fmt.Fprintf(b, "    connector: %s\n", s.Connector())
	switch s.Connector() {
	case "kafka", "upsert-kafka":
		if t, ok := o["topic"]; ok {
			fmt.Fprintf(b, "    topics: %s\n", strings.Join(factory.ParseList(t), ", "))
		} else if t, ok := o["topic-pattern"]; ok {
			fmt.Fprintf(b, "    topic pattern: %s\n", t)
		}
		startup := "group-offsets"
		if s.Connector() == "upsert-kafka" {
			startup = "earliest-offset"
		}
		if v, ok := o["scan.startup.mode"]; ok {
			startup = v
		}
		fmt.Fprintf(b, "    startup mode: %s\n", startup)
		bounded := "unbounded"
		if v, ok := o["scan.bounded.mode"]; ok {
			bounded = v
		}
		fmt.Fprintf(b, "    bounded mode: %s\n", bounded)
		fmt.Fprintf(b, "    isolation level: %s\n", isolationLevel(o))
	case "datagen":
		if n, ok := o["number-of-rows"]; ok {
			fmt.Fprintf(b, "    bounded: yes (%s rows)\n", n)
		} else {
			b.WriteString("    bounded: no\n")
		}
	case "filesystem":
		b.WriteString("    bounded: yes (the files present at start)\n")
	}
	writeFormat(b, o)
	fmt.Fprintf(b, "    changelog: %s\n", s.Changelog)
	writeOptions(b, o, pl.registry)
}

func (pl *Plan) explainSink(b *strings.Builder, s *Sink) {
	if s.Print {
		b.WriteString("  Sink: print (standard output)\n")
		return
	}
	fmt.Fprintf(b, "  Sink: %s\n", s.Name())
	o := s.Options
	fmt.Fprintf(b, "    connector: %s\n", s.Connector())
	if t, ok := o["topic"]; ok {
		fmt.Fprintf(b, "    topics: %s\n", strings.Join(factory.ParseList(t), ", "))
	}
	fmt.Fprintf(b, "    delivery guarantee: %s\n", s.DeliveryGuarantee)
	if s.TransactionalIDPrefix != "" {
		how := "given"
		if s.PrefixDerived {
			how = "derived from job name and table"
		}
		fmt.Fprintf(b, "    transactional-id prefix: %s (%s)\n", s.TransactionalIDPrefix, how)
		if v, ok := o["properties.transaction.timeout.ms"]; ok {
			fmt.Fprintf(b, "    transaction timeout: %s ms\n", v)
		} else {
			b.WriteString("    transaction timeout: the brokers' transaction.max.timeout.ms, read at start\n")
		}
	}
	writeFormat(b, o)
	fmt.Fprintf(b, "    accepts: %s\n", s.Changelog)
	writeOptions(b, o, pl.registry)
}

func writeFormat(b *strings.Builder, o map[string]string) {
	for _, k := range []string{"format", "key.format", "value.format"} {
		if v, ok := o[k]; ok {
			fmt.Fprintf(b, "    %s: %s\n", k, v)
		}
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
