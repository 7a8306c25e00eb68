package kafka

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/internal/badrecord"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

type topicPartition struct {
	topic     string
	partition int32
}

// partState is a split's position: next is the next offset to read; end
// (exclusive) is -1 when unbounded or not resolved yet.
type partState struct {
	id    string
	tp    topicPartition
	next  int64
	end   int64
	done  bool
	added bool // appeared after the restored checkpoint: start at the earliest offset

	// lag is published for PartitionLags (lag.go).
	lag *partLag
}

// reader reads the partitions assigned to one source task, by direct
// assignment. The split state is the next offset as decimal text; a
// bounded reader appends "/" and the end offset ("42/100"), so that a
// restored bounded read ends where the original run would have, not at
// the end offsets resolved again when it restarts (as Flink keeps the
// stopping offset in its split state).
//
// A split without state starts as 'scan.startup.mode' says, except a
// split the runtime marks Added (a partition the restored checkpoint does
// not know: added while the job was down, or discovered after the last
// checkpoint), which starts at its earliest offset, as in Flink
// (FLIP-288), whatever the startup mode. Likewise under 'group-offsets'
// a partition without a committed offset starts at its earliest offset
// when the group has committed offsets for other partitions of the
// source's topics: the group is the job's position, and the partition is
// new to it ('properties.auto.offset.reset' applies only when the group
// knows none of them, a first start).
//
// Bounded reads end when every partition's position reaches its end
// offset. The position moves past control records too (the client keeps
// them and the reader drops them), so that a partition ending with a
// transaction marker — which a read_committed consumer never sees as a
// record — still ends.
type reader struct {
	src      *source
	cl       *kgo.Client
	adm      *kadm.Client
	admCl    *kgo.Client // adm's client, for requests kadm has no call for
	parts    map[topicPartition]*partState
	order    []*partState
	open     int // bounded partitions not done
	maxPoll  int
	groupID  string
	metadata []metadataColumn
	decode   decodeFunc
	nextRow  func(row *types.Row) bool // the rest of a record's rows (RowDecoder), or nil
	skipped  atomic.Int64
	// rowPos[i] is the record row i of the batch take returned last came
	// from (RowPosition, RejectRow); reused from batch to batch.
	rowPos []*kgo.Record
	// bad applies 'scan.bad-record.policy'.
	bad badRecords

	// pending holds the records of the last fetch not yet turned into
	// rows. Read takes every buffered record from the client at once so
	// that the client sends its next fetch while this one is decoded (it
	// fetches again only once its buffer is drained); the rows go out
	// maxPoll at a time from here.
	pending []kgo.FetchTopicPartition
	bytes   atomic.Int64 // key and value bytes of the records read

	// lastSlab is the field slab of the batch take returned last; free
	// and freeRows, the slab and row slice of a batch handed back by
	// Recycle, for the next take to reuse (nil: allocate).
	lastSlab []types.Value
	free     []types.Value
	freeRows []types.Row

	// Partition discovery (unbounded readers): zero discovery means off.
	discovery     time.Duration
	nextDiscovery time.Time
	task          connector.TaskInfo

	lag lagTable // positions and end offsets for PartitionLags (lag.go)

	// cluster is the cluster id, read at open when the reader has a group:
	// a sink on the same cluster may commit the group's offsets in its
	// transactions (connector.GroupPositions.Cluster).
	cluster string

	// claim is the run's hold on its partitions in a scaled-out job
	// (taken when it opens); nil otherwise.
	claim *claim
}

