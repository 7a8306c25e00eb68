package topicload_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/cmd/streamsql/internal/topicload"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestLoadCreatesTopicAndKeepsLines loads lines into a topic that does not
// exist on the real broker: Load creates it with the partitions asked for,
// and a read_committed reader finds every line once, in order, an empty
// line as a record without value; loading again into the existing topic
// appends.
func TestLoadCreatesTopicAndKeepsLines(t *testing.T) {
	b := kafkatest.Require(t)
	topic := kafkatest.UniqueName(t)
	adm := b.Admin(t)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = adm.DeleteTopic(ctx, topic)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lines := []string{`{"id":1}`, `{"id":2,"name":"a b"}`, ``, `{"id":3}`}
	n, err := topicload.Load(ctx, topicload.Options{Brokers: []string{b.Addr}, Topic: topic}, strings.NewReader(strings.Join(lines, "\n")+"\n"))
	if err != nil || n != 4 {
		t.Fatalf("Load = %d, %v; want 4 records", n, err)
	}
	details, err := adm.ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if d := details[topic]; d.Err != nil || len(d.Partitions) != 1 {
		t.Fatalf("topic %s after Load: %+v", topic, d)
	}
	if n, err := topicload.Load(ctx, topicload.Options{Brokers: []string{b.Addr}, Topic: topic}, strings.NewReader(`{"id":4}`)); err != nil || n != 1 {
		t.Fatalf("second Load = %d, %v; want 1 record", n, err)
	}
	recs := b.Consume(t, topic, true, time.Minute, func(r []*kgo.Record) bool { return len(r) >= 5 })
	got := kafkatest.Values(recs)
	want := append(slices.Clone(lines), `{"id":4}`)
	if !slices.Equal(got, want) {
		t.Fatalf("topic holds %q, want %q", got, want)
	}
	if recs[2].Value != nil {
		t.Fatalf("the empty line is %q, want a record without value", recs[2].Value)
	}
}

// TestLoadNamesTheLine: a line longer than MaxLine fails naming it.
func TestLoadNamesTheLine(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in := "{}\n" + strings.Repeat("x", topicload.MaxLine+1) + "\n"
	_, err := topicload.Load(ctx, topicload.Options{Brokers: []string{b.Addr}, Topic: topic}, strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("Load of a too long line: %v, want an error naming line 2", err)
	}
}
