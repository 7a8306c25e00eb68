package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/connector"
)

// revokeTimeout bounds how long a scaled-out source holds its group's
// rebalance while the run reading the revoked partitions takes its final
// checkpoint. Past it the partitions go anyway: the run's transaction can
// then no longer commit offsets under the group's generation (the broker
// fences it), so it aborts and the next owner re-reads the interval.
const revokeTimeout = 30 * time.Second

// member is a source's membership of its consumer group in a scaled-out
// job (pipeline.scale-out). Its client joins the group (cooperative-sticky
// balancing, static membership under the instance id) and never fetches:
// fetching is paused, and the job's readers read the assigned partitions
// by direct assignment, from the group's committed offsets. The client is
// also what commits offsets outside transactions (at-least-once sinks), so
// that they carry the member's generation.
type member struct {
	src      *source
	instance string
	cl       *kgo.Client

	mu sync.Mutex
	// owned maps each partition the group assigns this member to a stamp
	// unique to that assignment: a partition lost and assigned again gets
	// a new one, so that a claim (a run's hold) taken before no longer
	// matches.
	owned    map[topicPartition]uint64
	held     map[topicPartition]uint64 // revoked, while the revocation waits for the run reading them
	stamp    uint64                    // the last stamp given
	first    chan struct{}             // closed at the first assignment
	gotFirst bool
	run      *memberRun // the run reading the assignment; nil between runs
}

// memberRun is one run of the job over one assignment.
type memberRun struct {
	changed, released chan struct{}
	changeOnce        sync.Once
	releaseOnce       sync.Once
}

func (r *memberRun) change()  { r.changeOnce.Do(func() { close(r.changed) }) }
func (r *memberRun) release() { r.releaseOnce.Do(func() { close(r.released) }) }

// join creates the member's client, which joins the group at once.
func (s *source) join() (*member, error) {
	m := &member{src: s, instance: s.cfg.InstanceID, owned: map[topicPartition]uint64{}, held: map[topicPartition]uint64{},
		first: make(chan struct{})}
	opts := []kgo.Opt{
		kgo.ConsumerGroup(s.settings.groupID),
		kgo.ConsumeTopics(s.cfg.Topics...),
		kgo.Balancers(kgo.CooperativeStickyBalancer()),
		kgo.InstanceID(m.instance),
		kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(m.assigned),
		kgo.OnPartitionsRevoked(m.revoked),
		kgo.OnPartitionsLost(m.lost),
	}
	if d := s.settings.sessionTimeout; d > 0 {
		opts = append(opts, kgo.SessionTimeout(d))
	}
	if d := s.settings.heartbeatInterval; d > 0 {
		opts = append(opts, kgo.HeartbeatInterval(d))
	}
	if d := s.settings.rebalanceTimeout; d > 0 {
		opts = append(opts, kgo.RebalanceTimeout(d))
	}
	cl, err := s.newClient(opts...)
	if err != nil {
		return nil, err
	}
	// The member only holds the assignment; the readers fetch.
	cl.PauseFetchTopics(s.cfg.Topics...)
	m.cl = cl
	return m, nil
}

func (m *member) log() func(msg string, args ...any) { return m.src.cfg.Logger.Info }

// assigned records newly assigned partitions; a running run restarts to
// read them.
//
// It uses the client kgo passes in, not m.cl: the first assignment can
// arrive before join has stored the client.
func (m *member) assigned(_ context.Context, cl *kgo.Client, added map[string][]int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for t, ps := range added {
		for _, p := range ps {
			m.stamp++
			m.owned[topicPartition{t, p}] = m.stamp
			n++
		}
	}
	_, gen := cl.GroupMetadata()
	m.log()("kafka source: consumer group assigned partitions", "group", m.src.settings.groupID, "instance", m.instance,
		"generation", gen, "added", fmtAssignment(added), "owned", len(m.owned))
	if !m.gotFirst {
		m.gotFirst = true
		close(m.first)
		return
	}
	if m.run != nil && n > 0 {
		m.run.change()
	}
}