// Open resolves the start (and end) offset of each split and starts
// fetching.
//
// An unbounded reader with 'scan.topic-partition-discovery.interval' set
// also looks for partitions that appeared since the run listed its splits
// (new partitions, or new topics matching 'topic-pattern') and takes those
// whose split id hashes to its task index; they start at their earliest
// offset, as in Flink, and are part of its snapshots from then on.
func (s *source) Open(ctx context.Context, task connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r, err := s.open(ctx, splits)
	if err != nil {
		return nil, err
	}
	r.bad = badRecords{policy: s.cfg.BadRecordPolicy, table: s.cfg.Table, job: task.Job, log: task.Logger, limit: badrecord.Log{Every: badRecordLogInterval}}
	if r.bad.log == nil {
		r.bad.log = s.cfg.Logger
	}
	if s.cfg.DiscoveryInterval > 0 && !s.Bounded() && !s.cfg.ScaleOut && task.Parallelism > 0 && s.listedSplits() != nil {
		r.discovery, r.task = s.cfg.DiscoveryInterval, task
		r.nextDiscovery = time.Now().Add(r.discovery)
	}
	return r, nil
}

// defaultMaxPollRecords bounds the rows of one Read when
// properties.max.poll.records is not set: the Java client's default. Each
// Read's rows become one batch on the runtime's bounded channels, so the
// batch size times the channel capacity is what the job holds in flight;
// 10,000 made that the largest item of the heap profile (peak RSS above
// 150 MB on the benchmark) without buying throughput.
const defaultMaxPollRecords = 500

// DefaultPartitionFetchBytes and DefaultFetchMaxBytes are the source's fetch
// sizes when 'properties.max.partition.fetch.bytes' and
// 'properties.fetch.max.bytes' are not set. They are far smaller than
// the Java client's (1 MiB and 50 MiB) because franz-go keeps a fetch in
// memory decompressed, with a Record struct per record: on the benchmark's
// snappy JSON about eight times the fetch's size on the wire, and the
// reader holds two to three fetches (the one it decodes, the one the
// client prefetched, the one arriving); with Go's collector letting the
// heap grow to twice what is live, RSS follows the fetch size closely. The
// total bounds memory however many partitions a task reads.
//
// 512 KiB per request (2 MiB before) took the benchmark job's peak RSS
// from 71–89 MB to 42–50 MB, with CPU and throughput within the noise of
// interleaved runs on the machine of BENCHMARKS.md ("Record-path
// changes"): the client sends the next fetch while the reader decodes the
// last, so smaller fetches cost round trips, not waiting. A reader far from its brokers
// (tens of milliseconds per round trip) reads at most about one fetch per
// round trip per broker, so raise 'properties.fetch.max.bytes' there.
const (
	DefaultPartitionFetchBytes = 256 << 10
	DefaultFetchMaxBytes       = 512 << 10
)

