// Package calc holds the stateless operator of a query's filter and
// projection (Flink's Calc) between stateful operators: it maps each input
// row to zero or one output row with a function the planner compiled.
package calc

import (
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/types"
)

// Func maps one input row to zero or more output rows appended to out (the
// shape of the planner's compiled filter and projection). It keeps the
// row's kind.
type Func = func(in types.Row, out []types.Row) ([]types.Row, error)

// Spec configures a Calc operator.
type Spec struct {
	// New returns the function of one task (it may keep scratch memory
	// between calls: one task calls it).
	New func() Func
	// NewReusing, when set, is New for a task whose output nobody keeps
	// (stream.OutputReuser): release lets its function reuse the memory
	// of the rows it returned before.
	NewReusing func() (fn Func, release func())
	// NewCutting, when set, is New for a task whose output rows' fields
	// the runtime provides (stream.OutputCutter): the function cuts them
	// from take's memory, and drop makes it forget what it cuts from.
	NewCutting func(take func(k int) []types.Value) (fn Func, drop func())
	// Name describes the operator in errors ("pipeline 'sink'").
	Name string
	// AfterState says that the operator's input comes out of a stateful
	// operator: a row it rejects (connector.ErrBadRow) is no single
	// source record's, so no source's bad-record policy can take it,
	// and the error says so.
	AfterState bool
}

// New returns the factory of Calc operators of spec. A row the function
// rejects (connector.ErrBadRow or connector.ErrDropRow: a NULL for a NOT
// NULL sink column) goes by its source's bad-record policy when the
// operator gets its source's batches (stream.Context.RejectRow); else rows
// dropped on purpose (ErrDropRow, table.exec.sink.not-null-enforcer =
// DROP) are counted in stream.Metrics.Dropped, and any other error fails
// the task.
func New(spec Spec) stream.Factory {
	return func(stream.TaskInfo) (stream.Operator, error) {
		return &calc{spec: spec, fn: spec.New()}, nil
	}
}

type calc struct {
	stream.Base
	spec    Spec
	fn      Func
	out     []types.Row
	metrics *stream.Metrics
	reject  func(int, error) bool
}

func (c *calc) Open(ctx *stream.Context) error {
	c.metrics, c.reject = ctx.Metrics, ctx.RejectRow
	return nil
}

// ReuseOutput implements stream.OutputReuser: with Spec.NewReusing, the
// rows this operator emitted are the function's again at each release.
func (c *calc) ReuseOutput() func() {
	if c.spec.NewReusing == nil {
		return nil
	}
	fn, release := c.spec.NewReusing()
	c.fn = fn
	return release
}

// CutOutputFrom implements stream.OutputCutter with Spec.NewCutting.
func (c *calc) CutOutputFrom(take func(k int) []types.Value) (drop func()) {
	if c.spec.NewCutting == nil {
		return nil
	}
	fn, drop := c.spec.NewCutting(take)
	c.fn = fn
	return drop
}

// ForgetsInput implements stream.InputForgetter: the function copies the
// values of each row into rows of its own (the planner's Calc vertex
// promises OperatorVertex.Copies) and keeps no input row past the call.
func (c *calc) ForgetsInput() bool { return true }

func (c *calc) Process(_ int, rows []types.Row, out *stream.Output) error {
	var err error
	for i, r := range rows {
		c.out, err = c.fn(r, c.out[:0])
		if err != nil {
			drop := errors.Is(err, connector.ErrDropRow)
			if c.reject != nil && (drop || errors.Is(err, connector.ErrBadRow)) && c.reject(i, err) {
				continue // the source's bad-record policy took it
			}
			if drop {
				c.metrics.Dropped.Add(1)
				continue
			}
			if c.spec.AfterState && errors.Is(err, connector.ErrBadRow) {
				return fmt.Errorf("%s: %w (the row comes out of a stateful operator, not straight from a source record, so no source's 'scan.bad-record.policy' applies to it)", c.spec.Name, err)
			}
			return fmt.Errorf("%s: %w", c.spec.Name, err)
		}
		for _, o := range c.out {
			out.Emit(o)
		}
	}
	return nil
}
