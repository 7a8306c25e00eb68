package planner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
)

// CheckpointSettings are the checkpoint settings in effect, as EXPLAIN
// shows them and validation uses them.
type CheckpointSettings struct {
	// Interval is execution.checkpointing.interval; 0 means checkpointing
	// is off.
	Interval time.Duration
	// Mode is EXACTLY_ONCE (the default) or AT_LEAST_ONCE; ModeSet tells
	// whether the job set it.
	Mode    string
	ModeSet bool
	// Timeout is execution.checkpointing.timeout (default 10 min).
	Timeout time.Duration
	// Dir is execution.checkpointing.dir (or state.checkpoints.dir); ""
	// keeps checkpoints in memory.
	Dir string
}

// checkpointSettings reads the checkpoint settings from the job's SET
// options.
func (p *planner) checkpointSettings() (CheckpointSettings, error) {
	cp := CheckpointSettings{Mode: "EXACTLY_ONCE", Timeout: 10 * time.Minute}
	s := p.plan.Settings
	dur := func(key string, into *time.Duration) error {
		v, ok := s[key]
		if !ok {
			return nil
		}
		d, err := factory.ParseDuration(v)
		if err != nil || d < 0 {
			return p.settingError(key, fmt.Sprintf("'%s' = '%s' is not a duration such as '10 s' or '5 min'", key, v))
		}
		*into = d
		return nil
	}
	if err := dur("execution.checkpointing.interval", &cp.Interval); err != nil {
		return cp, err
	}
	if err := dur("execution.checkpointing.timeout", &cp.Timeout); err != nil {
		return cp, err
	}
	if v, ok := s["execution.checkpointing.mode"]; ok {
		m := strings.ToUpper(strings.TrimSpace(v))
		if m != "EXACTLY_ONCE" && m != "AT_LEAST_ONCE" {
			return cp, p.settingError("execution.checkpointing.mode",
				fmt.Sprintf("'execution.checkpointing.mode' = '%s' is not EXACTLY_ONCE or AT_LEAST_ONCE", v))
		}
		cp.Mode, cp.ModeSet = m, true
	}
	for _, k := range []string{"execution.checkpointing.dir", "state.checkpoints.dir"} {
		if v, ok := s[k]; ok {
			cp.Dir = v
			break
		}
	}
	return cp, nil
}

func (p *planner) settingError(key, msg string) error {
	if o, ok := p.setPos[key]; ok {
		return p.f.errorAt(o.ValuePos, ErrInvalidSetting, nil, msg)
	}
	return &Error{File: p.f.name, Message: msg + " (from --set)", Err: ErrInvalidSetting}
}

// formatDuration prints d the way Flink options are written.
func formatDuration(d time.Duration) string {
	return factory.FormatDuration(d)
}

// warnings adds the plan-wide warnings: an exactly-once checkpointing mode
// with at-least-once Kafka sinks, exactly-once sinks without
// checkpointing, read_uncommitted sources of topics the job writes
// transactionally, and derived transactional-id prefixes.
func (p *planner) warnings() {
	pl := p.plan
	cp := pl.Checkpoint
	var w []Warning
	add := func(pos ddl.Pos, format string, args ...any) {
		w = append(w, Warning{Pos: pos, Message: fmt.Sprintf(format, args...)})
	}
	eoTopics := map[string]string{} // topic → sink table
	for _, ins := range pl.Inserts {
		s := ins.Sink
		if s.Print {
			continue
		}
		isKafka := s.Connector() == "kafka"
		if isKafka && cp.ModeSet && cp.Mode == "EXACTLY_ONCE" && s.DeliveryGuarantee != "exactly-once" {
			add(ins.Pos, "execution.checkpointing.mode is EXACTLY_ONCE but Kafka sink '%s' delivers %s (its default): the mode only governs the job's own state; set 'sink.delivery-guarantee' = 'exactly-once' (and 'sink.transactional-id-prefix') on the sink for exactly-once output",
				s.Name(), s.DeliveryGuarantee)
		}
		if s.DeliveryGuarantee == "exactly-once" && cp.Interval <= 0 {
			add(ins.Pos, "sink '%s' is exactly-once but checkpointing is off (execution.checkpointing.interval is not set): it commits only when the job stops, so readers see nothing until then; set execution.checkpointing.interval",
				s.Name())
		}
		if s.PrefixDerived {
			add(ins.Pos, "sink '%s' has no 'sink.transactional-id-prefix'; using '%s', derived from the job name and table: it must be unique among all jobs writing to the cluster (two writers sharing ids fence each other), and stay the same across restarts",
				s.Name(), s.TransactionalIDPrefix)
		}
		if isKafka && s.DeliveryGuarantee == "exactly-once" {
			for _, t := range factory.ParseList(s.Options["topic"]) {
				eoTopics[t] = s.Name()
			}
		}
	}
	warned := map[string]bool{}
	for _, ins := range pl.Inserts {
		for _, fl := range ins.Flows {
			src := fl.Source
			if src.Table == nil || (src.Connector() != "kafka" && src.Connector() != "upsert-kafka") {
				continue
			}
			if isolationLevel(src.Options) != "read_uncommitted" {
				continue
			}
			for _, t := range factory.ParseList(src.Options["topic"]) {
				sink, ok := eoTopics[t]
				key := src.Name() + "\x00" + t
				if !ok || warned[key] {
					continue
				}
				warned[key] = true
				add(src.Pos, "source '%s' reads topic '%s' with isolation level read_uncommitted, and exactly-once sink '%s' of this job writes it: the source sees records before they are committed (and records of aborted transactions); set 'properties.isolation.level' = 'read_committed'",
					src.Name(), t, sink)
			}
		}
	}
	pl.Warnings = append(pl.Warnings, w...)
	slices.SortStableFunc(pl.Warnings, func(a, b Warning) int { return a.Pos.Offset - b.Pos.Offset })
}

// isolationLevel returns a Kafka source's isolation level (Kafka's default
// is read_uncommitted).
func isolationLevel(options map[string]string) string {
	if v, ok := options["properties.isolation.level"]; ok {
		return strings.ToLower(strings.TrimSpace(v))
	}
	return "read_uncommitted"
}
