package job

import (
	"context"
	"fmt"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/ops/lookup"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/runtime"
)

// lookupNode adds lookup join n (planner.LookupJoin) after its input: the
// operator opens the looked-up table's connector (a
// connector.LookupSource) in each task, and takes its input's rows where
// they are (a Forward edge, the input's parallelism: no state, no key to
// hash on).
func (b *graphBuilder) lookupNode(n *planner.Node) (int, int, error) {
	lp := n.Join.Lookup
	src, _, err := buildSource(b.ctx, b.pl, lp.Table, nil, nil, b.opts)
	if err != nil {
		return 0, 0, fmt.Errorf("pipeline %s: %w", b.pipe, err)
	}
	ls, ok := src.(connector.LookupSource)
	if !ok {
		return 0, 0, fmt.Errorf("%w: pipeline %s: table '%s' (connector '%s') cannot be looked up", planner.ErrInvalidTable, b.pipe, lp.Table.Name(), lp.Table.Connector())
	}
	spec, keys, job, table := lp.Spec, lp.Keys, b.pl.JobName, lp.Table.Name()
	spec.Open = func(ctx context.Context) (lookup.Func, func() error, error) {
		l, err := ls.OpenLookup(ctx, connector.TaskInfo{Job: job, Table: table}, keys)
		if err != nil {
			return nil, nil, err
		}
		return l.Lookup, l.Close, nil
	}
	from, tf, err := b.flow(n.Inputs[0])
	if err != nil {
		return 0, 0, err
	}
	par := b.g.Vertices[from].Parallelism
	v := b.add(runtime.Vertex{ID: n.ID, Name: n.String(), Parallelism: par,
		Operator: &runtime.OperatorVertex{New: lookup.New(spec), Copies: true}})
	b.g.Edges = append(b.g.Edges, runtime.Edge{From: from, To: v, Exchange: runtime.Exchange{Kind: runtime.Forward}, Transform: tf})
	return v, par, nil
}
