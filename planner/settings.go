package planner

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/checkpoint"
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

// checkpointSettings reads the runtime configuration (checkpointing and
// restart strategy) from the job's SET options with runtime.ParseConfig,
// so that validation and the runtime agree on every key.
func (p *planner) checkpointSettings() (CheckpointSettings, []error) {
	set := p.plan.Settings
	cfg, err := runtime.ParseConfig(set)
	p.plan.Runtime = cfg
	var errs []error
	if err != nil {
		for _, e := range flatten(err) {
			var ce *runtime.ConfigError
			key := ""
			if errors.As(e, &ce) {
				key = ce.Key
				if p.settingsUnsure && ce.Value == "" && slices.Contains(runtime.Keys(), key) {
					// A check of the settings together (or of a default);
					// after a SET that did not parse, the settings are not
					// known, so the finding may be wrong.
					continue
				}
			}
			if ce != nil && ce.Value == "" {
				if o, ok := p.setPos[key]; ok {
					errs = append(errs, p.f.errorAt(o.KeyPos, ErrInvalidSetting, e, e.Error()))
					continue
				}
			}
			errs = append(errs, p.settingError(key, e))
		}
	}
	cp := CheckpointSettings{
		Interval: cfg.Checkpoint.Interval,
		Mode:     cfg.Checkpoint.Mode.String(),
		Timeout:  cfg.Checkpoint.Timeout,
		Dir:      cfg.Checkpoint.Dir,
	}
	_, cp.ModeSet = set["execution.checkpointing.mode"]
	for _, k := range cfg.Ignored {
		p.plan.Warnings = append(p.plan.Warnings, Warning{Pos: p.setPos[k].KeyPos,
			Message: fmt.Sprintf("'%s' has no effect in streamsql. %s", k, ignoredReason(k))})
	}
	if _, err := p.plan.ExprOptions(); err != nil {
		errs = append(errs, p.settingError("table.local-time-zone", err))
	}
	if err := checkpoint.ValidJobName(p.plan.JobName); err != nil {
		errs = append(errs, p.settingError("pipeline.name", fmt.Errorf("invalid job name: %w", err)))
	}
	return cp, errs
}

// ignoredReason says why the runtime ignores setting k (a current or an
// older Flink name).
func ignoredReason(k string) string {
	for _, s := range runtime.IgnoredSettings() {
		if s.Key == k || slices.Contains(s.Deprecated, k) {
			return s.Reason
		}
	}
	return "The runtime accepts it and does nothing with it."
}

// flatten returns the errors joined in err.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

func (p *planner) settingError(key string, cause error) error {
	if o, ok := p.setPos[key]; ok {
		return p.f.errorAt(o.ValuePos, ErrInvalidSetting, cause, cause.Error())
	}
	msg := cause.Error()
	if key != "" {
		msg += " (from --set)"
	}
	return &Error{File: p.f.name, Message: msg, Err: ErrInvalidSetting, Cause: cause}
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
