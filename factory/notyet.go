package factory

import (
	"fmt"

	"github.com/streamsql/streamsql/option"
)

// NotYet is a connector option that streamsql recognises (it is Flink's)
// but does not implement, with what to do instead.
type NotYet struct {
	Key, Why string
}

// NotSupportedYet declares each option of notYet, so that setting one is an
// error that says it is not supported yet and why (wrapping sentinel),
// rather than "unknown option". It returns the options and their rules for
// a ConnectorFactory's Options and Rules.
func NotSupportedYet(sentinel error, notYet []NotYet) ([]option.Option, []option.Rule) {
	opts := make([]option.Option, 0, len(notYet))
	rules := make([]option.Rule, 0, len(notYet))
	for _, n := range notYet {
		o := option.String(n.Key).Description("Not supported yet: " + n.Why + ".")
		opts = append(opts, o)
		rules = append(rules, option.Check(n.Key+" is not supported yet: "+n.Why, func(c *option.Config) error {
			if _, ok := o.Lookup(c); ok {
				return fmt.Errorf("%w: %s is not supported yet", sentinel, n.Key)
			}
			return nil
		}, o))
	}
	return opts, rules
}
