package kafka

// Where a reader starts and ends: the offsets of its splits' states, of
// 'scan.startup.mode' and 'scan.bounded.mode', of the consumer group's
// committed offsets, and of partitions discovered during a run. The
// record path is in reader.go.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/connector"
)

func (s *source) open(ctx context.Context, splits []connector.SplitState) (*reader, error) {
	admCl, err := s.newClient()
	if err != nil {
		return nil, err
	}
	r := &reader{src: s, adm: kadm.NewClient(admCl), admCl: admCl, parts: map[topicPartition]*partState{}, maxPoll: s.settings.maxPollRecords,
		groupID: s.settings.groupID, metadata: s.cfg.Metadata}
	if r.maxPoll == 0 {
		r.maxPoll = defaultMaxPollRecords
	}
	fail := func(err error) (*reader, error) {
		admCl.Close()
		return nil, err
	}
	// r.cluster is read with the topic ids below (identities).
	r.decode = s.cfg.Decoder
	if s.cfg.newValueDecoder != nil {
		if r.decode, r.recycleValues, err = s.cfg.newValueDecoder(); err != nil {
			return fail(fmt.Errorf("kafka source: %w", err))
		}
	} else if s.cfg.NewDecoder != nil {
		if r.decode, err = s.cfg.NewDecoder(); err != nil {
			return fail(fmt.Errorf("kafka source: %w", err))
		}
	}
	if s.cfg.NewRowDecoder != nil {
		rd, err := s.cfg.NewRowDecoder()
		if err != nil {
			return fail(fmt.Errorf("kafka source: %w", err))
		}
		r.decode, r.nextRow = rd.Decode, rd.Next
	}
	topics := map[string]bool{}
	for i, sp := range splits {
		topic, p, err := parseSplitID(sp.ID)
		if err != nil {
			return fail(err)
		}
		st := &partState{id: sp.ID, index: int32(i), tp: topicPartition{topic, p}, next: -1, end: -1, added: sp.Added && sp.State == nil}
		if s.cfg.ScaleOut {
			// The group's committed offsets are the truth, not a
			// checkpoint of an earlier run over another assignment.
			st.added = false
		} else if sp.State != nil {
			offsets, ident := cutIdentity(sp.State)
			if st.next, st.end, err = parseSplitState(offsets); err != nil {
				return fail(fmt.Errorf("kafka source: split %s: %w", sp.ID, err))
			}
			st.restored, st.ident = true, ident
			if !s.Bounded() {
				st.end = -1 // a bounded job's checkpoint restored by an unbounded one
			}
		}
		r.parts[st.tp] = st
		r.order = append(r.order, st)
		topics[topic] = true
	}
	var topicList []string
	for t := range topics {
		topicList = append(topicList, t)
	}
	if err := r.identities(ctx, topicList); err != nil {
		return fail(err)
	}
	if err := r.checkRestored(ctx, topicList); err != nil {
		return fail(err)
	}
	resolve := r.resolveStarts
	if s.cfg.ScaleOut {
		resolve = r.resolveGroupStarts
	}
	if err := resolve(ctx, topicList); err != nil {
		return fail(err)
	}
	if err := r.resolveEnds(ctx, topicList); err != nil {
		return fail(err)
	}
	for _, st := range r.order {
		if st.end >= 0 && st.next >= st.end {
			st.done = true
			continue
		}
		if st.end >= 0 {
			r.open++
		}
	}
	for _, st := range r.order {
		r.publishPos(st)
	}
	if err := r.startConsumer(); err != nil {
		return fail(err)
	}
	return r, nil
}

// parseSplitState parses "next" or "next/end" (end -1 when absent).
func parseSplitState(b []byte) (next, end int64, err error) {
	n, e, bounded := strings.Cut(string(b), "/")
	end = -1
	next, err = strconv.ParseInt(n, 10, 64)
	if err == nil && bounded {
		end, err = strconv.ParseInt(e, 10, 64)
	}
	if err != nil || next < 0 || (bounded && end < 0) {
		return 0, 0, fmt.Errorf("bad checkpointed offset %q: want the next offset, or next/end", b)
	}
	return next, end, nil
}

