package planner_test

import (
	"github.com/streamsql/streamsql/connector"
	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/factory"
)

// testRegistry returns a copy of factory.Default with the built-in
// connectors and formats, so that tests validate options exactly as the
// CLI does, and may register connectors of their own.
func testRegistry() *factory.Registry {
	return factory.Default.Clone()
}

func noSource(factory.Context) (connector.Source, error) { return nil, nil }
func noSink(factory.Context) (connector.Sink, error)     { return nil, nil }
