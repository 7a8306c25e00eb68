package kafkatest

import (
	"context"
	"testing"
	"time"
)

// TopicWithConfig is Topic with topic configuration (for example
// max.message.bytes, to make the broker reject records).
func (b Broker) TopicWithConfig(t testing.TB, partitions int32, configs map[string]string) string {
	t.Helper()
	adm := b.Admin(t)
	topic := UniqueName(t)
	cfg := make(map[string]*string, len(configs))
	for k, v := range configs {
		cfg[k] = &v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := adm.CreateTopic(ctx, partitions, 1, cfg, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("creating topic %s with %v: %v", topic, configs, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = adm.DeleteTopic(ctx, topic)
	})
	b.AwaitPartitions(t, topic, partitions)
	return topic
}
