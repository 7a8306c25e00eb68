package planner

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/ckptpath"
	"github.com/streamsql/streamsql/internal/errlist"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/option"
)

// runtimeSettings reads the runtime configuration (checkpointing and
// restart strategy) into Plan.Runtime from the job's SET options with
// jobconfig.ParseConfig, so that validation, EXPLAIN and the runtime agree
// on every key, and checks the other job-wide settings.
func (p *planner) runtimeSettings() []error {
	set := p.plan.Settings
	cfg, err := jobconfig.ParseConfig(set)
	p.plan.Runtime = cfg
	var errs []error
	if err != nil {
		for _, e := range errlist.Flatten(err) {
			var ce *jobconfig.ConfigError
			key := ""
			if errors.As(e, &ce) {
				key = ce.Key
				if p.settingsUnsure && ce.Value == "" && slices.Contains(jobconfig.Keys(), key) {
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
	_, p.plan.CheckpointModeSet = set["execution.checkpointing.mode"]
	for _, k := range cfg.Ignored {
		p.plan.Warnings = append(p.plan.Warnings, Warning{Pos: p.setPos[k].KeyPos, Kind: WarnIgnoredSetting,
			Message: fmt.Sprintf("'%s' has no effect in streamsql. %s", k, ignoredReason(k))})
	}
	// Flink's tuning switches that streamsql accepts and does otherwise:
	// when one is on, EXPLAIN says what streamsql does instead.
	for _, o := range []struct {
		opt     option.Opt[bool]
		instead string
	}{
		{settingDistinctSplit, "streamsql does not split a DISTINCT aggregate into two aggregation levels: each " +
			"key's distinct values are kept by the task that owns the key."},
	} {
		if v, ok := set[o.opt.Key()]; ok {
			if on, err := o.opt.Parse(v); err == nil && on {
				p.plan.Warnings = append(p.plan.Warnings, Warning{Pos: p.setPos[o.opt.Key()].KeyPos, Kind: WarnIgnoredSetting,
					Message: fmt.Sprintf("'%s' = 'true' is accepted for Flink job files; %s", o.opt.Key(), o.instead)})
			}
		}
	}
	errs = append(errs, p.miniBatch()...)
	if _, err := p.plan.ExprOptions(); err != nil {
		errs = append(errs, p.settingError(SettingLocalTimeZone, err))
	}
	p.plan.DefaultParallelism = 1
	for _, d := range []struct {
		o   option.Opt[time.Duration]
		dst *time.Duration
	}{{settingStateTTL, &p.plan.StateTTL}, {settingIdleTimeout, &p.plan.IdleTimeout}} {
		if v, ok := set[d.o.Key()]; ok {
			t, err := d.o.Parse(v)
			if err == nil && t < 0 {
				err = errors.New("must not be negative")
			}
			if err != nil {
				errs = append(errs, p.settingError(d.o.Key(), fmt.Errorf("%w: '%s' = '%s': %v", ErrInvalidSetting, d.o.Key(), v, err)))
				continue
			}
			*d.dst = t
		}
	}
	if v, ok := set[SettingDefaultParallelism]; ok {
		n, err := settingDefaultParallelism.Parse(v)
		if err == nil && n < 1 {
			err = errors.New("must be at least 1")
		}
		if err != nil {
			errs = append(errs, p.settingError(SettingDefaultParallelism, fmt.Errorf("%w: '%s' = '%s': %v", ErrInvalidSetting, SettingDefaultParallelism, v, err)))
		} else {
			p.plan.DefaultParallelism = n
		}
	}
	errs = append(errs, p.reuseSettings()...)
	if drop, err := notNullDrop(set); err != nil {
		errs = append(errs, p.settingError(SettingNotNullEnforcer, err))
	} else {
		p.plan.NotNullDrop = drop
	}
	if err := ckptpath.ValidJobName(p.plan.JobName); err != nil {
		errs = append(errs, p.settingError(SettingPipelineName, fmt.Errorf("invalid job name: %w", err)))
	}
	return errs
}

// miniBatch reads table.exec.mini-batch.* into Plan.MiniBatch. As Flink,
// it refuses mini-batch without a positive allow-latency and size.
func (p *planner) miniBatch() []error {
	set := p.plan.Settings
	on := false
	if v, ok := set[SettingMiniBatch]; ok {
		b, err := settingMiniBatch.Parse(v)
		if err != nil {
			return []error{p.settingError(SettingMiniBatch, fmt.Errorf("%w: '%s' = '%s': %v", ErrInvalidSetting, SettingMiniBatch, v, err))}
		}
		on = b
	}
	var errs []error
	latency, size := time.Duration(0), int64(-1)
	if v, ok := set[SettingMiniBatchLatency]; ok {
		d, err := settingMiniBatchLatency.Parse(v)
		if err != nil {
			errs = append(errs, p.settingError(SettingMiniBatchLatency, fmt.Errorf("%w: '%s' = '%s': %v", ErrInvalidSetting, SettingMiniBatchLatency, v, err)))
		}
		latency = d
	}
	if v, ok := set[SettingMiniBatchSize]; ok {
		n, err := settingMiniBatchSize.Parse(v)
		if err != nil {
			errs = append(errs, p.settingError(SettingMiniBatchSize, fmt.Errorf("%w: '%s' = '%s': %v", ErrInvalidSetting, SettingMiniBatchSize, v, err)))
		}
		size = n
	}
	if !on || len(errs) > 0 {
		return errs
	}
	if latency <= 0 {
		errs = append(errs, p.settingError(SettingMiniBatchLatency, fmt.Errorf("%w: '%s' must be greater than 0 when '%s' is true, as in Flink",
			ErrInvalidSetting, SettingMiniBatchLatency, SettingMiniBatch)))
	}
	if size <= 0 {
		errs = append(errs, p.settingError(SettingMiniBatchSize, fmt.Errorf("%w: '%s' must be greater than 0 when '%s' is true, as in Flink",
			ErrInvalidSetting, SettingMiniBatchSize, SettingMiniBatch)))
	}
	if len(errs) == 0 {
		p.plan.MiniBatch = int(min(size, math.MaxInt32))
		p.plan.MiniBatchLatency = latency
	}
	return errs
}

// ignoredReason says why the runtime ignores setting k (a current or an
// older Flink name).
func ignoredReason(k string) string {
	for _, s := range jobconfig.IgnoredSettings() {
		if s.Key == k || slices.Contains(s.Deprecated, k) {
			return s.Reason
		}
	}
	return "The runtime accepts it and does nothing with it."
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
	return option.FormatDuration(d)
}

// warnings adds the plan-wide warnings: exactly-once sinks without
// checkpointing or with AT_LEAST_ONCE checkpoints, and sources that read
// uncommitted records of what an exactly-once sink of the job writes. The
// connectors' own warnings were added when their tables were described.
func (p *planner) warnings() {
	pl := p.plan
	cp := pl.Runtime.Checkpoint
	add := func(pos ddl.Pos, kind factory.WarningKind, format string, args ...any) {
		p.deferred = append(p.deferred, Warning{Pos: pos, Kind: kind, Message: fmt.Sprintf(format, args...)})
	}
	eoTopics := map[string]string{} // topic → sink table
	for _, ins := range pl.Inserts {
		s := ins.Sink
		if s.Info.Delivery != factory.ExactlyOnce {
			p.sinkWarnings(ins)
			continue
		}
		if cp.Interval <= 0 {
			add(ins.Pos, WarnCommitOnStop, "sink '%s' is exactly-once but checkpointing is off (execution.checkpointing.interval is not set): it commits only when the job stops, so readers see nothing until then; set execution.checkpointing.interval",
				s.Name())
		}
		if cp.Mode == jobconfig.AtLeastOnce {
			add(ins.Pos, WarnAtLeastOnceCheckpoints, "sink '%s' is exactly-once but execution.checkpointing.mode is AT_LEAST_ONCE: barriers are not aligned, so a checkpoint may hold rows after it, which are written again after a failure (at-least-once); set execution.checkpointing.mode = 'EXACTLY_ONCE' (the default)",
				s.Name())
		}
		p.sinkWarnings(ins)
		for _, t := range s.Info.Topics {
			eoTopics[t] = s.Name()
		}
	}
	warned := map[string]bool{}
	for _, ins := range pl.Inserts {
		for _, fl := range ins.Flows {
			src := fl.Source
			if !src.Info.ReadsUncommitted {
				continue
			}
			for _, t := range src.Info.Topics {
				sink, ok := eoTopics[t]
				key := src.Name() + "\x00" + t
				if !ok || warned[key] {
					continue
				}
				warned[key] = true
				add(src.Pos, factory.WarnUncommittedRead, "source '%s' reads topic '%s'%s, and exactly-once sink '%s' of this job writes it: the source sees records before they are committed (and records of aborted transactions); %s",
					src.Name(), t, src.Info.UncommittedHow, sink, src.Info.UncommittedFix)
			}
		}
	}
	pl.Warnings = append(pl.Warnings, p.deferred...)
	slices.SortStableFunc(pl.Warnings, func(a, b Warning) int { return a.Pos.Offset - b.Pos.Offset })
}

// sinkWarnings adds the warnings the sink's connector gave (after the
// planner's own about the INSERT, which come first on its line).
func (p *planner) sinkWarnings(ins *Insert) {
	s := ins.Sink
	for _, w := range s.Info.Warnings {
		pos := ins.Pos
		if w.Key != "" && s.Table != nil {
			pos = optionPos(s.Table, s.hints, w.Key, false)
		}
		p.deferred = append(p.deferred, Warning{Pos: pos, Kind: w.Kind, Message: w.Message})
	}
}
