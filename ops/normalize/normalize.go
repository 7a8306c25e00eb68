// Package normalize holds ChangelogNormalize (Flink's operator of that
// name): it turns the rows of an upsert source — INSERT or UPDATE_AFTER
// rows that replace a key's row, DELETE rows that remove it, identified by
// the table's primary key — into a full changelog, with the UPDATE_BEFORE
// row of every update and the whole old row of every delete, by keeping
// each key's last row in keyed state. Operators that retract (a GROUP BY
// over an upsert-kafka table) need it.
package normalize

import (
	"fmt"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Spec configures a ChangelogNormalize operator.
type Spec struct {
	// Keys are the columns of the primary key, KeyTypes their types.
	Keys     []int
	KeyTypes []types.Type
	// Types are the row's column types.
	Types []types.Type
}

// New returns the factory of ChangelogNormalize operators of spec. Its
// input must be hashed by the key.
func New(spec Spec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		if len(spec.Keys) == 0 || len(spec.Keys) != len(spec.KeyTypes) {
			return nil, fmt.Errorf("changelog normalize: %d key columns, %d key types", len(spec.Keys), len(spec.KeyTypes))
		}
		return &normalizer{spec: spec, maxP: task.MaxParallelism}, nil
	}
}

type normalizer struct {
	stream.Base
	spec     Spec
	maxP     int
	rows     state.ValueTable
	key, buf []byte
}

func (n *normalizer) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("changelog normalize: the task has no keyed state")
	}
	if n.maxP <= 0 {
		n.maxP = state.DefaultMaxParallelism
	}
	n.rows = ctx.State.Value("row")
	return nil
}

func (n *normalizer) Process(_ int, rows []types.Row, out *stream.Output) error {
	for i := range rows {
		r := &rows[i]
		n.key = state.AppendKey(n.key[:0], r.Fields, n.spec.Keys, n.spec.KeyTypes)
		kg := state.KeyGroupOf(n.key, n.maxP)
		old, had, err := n.rows.Get(kg, n.key)
		if err != nil {
			return err
		}
		var prev []types.Value
		if had {
			if prev, _, err = state.ReadRow(old, n.spec.Types, nil); err != nil {
				return fmt.Errorf("changelog normalize: key group %d: %w", kg, err)
			}
		}
		switch r.Kind {
		case types.Insert, types.UpdateAfter:
			n.buf = state.AppendRow(n.buf[:0], r.Fields, n.spec.Types)
			if had && string(n.buf) == string(old) {
				continue // the same row again: nothing changed
			}
			if err := n.rows.Put(kg, n.key, n.buf); err != nil {
				return err
			}
			fields := append([]types.Value(nil), r.Fields...)
			if !had {
				out.Emit(types.Row{Kind: types.Insert, Fields: fields})
				continue
			}
			out.Emit(types.Row{Kind: types.UpdateBefore, Fields: prev})
			out.Emit(types.Row{Kind: types.UpdateAfter, Fields: fields})
		case types.Delete:
			if !had {
				continue // a delete of a key it never held
			}
			if err := n.rows.Delete(kg, n.key); err != nil {
				return err
			}
			out.Emit(types.Row{Kind: types.Delete, Fields: prev})
		}
		// UPDATE_BEFORE rows of the input carry nothing the state does
		// not know.
	}
	return nil
}
