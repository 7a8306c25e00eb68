package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/ddl"
)

// scaleOutSettings reads pipeline.scale-out and pipeline.instance-id
// (docs/scale-out.md). In scale-out mode positions live in the consumer
// groups, not in checkpoint files: every instance would otherwise claim
// the same checkpoint folder, and restoring one instance's checkpoint
// after the group moved its partitions would rewind them.
func (p *planner) scaleOutSettings() {
	set := p.plan.Settings
	if v, ok := set[SettingScaleOut]; ok {
		on, err := settingScaleOut.Parse(v)
		if err != nil {
			p.errs = append(p.errs, p.settingError(SettingScaleOut, err))
			return
		}
		p.plan.ScaleOut = on
	}
	p.plan.InstanceID = strings.TrimSpace(set[SettingInstanceID])
	if !p.plan.ScaleOut {
		return
	}
	if id := p.plan.InstanceID; strings.ContainsAny(id, " \t/\\,") {
		p.errs = append(p.errs, p.settingError(SettingInstanceID,
			fmt.Errorf("instance id %q must not contain spaces, '/', '\\' or ','", id)))
	}
	if p.plan.Runtime.Checkpoint.Dir != "" {
		p.errs = append(p.errs, p.settingError("execution.checkpointing.dir", fmt.Errorf(
			"execution.checkpointing.dir cannot be used with %s = true: a scaled-out job keeps its positions in the Kafka consumer groups (committed with the output), and its instances would share one checkpoint folder; remove execution.checkpointing.dir",
			SettingScaleOut)))
	}
}

// checkScaleOut refuses, in scale-out mode, every table that cannot take
// part (factory.TableInfo.NoScaleOut, or a connector that does not say
// how it would), and a bare query's printing sink: each instance would
// print only its own share of the table.
func (p *planner) checkScaleOut() {
	if !p.plan.ScaleOut || p.settingsUnsure {
		return
	}
	refuse := func(ins *Insert, what, name, connector, why string) {
		msg := fmt.Sprintf("%s '%s' (connector '%s') cannot take part in a scaled-out job (%s = true): %s", what, name, connector, SettingScaleOut, why)
		p.errs = append(p.errs, p.f.errorAt(ins.Pos, ErrInvalidSetting, nil, msg))
	}
	groups := map[string]string{} // consumer group -> the source that reads it
	for _, ins := range p.plan.Inserts {
		if ins.Explain {
			continue
		}
		if nodes := ins.Nodes(); len(nodes) > 0 {
			// Keyed state would have to follow the partitions between
			// instances (Kafka Streams' changelog and repartition topics),
			// which streamsql does not have yet: docs/scale-out.md.
			p.errs = append(p.errs, p.f.errorAt(nodes[0].Pos, ddl.ErrUnsupported, nil, fmt.Sprintf(
				"%s keeps keyed state, which a scaled-out job (%s = true) cannot move between its instances yet; run it as one process with more tasks (parallelism.default) instead, see docs/scale-out.md",
				nodes[0].Kind, SettingScaleOut)))
			continue
		}
		for _, fl := range ins.Flows {
			src := fl.Source
			if r := src.Info.ResumesFrom; r != nil && src.Table != nil {
				key := r.System + "\x00" + r.Group
				if other, ok := groups[key]; ok {
					refuse(ins, "source", src.Name(), src.Connector(), fmt.Sprintf(
						"its consumer group '%s' is also read by source '%s' of the job: each instance joins a group once per source; give each source (and each INSERT reading a table) its own 'properties.group.id', for example with /*+ OPTIONS('properties.group.id' = '...') */",
						r.Group, other))
					continue
				}
				groups[key] = src.Name()
			}
			if src.Table == nil {
				p.errs = append(p.errs, p.f.errorAt(ins.Pos, ErrInvalidSetting, nil, fmt.Sprintf(
					"a VALUES source cannot take part in a scaled-out job (%s = true): every instance would emit its rows", SettingScaleOut)))
				continue
			}
			switch {
			case src.Info.NoScaleOut != "":
				refuse(ins, "source", src.Name(), src.Connector(), src.Info.NoScaleOut)
			case src.Info.ScaleOut == "":
				refuse(ins, "source", src.Name(), src.Connector(), "its connector does not say how its reading is shared among instances")
			}
		}
		s := ins.Sink
		switch {
		case s.Print:
			p.errs = append(p.errs, p.f.errorAt(ins.Pos, ErrInvalidSetting, nil, fmt.Sprintf(
				"a bare query cannot run in a scaled-out job (%s = true): each instance would print only the partitions it owns; write to a table with INSERT INTO instead", SettingScaleOut)))
		case s.Info.NoScaleOut != "":
			refuse(ins, "sink", s.Name(), s.Connector(), s.Info.NoScaleOut)
		case s.Info.ScaleOut == "":
			refuse(ins, "sink", s.Name(), s.Connector(), "its connector does not say how instances share its writing")
		}
	}
}