// discover takes the partitions that appeared since the run listed its
// splits and that belong to this task (the FNV hash of the split id modulo
// the parallelism is the task index, so that tasks agree without talking).
// The client is recreated with the larger assignment at the current
// positions: rows fetched but not returned are fetched again.
func (r *reader) discover(ctx context.Context) error {
	splits, err := r.src.list(ctx)
	if err != nil {
		return err
	}
	listed := r.src.listedSplits()
	var add []*partState
	topics := map[string]bool{}
	for _, sp := range splits {
		if listed[sp.ID] || splitOwner(sp.ID, r.task.Parallelism) != r.task.Index {
			continue
		}
		topic, p, err := parseSplitID(sp.ID)
		if err != nil {
			return err
		}
		tp := topicPartition{topic, p}
		if r.parts[tp] != nil {
			continue
		}
		add = append(add, &partState{id: sp.ID, index: -1, tp: tp, next: -1, end: -1})
		topics[topic] = true
	}
	if len(add) == 0 {
		return nil
	}
	starts, err := r.adm.ListStartOffsets(ctx, slices.Collect(maps.Keys(topics))...)
	if err != nil {
		return fmt.Errorf("listing start offsets of new partitions: %w", err)
	}
	if err := r.identities(ctx, slices.Collect(maps.Keys(topics))); err != nil {
		return err
	}
	for _, st := range add {
		if st.next, err = lookup(starts, st.tp, "start"); err != nil {
			return err
		}
	}
	for _, st := range add {
		r.parts[st.tp] = st
		r.order = append(r.order, st)
	}
	old := r.cl
	if err := r.startConsumer(); err != nil {
		return err
	}
	old.Close()
	r.pending = nil // fetched again by the new client from each partition's next offset
	r.src.cfg.Logger.Info("kafka source: discovered new partitions", "task", r.task.Index, "count", len(add))
	return nil
}

// splitOwner is the task that takes a split discovered during a run.
func splitOwner(id string, parallelism int) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % uint32(parallelism))
}

// lookup returns the listed offset of tp or an error naming it.
func lookup(l kadm.ListedOffsets, tp topicPartition, what string) (int64, error) {
	o, ok := l.Lookup(tp.topic, tp.partition)
	if !ok {
		return 0, fmt.Errorf("kafka source: no %s offset for topic %s partition %d", what, tp.topic, tp.partition)
	}
	if o.Err != nil {
		return 0, fmt.Errorf("kafka source: %s offset of topic %s partition %d: %w", what, tp.topic, tp.partition, o.Err)
	}
	return o.Offset, nil
}

