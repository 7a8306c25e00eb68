package option

import "fmt"

// Options that many connectors take, declared once (as Flink's
// FactoryUtil.SINK_PARALLELISM is). A connector lists them among its
// options, refining the description if it wants; the planner reads them
// from any validated table with Get, whatever its connector.
var (
	// SinkParallelism is sink.parallelism: the number of sink tasks;
	// unset, the upstream operator's parallelism.
	SinkParallelism = Int("sink.parallelism").
			Description("The parallelism of the sink. By default, the parallelism of the upstream operator.")
	// ScanParallelism is scan.parallelism: the number of source tasks;
	// unset, the job's default.
	ScanParallelism = Int("scan.parallelism").
			Description("The parallelism of the source. By default, the job's.")
)

// AtLeastOne is the rule that a parallelism option, when set, is at least
// 1; its error wraps class when class is not nil (a connector's error
// class, such as ErrConfig).
func AtLeastOne(o Opt[int], class error) Rule {
	return Check(o.Key()+" must be at least 1", func(c *Config) error {
		p, ok := o.Lookup(c)
		switch {
		case !ok || p >= 1:
			return nil
		case class != nil:
			return fmt.Errorf("%w: got %d", class, p)
		}
		return fmt.Errorf("got %d", p)
	}, o)
}
