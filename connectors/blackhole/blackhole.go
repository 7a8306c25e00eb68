// Package blackhole is the blackhole connector: a sink that accepts every
// row and discards it, for benchmarks and for testing a pipeline's source
// side. It counts what it discarded. Importing the package registers it in
// factory.Default as 'blackhole'.
//
//	CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole')
//
// It has no options besides 'connector', as in Flink.
package blackhole

import (
	"context"
	"sync/atomic"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// Sink discards rows. It implements connector.Sink.
type Sink struct {
	rows atomic.Int64
}

// Sink is a connector.Sink (checked by the compiler).
var _ connector.Sink = (*Sink)(nil)

// New returns a blackhole sink.
func New() *Sink { return &Sink{} }

// Rows returns how many rows all writers of the sink have discarded.
func (s *Sink) Rows() int64 { return s.rows.Load() }

// Open returns a writer that discards rows.
func (s *Sink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	return writer{s}, nil
}

type writer struct{ sink *Sink }

// writer is a connector.Writer (checked by the compiler).
var _ connector.Writer = (*writer)(nil)

func (w writer) Write(_ context.Context, rows []types.Row) error {
	w.sink.rows.Add(int64(len(rows)))
	return nil
}

// ForgetsRows reports that the writer keeps no row past Write
// (connector.RowForgetter): it only counts them.
func (writer) ForgetsRows() bool { return true }

func (writer) PreCommit(context.Context, int64) ([]connector.Committable, error) { return nil, nil }

func (writer) Close() error { return nil }
