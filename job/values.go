package job

import (
	"context"
	"fmt"
	"io"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// valuesSource is the bounded source of a VALUES clause: one split whose
// rows are read once.
type valuesSource struct {
	rows []types.Row
}

// newValuesSource evaluates the constant rows of a VALUES source.
func newValuesSource(s *planner.Source, opts expr.Options) (*valuesSource, error) {
	vs := &valuesSource{}
	for _, r := range s.Values {
		row := types.Row{Fields: make([]types.Value, len(r))}
		for i, e := range r {
			var err error
			if !e.Type().Equal(s.RowTypes[i]) {
				if e, err = expr.AssignTo(e, s.RowTypes[i]); err != nil {
					return nil, err
				}
			}
			p, err := expr.Compile(e, opts)
			if err != nil {
				return nil, err
			}
			if row.Fields[i], err = p.Eval(nil); err != nil {
				return nil, fmt.Errorf("VALUES row %d, column %d: %w", len(vs.rows)+1, i+1, err)
			}
		}
		vs.rows = append(vs.rows, row)
	}
	return vs, nil
}

const valuesSplit = "values"

func (s *valuesSource) Splits(context.Context) ([]connector.Split, error) {
	return []connector.Split{{ID: valuesSplit}}, nil
}

func (s *valuesSource) Open(_ context.Context, _ connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r := &valuesReader{}
	for _, sp := range splits {
		if sp.ID == valuesSplit {
			r.rows = s.rows
			r.done = string(sp.State) == "done"
		}
	}
	if len(splits) == 0 {
		r.done = true
	}
	return r, nil
}

func (s *valuesSource) Bounded() bool { return true }

type valuesReader struct {
	rows []types.Row
	done bool
}

func (r *valuesReader) Read(ctx context.Context) ([]types.Row, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.done {
		return nil, io.EOF
	}
	r.done = true
	out := make([]types.Row, len(r.rows))
	for i, row := range r.rows {
		out[i] = types.Row{Kind: row.Kind, Fields: append([]types.Value(nil), row.Fields...)}
	}
	return out, nil
}

func (r *valuesReader) Snapshot(int64) ([]connector.SplitState, error) {
	if r.rows == nil && r.done {
		return nil, nil
	}
	st := connector.SplitState{ID: valuesSplit}
	if r.done {
		st.State = []byte("done")
	}
	return []connector.SplitState{st}, nil
}

func (r *valuesReader) Close() error { return nil }
