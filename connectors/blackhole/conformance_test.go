package blackhole_test

import (
	"context"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connector/connectortest"
	"github.com/streamsql/streamsql/factory"
)

// TestConformance runs the connector conformance suite on the blackhole
// sink. Its output cannot be read back, so the checks exercise Write,
// PreCommit and Close only.
func TestConformance(t *testing.T) {
	tbl := factory.Table{Name: "bh", Schema: factory.PhysicalSchema(connectortest.Fields()),
		Options: map[string]string{"connector": "blackhole"}}
	connectortest.RunSink(t, connectortest.SinkHarness{
		New: func(testing.TB) connectortest.SinkFixture {
			return connectortest.SinkFixture{NewSink: func() (connector.Sink, error) {
				sink, _, err := factory.Default.CreateSink(context.Background(), tbl)
				return sink, err
			}}
		},
	})
}
