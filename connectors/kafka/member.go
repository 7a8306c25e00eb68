package kafka

import (
	"context"
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

	mu       sync.Mutex
	owned    map[topicPartition]bool
	first    chan struct{} // closed at the first assignment
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
	m := &member{src: s, instance: s.cfg.InstanceID, owned: map[topicPartition]bool{}, first: make(chan struct{})}
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
			m.owned[topicPartition{t, p}] = true
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
			delete(m.owned, topicPartition{t, p})
			n++
		}
	}
	run := m.run
	m.mu.Unlock()
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

// positions returns the membership positions are committed under.
func (m *member) positions() (memberID string, generation int32) {
	return m.cl.GroupMetadata()
}

// commit commits offsets outside a transaction as this member.
func (m *member) commit(ctx context.Context, p connector.GroupPositions) error {
	return m.commitMarked(ctx, p.Offsets, "")
}

// commitMarked commits offsets outside a transaction as this member, with
// metadata mark on each ("" for none).
func (m *member) commitMarked(ctx context.Context, offsets []connector.PartitionOffset, mark string) error {
	if mark != "" {
		ctx = kgo.PreCommitFnContext(ctx, func(req *kmsg.OffsetCommitRequest) error {
			for i := range req.Topics {
				for j := range req.Topics[i].Partitions {
					req.Topics[i].Partitions[j].Metadata = &mark
				}
			}
			return nil
		})
	}
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