func (r *reader) resolveStarts(ctx context.Context, topics []string) error {
	need := false
	for _, st := range r.order {
		need = need || st.next < 0
	}
	if !need {
		return nil
	}
	cfg := r.src.cfg
	starts, err := r.adm.ListStartOffsets(ctx, topics...)
	if err != nil {
		return fmt.Errorf("kafka source: listing start offsets: %w", err)
	}
	var ends, atTime kadm.ListedOffsets
	var group kadm.OffsetResponses
	switch cfg.StartupMode {
	case startLatest:
		ends, err = r.adm.ListEndOffsets(ctx, topics...)
	case startTimestamp:
		if ends, err = r.adm.ListEndOffsets(ctx, topics...); err == nil {
			atTime, err = r.adm.ListOffsetsAfterMilli(ctx, cfg.StartupTimestampMillis, topics...)
		}
	case startGroupOffsets:
		if ends, err = r.adm.ListEndOffsets(ctx, topics...); err == nil {
			group, err = r.fetchGroupOffsets(ctx)
		}
	}
	if err != nil {
		return fmt.Errorf("kafka source: resolving %v start offsets: %w", cfg.StartupMode, err)
	}
	groupKnows := false // the group has an offset for some partition of the source's topics
	if cfg.StartupMode == startGroupOffsets {
		sourceTopics := map[string]bool{}
		for id := range r.src.listedSplits() {
			if t, _, err := parseSplitID(id); err == nil {
				sourceTopics[t] = true
			}
		}
		for _, st := range r.order {
			sourceTopics[st.tp.topic] = true
		}
		group.Each(func(o kadm.OffsetResponse) {
			groupKnows = groupKnows || (sourceTopics[o.Topic] && o.Err == nil && o.At >= 0 && o.Metadata != latestStartMark)
		})
	}
	var latestStarts kadm.Offsets // latest starts to make durable before reading
	for _, st := range r.order {
		if st.next >= 0 {
			continue
		}
		earliest, err := lookup(starts, st.tp, "start")
		if err != nil {
			return err
		}
		st.next = earliest
		if st.added {
			r.src.cfg.Logger.Info("kafka source: partition unknown to the restored checkpoint; reading it from the earliest offset",
				"topic", st.tp.topic, "partition", st.tp.partition, "offset", earliest)
			continue
		}
		switch cfg.StartupMode {
		case startLatest:
			st.next, err = lookup(ends, st.tp, "end")
		case startTimestamp:
			var o int64
			if o, err = lookup(atTime, st.tp, "timestamp"); err == nil && o >= 0 {
				st.next = o
			} else if err == nil {
				st.next, err = lookup(ends, st.tp, "end")
			}
		case startSpecificOffsets:
			if o, ok := cfg.StartupSpecificOffsets[st.tp.partition]; ok {
				st.next = o
			}
		case startGroupOffsets:
			o, ok := group.Lookup(st.tp.topic, st.tp.partition)
			switch {
			case ok && o.Err == nil && o.At >= 0:
				st.next = o.At
			case groupKnows:
				r.src.cfg.Logger.Info("kafka source: partition new to the group; reading it from the earliest offset",
					"group", r.groupID, "topic", st.tp.topic, "partition", st.tp.partition, "offset", earliest)
			case r.src.settings.autoOffsetReset == "latest":
				if st.next, err = lookup(ends, st.tp, "end"); err == nil {
					latestStarts.Add(kadm.Offset{Topic: st.tp.topic, Partition: st.tp.partition, At: st.next, LeaderEpoch: -1, Metadata: latestStartMark})
				}
			case r.src.settings.autoOffsetReset == "earliest":
			default:
				// Terminal: a restart would find no offset either.
				return fmt.Errorf("kafka source: group %q has no committed offset for topic %s partition %d: "+
					"set 'properties.auto.offset.reset' to earliest or latest, or use another 'scan.startup.mode' (%w)",
					r.groupID, st.tp.topic, st.tp.partition, connector.ErrUnrecoverable)
			}
		}
		if err != nil {
			return err
		}
	}
	if len(latestStarts) > 0 {
		// A start at the end must be durable before the first read: a
		// process killed before its first commit would otherwise
		// resolve a newer end on restart and skip what was written in
		// between.
		resp, err := r.adm.CommitOffsets(ctx, r.groupID, latestStarts)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return fmt.Errorf("kafka source: committing the start offsets ('properties.auto.offset.reset' = latest) to group %q: %w", r.groupID, err)
		}
	}
	return nil
}

// resolveGroupStarts starts each partition of a scaled-out reader at the
// group's committed offset, waiting while a transaction that commits it
// completes (fetchGroupOffsets requires stable offsets): the previous
// owner's last transaction, say. A partition the group never committed
// starts at its earliest offset, or its latest for 'latest-offset' and
// for 'group-offsets' with 'properties.auto.offset.reset' = 'latest'; a
// latest start is committed to the group (marked latestStartMark) before
// anything is read.
func (r *reader) resolveGroupStarts(ctx context.Context, topics []string) error {
	m := r.src.groupMember()
	if m == nil {
		return fmt.Errorf("kafka source: group %q: a scaled-out reader opened before the source joined its group", r.groupID)
	}
	parts := make([]topicPartition, len(r.order))
	for i, st := range r.order {
		parts[i] = st.tp
	}
	r.claim = m.claim(parts) // before the offsets: a partition lost after them breaks it
	if len(r.order) == 0 {
		return nil
	}
	group, err := r.fetchGroupOffsets(ctx)
	if err != nil {
		return fmt.Errorf("kafka source: fetching the committed offsets of group %q: %w", r.groupID, err)
	}
	latest := r.src.cfg.StartupMode == startLatest || (r.src.cfg.StartupMode == startGroupOffsets && r.src.settings.autoOffsetReset == "latest")
	var fallback kadm.ListedOffsets
	what := "start"
	if latest {
		fallback, err = r.adm.ListEndOffsets(ctx, topics...)
		what = "end"
	} else {
		fallback, err = r.adm.ListStartOffsets(ctx, topics...)
	}
	if err != nil {
		return fmt.Errorf("kafka source: listing %s offsets: %w", what, err)
	}
	var starts []connector.PartitionOffset // latest starts to make durable before reading
	for _, st := range r.order {
		if o, ok := group.Lookup(st.tp.topic, st.tp.partition); ok && o.Err == nil && o.At >= 0 {
			st.next = o.At
			continue
		}
		if st.next, err = lookup(fallback, st.tp, what); err != nil {
			return err
		}
		r.src.cfg.Logger.Info("kafka source: partition never committed by the group; starting at its "+what+" offset",
			"group", r.groupID, "topic", st.tp.topic, "partition", st.tp.partition, "offset", st.next)
		if latest {
			starts = append(starts, connector.PartitionOffset{Topic: st.tp.topic, Partition: st.tp.partition, Offset: st.next})
		}
	}
	if len(starts) == 0 {
		return nil
	}
	// A start at the end must be durable before the first read, as in
	// resolveStarts: an instance killed before its first commit would
	// otherwise resolve a newer end when it (or the partition's next
	// owner) starts again, and skip what was written in between. The
	// member commits it, under its generation: a group with members
	// refuses commits from outside.
	if err := m.commitMarked(ctx, starts, latestStartMark, r.claim); err != nil {
		return fmt.Errorf("kafka source: committing the start offsets (latest) to group %q: %w", r.groupID, err)
	}
	return nil
}

