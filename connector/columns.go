package connector

import (
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// CheckRow checks that row has the fields columns declare, each held the
// way its type's values are (types.Value.Fits: kinds, not ranges): a
// source's rows must be its table's physical and metadata columns in
// declaration order. The error names the first column that does not fit,
// so that a connector that puts fields in another order (silent wrong
// values otherwise) says so at once. The runtime checks the first batch
// of every reader; connectortest checks every row.
func CheckRow(row types.Row, columns []types.Field) error {
	if len(row.Fields) != len(columns) {
		names := make([]string, len(columns))
		for i, c := range columns {
			names[i] = c.Name
		}
		return fmt.Errorf("a row has %d fields, but the table declares %d columns %q: a source's rows must hold the table's physical and metadata columns in declaration order",
			len(row.Fields), len(columns), names)
	}
	for i, c := range columns {
		if v := row.Fields[i]; !v.Fits(c.Type) {
			return fmt.Errorf("column %d '%s' is declared %s, but the row holds %s there: a source's rows must hold the table's columns in declaration order, each as its type's values are held (package types)",
				i+1, c.Name, c.Type, v.HeldAs())
		}
	}
	return nil
}
