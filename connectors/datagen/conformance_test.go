package datagen_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connector/connectortest"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// datagenInput returns the harness input of a datagen source with the
// given options: sequence fields make it generate exactly the suite's
// rows, (i, "i") for i from 0.
func datagenInput(opts map[string]string) func(t testing.TB, rows []types.Row) func() (connector.Source, error) {
	return func(t testing.TB, rows []types.Row) func() (connector.Source, error) {
		if !slices.EqualFunc(rows, connectortest.Rows(len(rows)), func(a, b types.Row) bool {
			return connectortest.RowKey(a) == connectortest.RowKey(b)
		}) {
			t.Fatal("datagen generates connectortest.Rows only")
		}
		last := strconv.Itoa(len(rows) - 1)
		all := map[string]string{
			"connector":         "datagen",
			"fields.id.kind":    "sequence",
			"fields.id.start":   "0",
			"fields.id.end":     last,
			"fields.name.kind":  "sequence",
			"fields.name.start": "0",
			"fields.name.end":   last,
		}
		for k, v := range opts {
			all[k] = v
		}
		tbl := factory.Table{Name: "cat.db.gen", Schema: factory.PhysicalSchema(connectortest.Fields()), Options: all}
		return func() (connector.Source, error) {
			src, _, err := factory.Default.CreateSource(context.Background(), tbl)
			return src, err
		}
	}
}

// TestConformance runs the connector conformance suite on datagen sources:
// as fast as possible with three splits, and rate-limited, so that Reads
// are also interrupted while the reader waits for its next rows.
func TestConformance(t *testing.T) {
	t.Run("unlimited", func(t *testing.T) {
		connectortest.RunSource(t, connectortest.SourceHarness{
			Input: datagenInput(map[string]string{"rows-per-second": "0", "scan.parallelism": "3"}),
			N:     2000,
		})
	})
	t.Run("rate-limited", func(t *testing.T) {
		connectortest.RunSource(t, connectortest.SourceHarness{
			Input: datagenInput(map[string]string{"rows-per-second": "4000", "scan.parallelism": "2"}),
		})
	})
	t.Run("number-of-rows", func(t *testing.T) {
		connectortest.RunSource(t, connectortest.SourceHarness{
			Input: func(t testing.TB, rows []types.Row) func() (connector.Source, error) {
				return datagenInput(map[string]string{"rows-per-second": "0", "scan.parallelism": "3",
					"number-of-rows": strconv.Itoa(len(rows)), "fields.id.end": "1000000", "fields.name.end": "1000000"})(t, rows)
			},
		})
	})
}