// latestStartMark is the metadata of the offsets a group-offsets source
// commits for its start at the end: they are where the job starts, not
// positions of its output, so they do not make partitions without an
// offset "new to the group" (read from the earliest offset) for the
// source's other tasks starting at the same time.
const latestStartMark = "streamsql: start at latest"

func (r *reader) resolveEnds(ctx context.Context, topics []string) error {
	cfg := r.src.cfg
	if cfg.BoundedMode == unbounded || !slices.ContainsFunc(r.order, func(st *partState) bool { return st.end < 0 }) {
		return nil
	}
	var ends, atTime kadm.ListedOffsets
	var group kadm.OffsetResponses
	var err error
	// Under read_committed the end is the last stable offset: what is
	// committed when the reader opens.
	if r.src.settings.readCommitted {
		ends, err = r.adm.ListCommittedOffsets(ctx, topics...)
	} else {
		ends, err = r.adm.ListEndOffsets(ctx, topics...)
	}
	switch {
	case err != nil:
	case cfg.BoundedMode == boundedTimestamp:
		atTime, err = r.adm.ListOffsetsAfterMilli(ctx, cfg.BoundedTimestampMillis, topics...)
	case cfg.BoundedMode == boundedGroupOffsets:
		group, err = r.fetchGroupOffsets(ctx)
	}
	if err != nil {
		return fmt.Errorf("kafka source: resolving %v end offsets: %w", cfg.BoundedMode, err)
	}
	for _, st := range r.order {
		if st.end >= 0 {
			continue // restored: the end the first run resolved
		}
		end, err := lookup(ends, st.tp, "end")
		if err != nil {
			return err
		}
		st.end = end
		switch cfg.BoundedMode {
		case boundedTimestamp:
			if o, err := lookup(atTime, st.tp, "timestamp"); err != nil {
				return err
			} else if o >= 0 && o < end {
				st.end = o
			}
		case boundedSpecificOffsets:
			if o, ok := cfg.BoundedSpecificOffsets[st.tp.partition]; ok {
				st.end = o
			} else {
				st.end = 0 // not listed: not read
			}
		case boundedGroupOffsets:
			if o, ok := group.Lookup(st.tp.topic, st.tp.partition); ok && o.Err == nil && o.At >= 0 {
				st.end = o.At
			}
		}
	}
	return nil
}

// groupFetchPatience bounds how long fetchGroupOffsets retries retriable
// errors: Kafka's default.api.timeout.ms, which bounds the Java
// consumer's fetch of committed offsets the same way. (It was 30 s. A CI
// run of TestCopyGracefulStopRestart whose restarted source waited all of
// it on UNSTABLE_OFFSET_COMMIT was put down to slow commit markers; it
// was most likely the wait on another source task's open transaction
// that fetchGroupOffsets no longer makes, TestCopyRestartSourceTaskOpensLate.)
const groupFetchPatience = 60 * time.Second

