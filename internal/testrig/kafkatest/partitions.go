package kafkatest

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// AwaitPartitions waits (up to a minute) until topic has n partitions in
// the broker's metadata, each with a leader that answers a ListOffsets
// request for it. CreateTopics and CreatePartitions return once the
// controller has recorded the change; the broker serving the partitions
// learns of it a moment later, and until then a client is refused with
// UNKNOWN_TOPIC_OR_PARTITION or (a producer choosing a partition itself)
// sees fewer partitions than exist. A client created after this returns
// sees all n.
func (b Broker) AwaitPartitions(t testing.TB, topic string, n int32) {
	t.Helper()
	adm := b.Admin(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		var why any
		md, err := adm.ListTopics(ctx, topic)
		switch td, ok := md[topic]; {
		case err != nil:
			why = err
		case !ok || td.Err != nil:
			why = td.Err
		case len(td.Partitions) != int(n):
			why = len(td.Partitions)
		default:
			end, err := adm.ListEndOffsets(ctx, topic)
			if err == nil {
				err = end.Error()
			}
			why = err
			if err == nil {
				answered := 0
				end.Each(func(o kadm.ListedOffset) { answered++ })
				if answered == int(n) {
					for _, p := range td.Partitions {
						if p.Leader < 0 || p.Err != nil {
							answered = -1
						}
					}
				}
				if answered == int(n) {
					return
				}
				why = answered
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("topic %s: %d partitions not all ready after a minute (last: %v)", topic, n, why)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