// fetchSizes returns the client options for the fetch sizes: the table's
// properties where set, else the defaults above, with the total raised to
// at least the per-partition size (franz-go would silently lower the
// per-partition size to the total otherwise).
func (c clientSettings) fetchSizes() []kgo.Opt {
	part := c.partitionFetchMax
	if part == 0 {
		part = DefaultPartitionFetchBytes
	}
	total := c.fetchMaxBytes
	if total == 0 {
		total = max(DefaultFetchMaxBytes, part)
	}
	return []kgo.Opt{kgo.FetchMaxPartitionBytes(part), kgo.FetchMaxBytes(total)}
}

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
	if r.groupID != "" {
		if r.cluster, err = clusterID(ctx, r.adm); err != nil {
			return fail(fmt.Errorf("kafka source: %w", err))
		}
	}
	r.decode = s.cfg.Decoder
	if s.cfg.NewDecoder != nil {
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
	for _, sp := range splits {
		topic, p, err := parseSplitID(sp.ID)
		if err != nil {
			return fail(err)
		}
		st := &partState{id: sp.ID, tp: topicPartition{topic, p}, next: -1, end: -1, added: sp.Added && sp.State == nil}
		if s.cfg.ScaleOut {
			// The group's committed offsets are the truth, not a
			// checkpoint of an earlier run over another assignment.
			st.added = false
		} else if sp.State != nil {
			if st.next, st.end, err = parseSplitState(sp.State); err != nil {
				return fail(fmt.Errorf("kafka source: split %s: %w", sp.ID, err))
			}
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

// startConsumer creates the fetching client, assigned every partition not
// done at its next offset.
func (r *reader) startConsumer() error {
	s := r.src
	assign := map[string]map[int32]kgo.Offset{}
	for _, st := range r.order {
		if st.done {
			continue
		}
		if assign[st.tp.topic] == nil {
			assign[st.tp.topic] = map[int32]kgo.Offset{}
		}
		assign[st.tp.topic][st.tp.partition] = kgo.NewOffset().At(st.next)
	}
	iso := kgo.ReadUncommitted()
	if s.settings.readCommitted {
		iso = kgo.ReadCommitted()
	}
	reset := kgo.NewOffset().AtStart()
	if s.settings.autoOffsetReset == "latest" {
		reset = kgo.NewOffset().AtEnd()
	}
	opts := []kgo.Opt{kgo.ConsumePartitions(assign), kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(), kgo.ConsumeResetOffset(reset)}
	opts = append(opts, s.settings.fetchSizes()...)
	cl, err := s.newClient(append(opts, s.settings.consumer...)...)
	if err != nil {
		return err
	}
	r.cl = cl
	return nil
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
		add = append(add, &partState{id: sp.ID, tp: tp, next: -1, end: -1})
		topics[topic] = true
	}
	if len(add) == 0 {
		return nil
	}
	starts, err := r.adm.ListStartOffsets(ctx, slices.Collect(maps.Keys(topics))...)
	if err != nil {
		return fmt.Errorf("listing start offsets of new partitions: %w", err)
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

// Read blocks until rows are available and returns them. A bounded reader
// returns io.EOF once every partition reached its end.
func (r *reader) Read(ctx context.Context) ([]types.Row, error) {
	for {
		rows, err := r.poll(ctx)
		if len(rows) > 0 || err != nil || len(r.bad.dead) > 0 {
			return rows, err
		}
	}
}

// poll returns the rows of up to maxPoll pending records, fetching when
// none are pending; it may return no rows (only control records, or
// records past the end).
func (r *reader) poll(ctx context.Context) ([]types.Row, error) {
	if r.src.Bounded() && r.open == 0 {
		return nil, io.EOF
	}
	if len(r.pending) == 0 {
		if err := r.fetch(ctx); err != nil || len(r.pending) == 0 {
			return nil, err
		}
	}
	return r.take()
}

// fetch waits for the client's next fetch and takes every record it has
// buffered into pending.
func (r *reader) fetch(ctx context.Context) error {
	pollCtx := ctx
	if r.discovery > 0 {
		if time.Now().After(r.nextDiscovery) {
			if err := r.discover(ctx); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r.src.cfg.Logger.Warn("kafka source: partition discovery failed; retrying at the next interval", "error", err)
			}
			r.nextDiscovery = time.Now().Add(r.discovery)
		}
		var cancel context.CancelFunc
		pollCtx, cancel = context.WithDeadline(ctx, r.nextDiscovery)
		defer cancel()
	}
	fs := r.cl.PollFetches(pollCtx)
	// Records fetched while ctx was being cancelled (the runtime interrupts
	// a blocked Read to inject a barrier) are kept, never dropped.
	if err := ctx.Err(); err != nil && fs.NumRecords() == 0 {
		return err
	}
	var ferr error
	fs.EachError(func(topic string, p int32, err error) {
		if ferr == nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			ferr = fmt.Errorf("kafka source: fetching topic %s partition %d: %w", topic, p, err)
		}
	})
	if ferr != nil {
		return ferr
	}
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		r.noteFetched(&p)
		if len(p.Records) > 0 {
			r.pending = append(r.pending, p)
		}
	})
	return nil
}

