package planner

import (
	"fmt"

	"github.com/streamsql/streamsql/factory"
)

// PipelineNames returns the names of the pipelines Build creates, in file
// order: the table each INSERT writes ("print" for a bare query),
// suffixed -2, -3, ... when several write the same table. EXPLAIN
// statements have none.
func (pl *Plan) PipelineNames() []string {
	var out []string
	seen := map[string]int{}
	for _, ins := range pl.Inserts {
		if ins.Explain {
			continue
		}
		name := ins.Sink.Name()
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s-%d", name, seen[name])
		}
		out = append(out, name)
	}
	return out
}

// factoryTable is the factory's view of table t.
func (pl *Plan) factoryTable(t *Table, schema factory.Schema, opts map[string]string) factory.Table {
	return factory.Table{Name: t.ID.String(), ObjectName: t.ID.Name, DisplayName: t.ID.Short(),
		Schema: schema, Options: opts, Job: pl.jobContext(false)}
}

// Registry returns the registry the plan's tables were validated with,
// which creates their sources and sinks (package job does).
func (pl *Plan) Registry() *factory.Registry { return pl.registry }