// fetchGroupOffsets fetches the committed offsets of the reader's group,
// retrying retriable errors — a fresh cluster answers
// COORDINATOR_NOT_AVAILABLE while it creates __consumer_offsets — for up
// to groupFetchPatience. It requires stable offsets of the reader's own
// partitions: while a transaction that commits offsets of the group is
// completing (an exactly-once sink commits them in its transactions, and
// EndTxn returns before the commit markers are written), the group's
// offsets are not yet the transaction's, and the broker answers
// UNSTABLE_OFFSET_COMMIT until they are.
//
// The broker says so only for the partitions its answer lists. A fetch of
// all the group's offsets lists those with a committed offset: a partition
// whose first offset is in the completing transaction is left out, as if
// the group never committed it (Kafka's OffsetMetadataManager
// fetchAllOffsets), and a run starting right after its own first
// checkpoint read such partitions again from the start. So the reader's
// own partitions are asked for by name (fetchOwnOffsets), and their
// answers replace those of the group-wide fetch, which the other callers
// need for the rest of the group.
//
// The group-wide fetch does not require stable offsets: the rest of the
// group only says whether the group knows the source (resolveStarts), for
// which the last committed offsets do, and waiting for the other
// partitions can deadlock a run. Its other source tasks open at their
// own pace, and once one has opened, its exactly-once sink pre-commits
// the run's first checkpoint in a transaction that commits that task's
// partitions' offsets; the checkpoint completes, and the transaction
// ends, only after every task has opened and passed the barrier. A
// reader that opened later and waited for that transaction waited
// groupFetchPatience and failed the run — every restart of an
// offsets-in-transaction job whose tasks opened slowly enough. The
// reader's own partitions cannot be held that way: only its own task's
// sink commits them in this run, after it opened; a transaction an
// earlier run left holding them is ended before any reader opens (the
// sinks' recovery commits the restored ones and aborts the others, and a
// scaled-out job's readers end those of departed instances, below).
func (r *reader) fetchGroupOffsets(ctx context.Context) (kadm.OffsetResponses, error) {
	deadline := time.Now().Add(groupFetchPatience)
	backoff := 50 * time.Millisecond
	var survived time.Time
	for {
		group, err := r.adm.FetchOffsets(ctx, r.groupID)
		if err == nil {
			err = r.fetchOwnOffsets(ctx, group)
		}
		if err == nil {
			group.EachError(func(o kadm.OffsetResponse) {
				if err == nil && kerr.IsRetriable(o.Err) {
					err = fmt.Errorf("topic %s partition %d: %w", o.Topic, o.Partition, o.Err)
				}
			})
		}
		if err == nil || !kerr.IsRetriable(err) || time.Now().After(deadline) {
			return group, err
		}
		if j := r.src.job; j != nil && errors.Is(err, kerr.UnstableOffsetCommit) && time.Since(survived) > time.Second {
			// A transaction of an instance that left the job may hold
			// them (it died between its offset commit and its EndTxn):
			// end it rather than wait for the broker's timeout.
			survived = time.Now()
			sctx, cancel := context.WithTimeout(ctx, survivorTimeout)
			j.survive(sctx, r.src.cfg.Logger)
			cancel()
			continue
		}
		select {
		case <-ctx.Done():
			return group, err
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// fetchOwnOffsets fetches the group's committed offsets of the reader's
// partitions by name, requiring stable offsets, into group (replacing what
// it holds for them): a partition with no committed offset and an offset
// in a completing transaction gets UNSTABLE_OFFSET_COMMIT, not absence.
func (r *reader) fetchOwnOffsets(ctx context.Context, group kadm.OffsetResponses) error {
	if len(r.order) == 0 {
		return nil
	}
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group, req.RequireStable = r.groupID, true
	topics := map[string]int{}
	for _, st := range r.order {
		i, ok := topics[st.tp.topic]
		if !ok {
			i = len(req.Topics)
			topics[st.tp.topic] = i
			t := kmsg.NewOffsetFetchRequestTopic()
			t.Topic = st.tp.topic
			req.Topics = append(req.Topics, t)
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, st.tp.partition)
	}
	resp, err := req.RequestWith(ctx, r.admCl)
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return err
	}
	add := func(topic string, p int32, at int64, epoch int32, meta *string, code int16) {
		o := kadm.OffsetResponse{Offset: kadm.Offset{Topic: topic, Partition: p, At: at, LeaderEpoch: epoch}, Err: kerr.ErrorForCode(code)}
		if meta != nil {
			o.Metadata = *meta
		}
		if group[topic] == nil {
			group[topic] = map[int32]kadm.OffsetResponse{}
		}
		group[topic][p] = o
	}
	if len(resp.Groups) > 0 { // OffsetFetch v8+
		g := resp.Groups[0]
		if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
			return err
		}
		for _, t := range g.Topics {
			for _, p := range t.Partitions {
				add(t.Topic, p.Partition, p.Offset, p.LeaderEpoch, p.Metadata, p.ErrorCode)
			}
		}
		return nil
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			add(t.Topic, p.Partition, p.Offset, p.LeaderEpoch, p.Metadata, p.ErrorCode)
		}
	}
	return nil
}