// take turns up to maxPoll pending records into rows, advancing each
// partition's next offset past every record it consumed.
func (r *reader) take() ([]types.Row, error) {
	n := 0
	for _, p := range r.pending {
		if n += len(p.Records); n >= r.maxPoll {
			n = r.maxPoll
			break
		}
	}
	var nbytes int64
	defer func() { r.bytes.Add(nbytes) }()
	width := r.src.cfg.RowWidth
	slab, out := r.batchMemory(n, width)
	r.rowPos = r.rowPos[:0]
	var finished map[string][]int32
	examined := 0
	for len(r.pending) > 0 && examined < n {
		p := &r.pending[0]
		st := r.parts[topicPartition{p.Topic, p.Partition}]
		for st != nil && !st.done && len(p.Records) > 0 && examined < n {
			rec := p.Records[0]
			if rec.Offset < st.next {
				p.Records = p.Records[1:]
				continue
			}
			if st.end >= 0 && rec.Offset >= st.end {
				// Records are in offset order: everything before the end
				// has been seen (hidden ones included).
				st.next = st.end
				p.Records = nil
				break
			}
			if !rec.Attrs.IsControl() {
				nbytes += int64(len(rec.Key) + len(rec.Value))
				row := types.Row{Fields: rowFields(slab, len(out), width)}
				if err := r.decode(rec.Key, rec.Value, &row); err != nil {
					if errors.Is(err, factory.ErrSkipRecord) {
						r.skipped.Add(1)
					} else if err := r.bad.decodeFailed(rec, err); err != nil {
						return out, err
					}
					clear(row.Fields)
					row.Kind = types.Insert
				} else {
					r.fillMetadata(rec, &row)
					out = append(out, row)
					r.rowPos = append(r.rowPos, rec)
					for r.nextRow != nil {
						// More rows of the record (an UPDATE's -U and +U):
						// past the slab's rows, each has its own fields.
						row := types.Row{Fields: rowFields(slab, len(out), width)}
						if !r.nextRow(&row) {
							break
						}
						r.fillMetadata(rec, &row)
						out = append(out, row)
						r.rowPos = append(r.rowPos, rec)
					}
				}
			}
			st.next = rec.Offset + 1
			p.Records = p.Records[1:]
			examined++
		}
		if st != nil && !st.done && st.end >= 0 && st.next >= st.end {
			st.done = true
			r.open--
			if finished == nil {
				finished = map[string][]int32{}
			}
			finished[p.Topic] = append(finished[p.Topic], p.Partition)
		}
		if st != nil {
			r.publishPos(st)
		}
		if st == nil || st.done || len(p.Records) == 0 {
			r.pending[0] = kgo.FetchTopicPartition{} // let the fetch's memory go
			r.pending = r.pending[1:]
		}
	}
	if finished != nil {
		r.cl.PauseFetchPartitions(finished)
	}
	return out, nil
}

// batchMemory returns a zeroed field slab for n rows of width fields (one
// allocation for every row of the batch) and an empty row slice of
// capacity n: those of a recycled batch when they are large enough.
func (r *reader) batchMemory(n, width int) ([]types.Value, []types.Row) {
	var slab []types.Value
	if cap(r.free) >= n*width {
		slab = r.free[:n*width]
		clear(slab)
	} else {
		slab = make([]types.Value, n*width)
	}
	out := r.freeRows[:0]
	if cap(out) < n {
		out = make([]types.Row, 0, n)
	}
	r.free, r.freeRows, r.lastSlab = nil, nil, slab
	return slab, out
}

// Recycle implements connector.RowRecycler: rows, the last batch Read
// returned, are no longer referred to, and the next batch reuses their
// memory (saving the allocation and collection of a slab per batch).
func (r *reader) Recycle(rows []types.Row) {
	slab := r.lastSlab
	r.lastSlab = nil
	if len(rows) == 0 || len(slab) == 0 || len(rows[0].Fields) == 0 || &rows[0].Fields[0] != &slab[0] {
		return // not the batch take returned last
	}
	clear(rows)
	r.free, r.freeRows = slab, rows[:0]
}

