package kafkatest

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// AwaitStable waits (up to a minute) until every partition of topics has
// its last stable offset at its high watermark: no transaction is open on
// them. A successful commit (EndTxn) returns before the coordinator has
// written the commit markers, so the records of the last committed
// transaction become visible to read_committed readers a moment later —
// and a read_committed reader bounded at the latest offset, started
// before then, stops short of them. A transaction left open keeps the
// last stable offset down and fails the wait, naming the offsets.
func (b Broker) AwaitStable(t testing.TB, topics ...string) {
	t.Helper()
	if len(topics) == 0 {
		return
	}
	adm := b.Admin(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		end, err := adm.ListEndOffsets(ctx, topics...)
		if err == nil {
			err = end.Error()
		}
		stable, serr := adm.ListCommittedOffsets(ctx, topics...)
		if serr == nil {
			serr = stable.Error()
		}
		settled := err == nil && serr == nil
		end.Each(func(o kadm.ListedOffset) {
			if s, ok := stable.Lookup(o.Topic, o.Partition); !ok || s.Offset != o.Offset {
				settled = false
			}
		})
		if settled {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("topics %v: a transaction is still open (last stable offsets %v, end offsets %v, errors %v %v)",
				topics, stable, end, err, serr)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