// revoked gives up partitions. While a run reads them, it holds the
// rebalance until that run has stopped with a final checkpoint (its
// transactions, and the offsets committed in them, complete first), for
// at most revokeTimeout.
func (m *member) revoked(ctx context.Context, _ *kgo.Client, gone map[string][]int32) {
	m.drop(ctx, gone, true)
}

// lost gives up partitions the group took away (a fatal group error: this
// member was fenced, say after a pause past the session timeout). The run
// must stop; its commits fail under the stale generation, so nothing of
// it is waited for.
func (m *member) lost(ctx context.Context, _ *kgo.Client, gone map[string][]int32) {
	m.drop(ctx, gone, false)
}

func (m *member) drop(ctx context.Context, gone map[string][]int32, wait bool) {
	m.mu.Lock()
	n := 0
	for t, ps := range gone {
		for _, p := range ps {
			tp := topicPartition{t, p}
			if st, ok := m.owned[tp]; ok && wait && m.run != nil {
				m.held[tp] = st
			}
			delete(m.owned, tp)
			n++
		}
	}
	run := m.run
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		clear(m.held)
		m.mu.Unlock()
	}()
	if n == 0 {
		return
	}
	how := "revoked"
	if !wait {
		how = "lost"
	}
	m.log()("kafka source: consumer group "+how+" partitions", "group", m.src.settings.groupID, "instance", m.instance, how, fmtAssignment(gone))
	if run == nil {
		return
	}
	run.change()
	if !wait {
		return
	}
	start := time.Now()
	t := time.NewTimer(revokeTimeout)
	defer t.Stop()
	select {
	case <-run.released:
		m.log()("kafka source: revoked partitions released after the final checkpoint", "group", m.src.settings.groupID, "pause", time.Since(start).Round(time.Millisecond))
	case <-t.C:
		m.src.cfg.Logger.Warn("kafka source: the run reading revoked partitions did not stop in time; giving them up (its open transactions cannot commit offsets any more and abort)",
			"group", m.src.settings.groupID, "timeout", revokeTimeout)
	case <-ctx.Done():
	}
}

// splits waits for the first assignment and returns the owned partitions
// as splits, starting a run over them.
func (m *member) splits(ctx context.Context) ([]connector.Split, error) {
	select {
	case <-m.first:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.run != nil {
		m.run.release()
	}
	m.run = &memberRun{changed: make(chan struct{}), released: make(chan struct{})}
	out := make([]connector.Split, 0, len(m.owned))
	for tp := range m.owned {
		out = append(out, connector.Split{ID: splitID(tp.topic, tp.partition)})
	}
	slices.SortFunc(out, func(a, b connector.Split) int {
		ta, pa, _ := parseSplitID(a.ID)
		tb, pb, _ := parseSplitID(b.ID)
		if ta != tb {
			if ta < tb {
				return -1
			}
			return 1
		}
		return int(pa - pb)
	})
	return out, nil
}

// Owned returns the partitions this member owns now, as split ids.
func (m *member) ownedIDs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for tp := range m.owned {
		out = append(out, splitID(tp.topic, tp.partition))
	}
	slices.Sort(out)
	return out
}

// reassigned returns the channel of the current run.
func (m *member) reassigned() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.run == nil {
		closed := make(chan struct{})
		close(closed)
		return closed
	}
	return m.run.changed
}

// released ends the current run.
func (m *member) released() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.run != nil {
		m.run.release()
		m.run = nil
	}
}

// claim is a run's hold on the partitions it reads: the stamps they had
// when the run opened, and the membership of then.
type claim struct {
	m          *member
	stamps     map[topicPartition]uint64 // 0: not owned at the claim
	memberID   string
	generation int32
}

// claim takes the hold of a run reading parts. Take it before reading the
// group's offsets: a partition lost after that breaks the hold.
func (m *member) claim(parts []topicPartition) *claim {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &claim{m: m, stamps: make(map[topicPartition]uint64, len(parts))}
	for _, tp := range parts {
		c.stamps[tp] = m.owned[tp]
	}
	c.memberID, c.generation = m.cl.GroupMetadata()
	return c
}

