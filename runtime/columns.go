package runtime

import (
	"fmt"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// checkFirstBatch checks the rows of a reader's first batch against the
// columns its source declares (SourceVertex.Columns; nothing when none
// are given): a custom source that puts fields in another order, or of
// another kind, would otherwise give silently wrong values. Later batches
// are not checked (it costs once per reader).
func (h *readerHead) checkFirstBatch(rows []types.Row) error {
	if h.checked {
		return nil
	}
	h.checked = true
	cols := h.src.v.Columns
	if cols == nil {
		return nil
	}
	for i, r := range rows {
		if err := connector.CheckRow(r, cols); err != nil {
			return fmt.Errorf("%w: source %q task %d: row %d of its first batch: %w", ErrInvalidSpec, h.src.id, h.index, i+1, err)
		}
	}
	return nil
}
