package kafka

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// openScaled joins group as instance id of a scaled-out source of topic
// and opens a reader over the partitions the group assigns it.
func openScaled(t *testing.T, b kafkatest.Broker, topic, group, id string) (*source, *reader) {
	t.Helper()
	cfg := srcConfig(b, topic, "group.id", group, "heartbeat.interval.ms", "300")
	cfg.BoundedMode, cfg.ScaleOut, cfg.InstanceID = unbounded, true, id
	src := mustNewSource(t, cfg)
	t.Cleanup(func() { scaledSource{src}.Released(true) })
	r := openReader(t, src, nil)
	t.Cleanup(func() { r.Close() })
	return src, r
}

// groupJoiner adds a plain member to group, subscribed to topic, and
// returns it (closed at the end of the test: it leaves the group).
func groupJoiner(t *testing.T, b kafkatest.Broker, group, topic string) *kgo.Client {
	t.Helper()
	cl := b.Client(t, kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.Balancers(kgo.CooperativeStickyBalancer()),
		kgo.HeartbeatInterval(300*time.Millisecond))
	// The client joins and syncs from its polls.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			cl.PollFetches(ctx)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return cl
}

// awaitGeneration waits until m's generation is above gen and the group
// is stable with members members; it returns the new generation.
func awaitGeneration(t *testing.T, b kafkatest.Broker, m *member, group string, gen int32, members int) int32 {
	t.Helper()
	adm := b.Admin(t)
	deadline := time.Now().Add(waitLong)
	for {
		_, g := m.cl.GroupMetadata()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		d, err := adm.DescribeGroups(ctx, group)
		cancel()
		if err == nil && g > gen && d[group].State == "Stable" && len(d[group].Members) == members {
			return g
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s: generation %d (want above %d), describe %v", group, g, gen, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestScaleOutOffsetsCommitUnderCurrentGeneration: a rebalance that leaves
// a member its partitions still bumps the group's generation. Offsets
// snapshotted before it are committed in the sink's transaction under the
// generation of the commit, so the transaction commits instead of being
// refused like a zombie's (ILLEGAL_GENERATION, an abort and a restart of
// the instance's run: the slow tail of the rebalance pause). Offsets of a
// partition the group has given to another member stay refused.
func TestScaleOutOffsetsCommitUnderCurrentGeneration(t *testing.T) {
	forEachBroker(t, func(t *testing.T, b kafkatest.Broker) {
		in, other, out := b.Topic(t, 2), b.Topic(t, 1), b.Topic(t, 1)
		group := kafkatest.UniqueName(t)
		ctx := context.Background()
		src, r := openScaled(t, b, in, group, "a")
		m := src.groupMember()
		if got := m.ownedIDs(); len(got) != 2 {
			t.Fatalf("instance a owns %v; want both partitions of %s", got, in)
		}
		run, err := startEOS(t, eosConfig(b, out, kafkatest.UniqueName(t), &memoryAckTracker{}))
		if err != nil {
			t.Fatal(err)
		}

		// Checkpoint 1's positions are taken; then a member of another
		// topic joins: a rebalance that moves nothing of a's.
		p, ok := r.GroupPositions()
		if !ok || p.Generation < 0 {
			t.Fatalf("GroupPositions = %+v, %v; want a member's", p, ok)
		}
		p.Offsets[0].Offset, p.Offsets[1].Offset = 5, 7
		mustWrite(t, run.w, rows(seq("x-", 0, 3)...))
		groupJoiner(t, b, group, other)
		gen := awaitGeneration(t, b, m, group, p.Generation, 2)
		if got := m.ownedIDs(); len(got) != 2 {
			t.Fatalf("instance a owns %v after a rebalance over another topic; want both partitions", got)
		}
		cs, err := run.w.PreCommitWithPositions(ctx, 1, []connector.GroupPositions{p})
		if err != nil || len(cs) != 1 {
			t.Fatalf("offsets of generation %d, committed at generation %d with the partitions still a's: %v (%d committables)", p.Generation, gen, err, len(cs))
		}
		if err := run.cm.Commit(ctx, cs[0]); err != nil {
			t.Fatal(err)
		}
		expectGroup(t, b, group, in, 5, 7)

		// A member of a's topic joins: the group takes a partition from
		// a (the run reading it stops and releases it, as the runtime
		// does). Positions of both partitions are a zombie's now.
		p, _ = r.GroupPositions()
		p.Offsets[0].Offset, p.Offsets[1].Offset = 9, 11
		released := make(chan struct{})
		go func() {
			defer close(released)
			select {
			case <-scaledSource{src}.Reassigned():
				scaledSource{src}.Released(false)
			case <-t.Context().Done():
			}
		}()
		groupJoiner(t, b, group, in)
		awaitGeneration(t, b, m, group, gen, 3)
		// The partition has moved once the joiner owns it (the
		// rebalance after a's revocation).
		adm := b.Admin(t)
		for deadline := time.Now().Add(waitLong); ; {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			d, err := adm.DescribeGroups(ctx, group)
			cancel()
			assigned := 0
			if err == nil && d[group].State == "Stable" {
				for _, mb := range d[group].Members {
					if ca, ok := mb.Assigned.AsConsumer(); ok {
						for _, tp := range ca.Topics {
							if tp.Topic == in {
								assigned += len(tp.Partitions)
							}
						}
					}
				}
			}
			if assigned == 2 && len(m.ownedIDs()) == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the joiner never got a partition of %s from a (a owns %v)", in, m.ownedIDs())
			}
			time.Sleep(100 * time.Millisecond)
		}
		mustWrite(t, run.w, rows(seq("y-", 0, 3)...))
		_, err = run.w.PreCommitWithPositions(ctx, 2, []connector.GroupPositions{p})
		if !errors.Is(err, kerr.IllegalGeneration) && !errors.Is(err, kerr.UnknownMemberID) && !errors.Is(err, kerr.FencedInstanceID) {
			t.Fatalf("offsets of a partition the group moved to another member: PreCommitWithPositions = %v; want the group's refusal", err)
		}
		expectGroup(t, b, group, in, 5, 7)
		<-released
	})
}
