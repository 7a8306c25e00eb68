package connector

import (
	"context"

	"github.com/streamsql/streamsql/types"
)

// LookupSource is implemented by a source whose table can be looked up by
// key: the right input of a lookup join, FROM s JOIN t FOR SYSTEM_TIME AS
// OF s.proc_time AS t ON s.k = t.k (Flink's LookupTableSource). The
// connector's factory declares it (factory.ConnectorFactory.Lookup), so
// that the planner accepts such a join before any source exists.
type LookupSource interface {
	Source
	// OpenLookup returns a lookuper of the rows (the table's physical
	// columns, as the source reads them) whose columns keys, indexes into
	// those rows, equal given values. ctx is the run's: the lookuper's
	// connections and requests end with it, and Close releases them.
	OpenLookup(ctx context.Context, task TaskInfo, keys []int) (Lookuper, error)
}

// Lookuper looks rows of a table up by key. It is safe for concurrent
// use: a lookup join task keeps several lookups in flight.
type Lookuper interface {
	// Lookup appends to dst the rows whose key columns equal key (one
	// value per key column, in OpenLookup's order) and returns it; no
	// such row leaves dst as it is. A NULL in key matches no row, as SQL's
	// = does. The rows belong to the caller.
	Lookup(ctx context.Context, key []types.Value, dst []types.Row) ([]types.Row, error)
	// Close releases the lookuper; no Lookup runs during or after it.
	Close() error
}
