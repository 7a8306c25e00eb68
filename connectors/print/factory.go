package print

import (
	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// Identifier is the value of the 'connector' option that selects print.
const Identifier = "print"

// The connector's options, with Flink's names, defaults and meaning.
var (
	optIdentifier = option.String("print-identifier").
			Description("Message that identifies the print sink and is prefixed to every line of output.")
	optStandardError = option.Bool("standard-error").Default(false).
				Description("Print to standard error instead of standard output.")
	optParallelism = option.SinkParallelism.
			Description("The parallelism of the print sink. By default, the parallelism of the upstream operator.")
)

func init() {
	factory.MustRegisterConnector(Factory())
}

// Factory returns the print connector's declaration, as registered in
// factory.Default.
func Factory() factory.ConnectorFactory {
	return factory.ConnectorFactory{
		Identifier: Identifier,
		Description: "Prints every row to standard output or standard error in Flink's shape, " +
			"such as `+I[1, foo]`, prefixed by the identifier and the task number. For looking at results.",
		Options: []option.Option{optIdentifier, optStandardError, optParallelism},
		Describe: func(*factory.Validated, factory.Role) (factory.TableInfo, error) {
			return factory.TableInfo{ScaleOut: "each instance prints the rows of the partitions it owns"}, nil
		},
		Rules: []option.Rule{
			option.AtLeastOne(optParallelism, nil),
		},
		ReadableMetadata: map[string]types.Type{},
		WritableMetadata: map[string]types.Type{},
		SinkChangelog:    factory.AllKinds,
		NewSink: func(ctx factory.Context) (connector.Sink, error) {
			fields := ctx.Schema.PhysicalFields()
			colTypes := make([]types.Type, len(fields))
			for i, f := range fields {
				colTypes[i] = f.Type
			}
			s := New(Config{
				Identifier:    optIdentifier.Get(ctx.Options),
				StandardError: optStandardError.Get(ctx.Options),
			}, colTypes)
			s.parallelism = optParallelism.Get(ctx.Options)
			return s, nil
		},
	}
}

// Parallelism returns sink.parallelism, or 0 when it is not set (the
// runtime then uses the upstream operator's parallelism).
func (s *Sink) Parallelism() int { return s.parallelism }
