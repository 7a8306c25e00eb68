package cdc

import (
	"errors"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/json"
	"github.com/streamsql/streamsql/types"
)

// debeziumEncoder writes each row as one Debezium envelope
// {"before":...,"after":...,"op":...} with a json encoder, as Flink's
// DebeziumJsonSerializationSchema: INSERT and UPDATE_AFTER as op 'c' with
// 'after', UPDATE_BEFORE and DELETE as op 'd' with 'before'.
type debeziumEncoder struct {
	env    factory.Encoder
	envRow types.Row
}

var (
	opCreate = types.Str("c")
	opDelete = types.Str("d")
)

func newDebeziumEncoder(ctx factory.FormatContext) (factory.Encoder, error) {
	if SchemaInclude.Get(ctx.Options) {
		return nil, errors.New("debezium-json cannot write with 'debezium-json.schema-include' = 'true' (neither can Flink); leave it unset for a sink")
	}
	phys := types.RowType(ctx.Fields...)
	fields := []types.Field{{Name: "before", Type: phys}, {Name: "after", Type: phys}, {Name: "op", Type: types.String()}}
	env, err := json.NewEncoder(factory.FormatContext{Table: ctx.Table, Fields: fields, Options: ctx.Options})
	if err != nil {
		return nil, err
	}
	return &debeziumEncoder{env: env, envRow: types.NewRow(3)}, nil
}

// Encode implements factory.Encoder.
func (e *debeziumEncoder) Encode(dst []byte, row types.Row) ([]byte, error) {
	f := e.envRow.Fields
	switch row.Kind {
	case types.Insert, types.UpdateAfter:
		f[0], f[1], f[2] = types.Value{}, types.List(row.Fields), opCreate
	default:
		f[0], f[1], f[2] = types.List(row.Fields), types.Value{}, opDelete
	}
	out, err := e.env.Encode(dst, e.envRow)
	clear(f)
	var ee *factory.EncodeError
	if errors.As(err, &ee) {
		c := *ee
		c.Format = Debezium
		return out, &c
	}
	return out, err
}