// rowFields returns the fields of row i of a batch: its part of the
// batch's slab, or its own when records held more rows than the slab has
// room for (change-event formats).
func rowFields(slab []types.Value, i, width int) []types.Value {
	if (i+1)*width <= len(slab) {
		return slab[i*width : (i+1)*width : (i+1)*width]
	}
	return make([]types.Value, width)
}

// RowPosition implements connector.RowPositioner: the topic, partition and
// offset of the record row i of the last batch was decoded from.
func (r *reader) RowPosition(i int) string {
	if i < 0 || i >= len(r.rowPos) {
		return ""
	}
	p := r.rowPos[i]
	return fmt.Sprintf("topic %s partition %d offset %d", p.Topic, p.Partition, p.Offset)
}

// RejectRow implements connector.BadRowHandler: under 'scan.bad-record.policy'
// skip or dead-letter, the record of row i of the last batch, which the
// pipeline rejected with err, is skipped or set aside as a dead letter
// (once, however many of its rows are rejected).
func (r *reader) RejectRow(i int, err error) bool {
	if i < 0 || i >= len(r.rowPos) {
		return false
	}
	return r.bad.rejected(r.rowPos[i], err)
}

// DeadLetters implements connector.DeadLetterReader.
func (r *reader) DeadLetters() []types.Row { return r.bad.take() }

// BadRecords implements connector.BadRecordCounter: the records
// 'scan.bad-record.policy' skipped and set aside as dead letters so far.
func (r *reader) BadRecords() (skipped, deadLettered int64) {
	return r.bad.skipped.Load(), r.bad.deadLettered.Load()
}

func (r *reader) fillMetadata(rec *kgo.Record, row *types.Row) {
	for _, m := range r.metadata {
		var v types.Value
		switch m.Key {
		case metaTopic:
			v = types.Str(rec.Topic)
		case metaPartition:
			v = types.Int64(int64(rec.Partition))
		case metaOffset:
			v = types.Int64(rec.Offset)
		case metaTimestamp:
			v = types.TimestampValue(types.TimestampFromTime(rec.Timestamp))
		case metaTimestampType:
			switch rec.Attrs.TimestampType() {
			case 0:
				v = types.Str("CreateTime")
			case 1:
				v = types.Str("LogAppendTime")
			default:
				v = types.Str("NoTimestampType")
			}
		case metaHeaders:
			md := &types.MapData{}
			for _, h := range rec.Headers {
				dup := false
				for j, k := range md.Keys { // duplicate keys collapse, last wins (as Flink)
					if k.Str() == h.Key {
						md.Values[j], dup = types.BytesValue(h.Value), true
					}
				}
				if !dup {
					md.Keys = append(md.Keys, types.Str(h.Key))
					md.Values = append(md.Values, types.BytesValue(h.Value))
				}
			}
			v = types.MapValue(md)
		case metaLeaderEpoch:
			if rec.LeaderEpoch >= 0 {
				v = types.Int64(int64(rec.LeaderEpoch))
			}
		}
		row.Fields[m.Index] = v
	}
}

// Skipped returns the number of records dropped because their decoder
// returned factory.ErrSkipRecord (a format told to ignore parse errors, or
// a record holding no row). It is safe for concurrent use.
func (r *reader) Skipped() int64 { return r.skipped.Load() }

// Bytes returns the key and value bytes of the records read so far
// (connector.ByteCounter). It is safe for concurrent use.
func (r *reader) Bytes() int64 { return r.bytes.Load() }