// membership returns the membership to commit offsets of parts under now
// (connector.GroupPositions.Membership): the client's current member id
// and generation, when the member still holds every one of parts under
// this claim — owns it since the claim, or holds its revocation until the
// run reading it has stopped. A cooperative rebalance bumps the
// generation also for members that keep their partitions; their offsets
// stay theirs to commit under the new one. Partitions the group has
// revoked, or lost and assigned again, are not: ok is false, and a commit
// falls back to the claim's generation, which the group has left behind.
//
// Reading the generation kgo stores at the JoinGroup answer, before the
// callbacks of that rebalance, is safe: a partition leaves a member in
// one cooperative rebalance and reaches another only in the next, which
// cannot complete before this member's revocation callback returns; and
// kgo calls OnPartitionsLost before it joins again.
func (c *claim) membership(parts []connector.PartitionOffset) (memberID string, generation int32, ok bool) {
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range parts {
		tp := topicPartition{o.Topic, o.Partition}
		st := c.stamps[tp]
		if st == 0 || (m.owned[tp] != st && m.held[tp] != st) {
			return "", 0, false
		}
	}
	memberID, generation = m.cl.GroupMetadata()
	return memberID, generation, generation >= 0 && memberID != ""
}

// positions returns the membership to store with positions of parts: the
// current one when the claim holds (membership), else the claim's own.
func (c *claim) positions(parts []connector.PartitionOffset) (memberID string, generation int32) {
	if id, gen, ok := c.membership(parts); ok {
		return id, gen
	}
	return c.memberID, c.generation
}

// commit commits offsets outside a transaction as this member.
func (m *member) commit(ctx context.Context, p connector.GroupPositions) error {
	return m.commitMarked(ctx, p.Offsets, "", nil)
}

// commitMarked commits offsets outside a transaction as this member, with
// metadata mark on each ("" for none), under the membership of c when c
// is not nil (an error when c no longer holds them all).
func (m *member) commitMarked(ctx context.Context, offsets []connector.PartitionOffset, mark string, c *claim) error {
	memberID, generation, ok := "", int32(0), true
	if c != nil {
		if memberID, generation, ok = c.membership(offsets); !ok {
			return errors.New("the group has revoked some of the partitions since the run began")
		}
	}
	ctx = kgo.PreCommitFnContext(ctx, func(req *kmsg.OffsetCommitRequest) error {
		if c != nil {
			req.MemberID, req.Generation = memberID, generation
		}
		for i := range req.Topics {
			for j := range req.Topics[i].Partitions {
				if mark != "" {
					req.Topics[i].Partitions[j].Metadata = &mark
				}
			}
		}
		return nil
	})
	offs := map[string]map[int32]kgo.EpochOffset{}
	for _, o := range offsets {
		if offs[o.Topic] == nil {
			offs[o.Topic] = map[int32]kgo.EpochOffset{}
		}
		offs[o.Topic][o.Partition] = kgo.EpochOffset{Epoch: -1, Offset: o.Offset}
	}
	var cerr error
	m.cl.CommitOffsetsSync(ctx, offs, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			cerr = err
			return
		}
		for _, t := range resp.Topics {
			for _, pr := range t.Partitions {
				if e := kerr.ErrorForCode(pr.ErrorCode); e != nil && cerr == nil {
					cerr = fmt.Errorf("topic %s partition %d: %w", t.Topic, pr.Partition, e)
				}
			}
		}
	})
	return cerr
}

// close leaves: a static member's Close sends no LeaveGroup, so that a
// restart within the session timeout gets its partitions back without a
// rebalance.
func (m *member) close() {
	m.released()
	m.cl.Close()
}

func fmtAssignment(a map[string][]int32) string {
	var parts []string
	for t, ps := range a {
		ps = slices.Clone(ps)
		slices.Sort(ps)
		parts = append(parts, fmt.Sprintf("%s%v", t, ps))
	}
	slices.Sort(parts)
	return fmt.Sprint(parts)
}
