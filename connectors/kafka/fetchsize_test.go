package kafka

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestSourceReadsRecordsLargerThanFetchSizes reads, with the default fetch
// sizes (DefaultPartitionFetchBytes, DefaultFetchMaxBytes), records larger
// than both, between small ones: the broker returns a batch larger than
// the limits when it is the first of a fetch, so the reader neither stalls
// nor skips them.
func TestSourceReadsRecordsLargerThanFetchSizes(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.TopicWithConfig(t, 1, map[string]string{"max.message.bytes": fmt.Sprint(4 << 20)})
	big := func(i int) string { return fmt.Sprintf("big%d-", i) + strings.Repeat("x", DefaultFetchMaxBytes*3/2+i) }
	want := []string{"s0", big(1), "s2", big(3), big(4), "s5"}
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.ProducerBatchMaxBytes(4<<20), kgo.ProducerBatchCompression(kgo.NoCompression()))
	for _, v := range want {
		// One at a time: each record in a batch of its own.
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	got := readToEOF(t, openReader(t, mustNewSource(t, srcConfig(b, topic)), nil))
	if !slices.Equal(got, want) {
		sizes := func(vs []string) []int {
			var n []int
			for _, v := range vs {
				n = append(n, len(v))
			}
			return n
		}
		t.Fatalf("read records of sizes %v, want %v in order", sizes(got), sizes(want))
	}
}