// Snapshot returns each split's next offset (decimal text, and "/end" when
// bounded).
func (r *reader) Snapshot(checkpointID int64) ([]connector.SplitState, error) {
	out := make([]connector.SplitState, len(r.order))
	for i, st := range r.order {
		state := strconv.AppendInt(nil, st.next, 10)
		if st.end >= 0 {
			state = strconv.AppendInt(append(state, '/'), st.end, 10)
		}
		out[i] = connector.SplitState{ID: st.id, State: state}
	}
	return out, nil
}

// GroupPositions returns the offsets of the last Snapshot as
// 'properties.group.id' stores them (connector.GroupPositionReader); ok is
// false without a group id. The reader is no member of the group: it
// assigns its partitions itself, so generation -1 and no member id.
func (r *reader) GroupPositions() (connector.GroupPositions, bool) {
	if r.groupID == "" {
		return connector.GroupPositions{}, false
	}
	p := connector.GroupPositions{Cluster: r.cluster, Group: r.groupID, Generation: -1,
		Offsets: make([]connector.PartitionOffset, len(r.order))}
	for i, st := range r.order {
		p.Offsets[i] = connector.PartitionOffset{Topic: st.tp.topic, Partition: st.tp.partition, Offset: st.next}
	}
	if c := r.claim; c != nil {
		// A member's commits carry its generation: once the group has
		// moved on (this process was fenced, or its partitions went to
		// another member), they fail.
		offsets := p.Offsets
		p.MemberID, p.Generation = c.positions(offsets)
		p.InstanceID = c.m.instance
		p.Membership = func() (string, int32, bool) { return c.membership(offsets) }
	}
	return p, true
}

// CommitGroupPositions commits p to its group with OffsetCommit
// (connector.GroupPositionReader): the runtime calls it once the commits of
// p's checkpoint are durably acknowledged, so that lag tools see the
// position and a start without a checkpoint never skips uncommitted
// output. The checkpoint stays the truth while it exists.
func (r *reader) CommitGroupPositions(ctx context.Context, p connector.GroupPositions) error {
	if m := r.src.groupMember(); m != nil {
		if err := m.commit(ctx, p); err != nil {
			return fmt.Errorf("kafka source: committing offsets to group %q as member %q: %w", p.Group, p.MemberID, err)
		}
		return nil
	}
	offs := kadm.Offsets{}
	for _, o := range p.Offsets {
		offs.Add(kadm.Offset{Topic: o.Topic, Partition: o.Partition, At: o.Offset, LeaderEpoch: -1})
	}
	resp, err := r.adm.CommitOffsets(ctx, p.Group, offs)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return fmt.Errorf("kafka source: committing offsets to group %q: %w", p.Group, err)
	}
	return nil
}

// clusterID returns the cluster id from the cluster's metadata.
func clusterID(ctx context.Context, adm *kadm.Client) (string, error) {
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the cluster id: %w", err)
	}
	return md.Cluster, nil
}

// Close stops fetching and closes the clients.
func (r *reader) Close() error {
	r.cl.Close()
	r.adm.Close()
	return nil
}

// groupFetchPatience bounds how long fetchGroupOffsets retries retriable
// errors.
const groupFetchPatience = 30 * time.Second

// fetchGroupOffsets fetches the committed offsets of the reader's group,
// retrying retriable errors — a fresh cluster answers
// COORDINATOR_NOT_AVAILABLE while it creates __consumer_offsets — for up
// to groupFetchPatience. It requires stable offsets: while a transaction
// that commits offsets of the group is completing (an exactly-once sink
// commits them in its transactions, and EndTxn returns before the commit
// markers are written), the group's offsets are not yet the transaction's,
// and the broker answers UNSTABLE_OFFSET_COMMIT until they are.
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
func (r *reader) fetchGroupOffsets(ctx context.Context) (kadm.OffsetResponses, error) {
	deadline := time.Now().Add(groupFetchPatience)
	backoff := 50 * time.Millisecond
	var survived time.Time
	for {
		group, err := r.adm.FetchOffsets(kadm.RequireStable(ctx), r.groupID)
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
