// Package materialize holds the upsert materializer (Flink's
// SinkUpsertMaterializer): in front of a sink that writes by its PRIMARY
// KEY, it turns a changelog keyed otherwise (a GROUP BY on other columns,
// a filter that drops some updates) into upserts and deletes by the sink's
// key that leave the sink as the changelog says it should be.
//
// For each sink key it keeps the rows the changelog holds for it, in
// arrival order; the sink shows the last one. An INSERT or UPDATE_AFTER
// adds a row and shows it; an UPDATE_BEFORE or DELETE removes the latest
// equal row, and when that was the shown one, shows the row before it, or
// deletes the key when none is left.
package materialize

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Spec configures an upsert materializer.
type Spec struct {
	// Keys are the columns of the sink's primary key, KeyTypes their
	// types; Types are the row's column types.
	Keys     []int
	KeyTypes []types.Type
	Types    []types.Type
	// TTL expires a key's rows when the key had no change for TTL
	// (table.exec.state.ttl); 0: never.
	TTL time.Duration
}

// New returns the factory of upsert materializers of spec. Its input must
// be hashed by the sink key and carry UPDATE_BEFORE rows.
func New(spec Spec) stream.Factory {
	return func(task stream.TaskInfo) (stream.Operator, error) {
		if len(spec.Keys) == 0 || len(spec.Keys) != len(spec.KeyTypes) {
			return nil, fmt.Errorf("upsert materializer: %d key columns, %d key types", len(spec.Keys), len(spec.KeyTypes))
		}
		m := &materializer{spec: spec, maxP: task.MaxParallelism}
		if m.maxP <= 0 {
			m.maxP = state.DefaultMaxParallelism
		}
		return m, nil
	}
}

type materializer struct {
	stream.Base
	spec Spec
	maxP int
	// rows maps (key, sequence number) to an encoded row; next holds each
	// key's next sequence number.
	rows state.MapTable
	next state.ValueTable

	key, seq, buf []byte
}

func (m *materializer) Open(ctx *stream.Context) error {
	if ctx.State == nil {
		return fmt.Errorf("upsert materializer: the task has no keyed state")
	}
	m.rows = ctx.State.Map("rows", state.TTL(m.spec.TTL))
	m.next = ctx.State.Value("next", state.TTL(m.spec.TTL))
	return nil
}

func (m *materializer) Process(_ int, rows []types.Row, out *stream.Output) error {
	for i := range rows {
		r := &rows[i]
		m.key = state.AppendKey(m.key[:0], r.Fields, m.spec.Keys, m.spec.KeyTypes)
		kg := state.KeyGroupOf(m.key, m.maxP)
		m.buf = state.AppendRow(m.buf[:0], r.Fields, m.spec.Types)
		var err error
		switch r.Kind {
		case types.Insert, types.UpdateAfter:
			err = m.add(kg, r, out)
		default:
			err = m.remove(kg, out)
		}
		if err != nil {
			return fmt.Errorf("upsert materializer: key group %d: %w", kg, err)
		}
	}
	return nil
}

// add appends the row (encoded in m.buf) to its key's rows and shows it.
func (m *materializer) add(kg int, r *types.Row, out *stream.Output) error {
	var n uint64
	old, ok, err := m.next.Get(kg, m.key)
	if err != nil {
		return err
	}
	if ok {
		n, _ = binary.Uvarint(old)
	}
	m.seq = binary.BigEndian.AppendUint64(m.seq[:0], n)
	if err := m.rows.Put(kg, m.key, m.seq, m.buf); err != nil {
		return err
	}
	if err := m.next.Put(kg, m.key, binary.AppendUvarint(nil, n+1)); err != nil {
		return err
	}
	// next exists exactly while the key holds rows (remove deletes it
	// with the last one).
	kind := types.UpdateAfter
	if !ok {
		kind = types.Insert
	}
	out.Emit(types.Row{Kind: kind, Fields: append([]types.Value(nil), r.Fields...)})
	return nil
}

// remove removes the latest row equal to the retracted one (m.buf) and
// shows what the key holds then.
func (m *materializer) remove(kg int, out *stream.Output) error {
	var hit, last, prev []byte
	var lastSeq, hitSeq []byte
	err := m.rows.RangeKey(kg, m.key, func(sub, val []byte) bool {
		if last != nil {
			prev = append(prev[:0], last...)
		}
		last = append(last[:0], val...)
		lastSeq = append(lastSeq[:0], sub...)
		if bytes.Equal(val, m.buf) {
			hit = append(hit[:0], val...)
			hitSeq = append(hitSeq[:0], sub...)
		}
		return true
	})
	if err != nil || hit == nil {
		return err // a retraction of a row the key does not hold: nothing to undo
	}
	if err := m.rows.Delete(kg, m.key, hitSeq); err != nil {
		return err
	}
	if !bytes.Equal(hitSeq, lastSeq) {
		return nil // not the shown row: the sink keeps what it shows
	}
	if prev == nil {
		if err := m.next.Delete(kg, m.key); err != nil {
			return err
		}
		row, err := m.decode(hit)
		if err != nil {
			return err
		}
		out.Emit(types.Row{Kind: types.Delete, Fields: row})
		return nil
	}
	row, err := m.decode(prev)
	if err != nil {
		return err
	}
	out.Emit(types.Row{Kind: types.UpdateAfter, Fields: row})
	return nil
}

func (m *materializer) decode(b []byte) ([]types.Value, error) {
	row, _, err := state.ReadRow(b, m.spec.Types, nil)
	return row, err
}
