package kafka

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestRestoreRefusesAnotherClusterOrTopic: a split state carries the
// cluster id and the topic id it was read from; restoring it against
// another cluster (the second test broker), against the topic deleted and
// created again under its name, or at an offset past the partition's end
// fails at open with connector.ErrUnrecoverable, naming both ids and the
// ways on (--reset-source, streamsql checkpoint drop). A state of the
// same topic restores; so does one written before states had ids.
func TestRestoreRefusesAnotherClusterOrTopic(t *testing.T) {
	brokers := kafkatest.RequireAll(t)
	if len(brokers) < 2 {
		t.Fatal("two test brokers needed (STREAMSQL_KAFKA_BOOTSTRAP and STREAMSQL_KAFKA_BOOTSTRAP_TV1)")
	}
	b, other := brokers[0], brokers[1]
	topic := b.Topic(t, 1)
	produceValues(t, b, topic, seq("a", 0, 5)...)
	cfg := srcConfig(b, topic)
	r := openReader(t, mustNewSource(t, cfg), nil)
	if got := readToEOF(t, r); len(got) != 5 {
		t.Fatalf("read %d records, want 5", len(got))
	}
	states := snapshotStates(t, r)
	state := states[topic+":0"]
	if _, id := cutIdentity(state); id.cluster == "" || id.topic == "" {
		t.Fatalf("state %q lacks the cluster or topic id", state)
	}
	// The same topic: it restores, at its offset.
	if r := openReader(t, mustNewSource(t, cfg), states); r.order[0].next != 5 {
		t.Fatalf("restored next %d, want 5", r.order[0].next)
	}
	// A state written before ids were: no check possible, it restores.
	if r := openReader(t, mustNewSource(t, cfg), map[string][]byte{topic + ":0": []byte("5")}); r.order[0].next != 5 {
		t.Fatalf("restored next %d from an old state, want 5", r.order[0].next)
	}
	refused := func(cfg sourceConfig, state []byte, want ...string) {
		t.Helper()
		_, err := mustNewSource(t, cfg).open(context.Background(), []connector.SplitState{{ID: topic + ":0", State: state}})
		if err == nil || !errors.Is(err, connector.ErrUnrecoverable) {
			t.Fatalf("restore of %q: %v, want an unrecoverable error", state, err)
		}
		for _, w := range append(want, "--reset-source", "streamsql checkpoint drop") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error lacks %q: %v", w, err)
			}
		}
	}
	_, was := cutIdentity(state)
	// Another cluster: the same topic name on the second broker.
	if _, err := other.Admin(t).CreateTopic(context.Background(), 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = other.Admin(t).DeleteTopic(context.Background(), topic) })
	other.AwaitPartitions(t, topic, 1)
	refused(srcConfig(other, topic), state, "was read from the Kafka cluster with id "+was.cluster, "are the cluster with id ")
	// The topic deleted and created again.
	adm := b.Admin(t)
	if _, err := adm.DeleteTopic(context.Background(), topic); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := adm.CreateTopic(context.Background(), 1, 1, nil, topic)
		if err == nil && resp.Err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("creating the topic again: %v %v", err, resp.Err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.AwaitPartitions(t, topic, 1)
	refused(cfg, state, "was read from the topic with id "+was.topic, "(it was deleted and created again)")
	// Past the end: an old state (no ids) at offset 5 of the new, empty
	// topic.
	refused(cfg, []byte("5"), "is offset 5, past the partition's end (0)")
}
