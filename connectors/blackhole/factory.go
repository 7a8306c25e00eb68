package blackhole

import (
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the value of the 'connector' option that selects blackhole.
const Identifier = "blackhole"

func init() {
	factory.MustRegisterConnector(Factory())
}

// Factory returns the blackhole connector's declaration, as registered in
// factory.Default. It has no options besides 'connector'.
func Factory() factory.ConnectorFactory {
	return factory.ConnectorFactory{
		Identifier:       Identifier,
		Description:      "Accepts every row and discards it, for benchmarks and for testing the source side of a job. It has no options.",
		ReadableMetadata: map[string]types.Type{},
		WritableMetadata: map[string]types.Type{},
		// As Flink's blackhole: every row kind, without asking for
		// UPDATE_BEFORE rows (so a Top-1 in front of it keeps only the
		// first row's sort key, as with an upsert sink).
		SinkChangelog: factory.NoUpdateBefore,
		Describe: func(*factory.Validated, factory.Role) (factory.TableInfo, error) {
			return factory.TableInfo{ScaleOut: "each instance discards its own rows"}, nil
		},
		NewSink: func(factory.Context) (connector.Sink, error) {
			return New(), nil
		},
	}
}
