package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

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
	index int32 // among the splits of Open (RowSplit); -1 when discovered later
	tp    topicPartition
	next  int64
	end   int64
	done  bool
	added bool // appeared after the restored checkpoint: start at the earliest offset
	// restored is set for a position taken from the restored checkpoint,
	// ident to the cluster and topic it was read from (identity.go).
	restored bool
	ident    splitIdentity

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
	// row is the row take decodes each record into: through the
	// decodeFunc a local row's address would escape, costing an
	// allocation per record.
	row types.Row
	// recycleValues tells the decoder that the nested values of the rows
	// it decoded are dead (RecycleNested); nil when it cannot reuse them.
	recycleValues func()
	nextRow       func(row *types.Row) bool // the rest of a record's rows (RowDecoder), or nil
	skipped       atomic.Int64
	// rowPos[i] is the record row i of the batch take returned last came
	// from (RowPosition, RejectRow), rowSplit[i] the index of its split
	// among those of Open (RowSplit); reused from batch to batch.
	rowPos   []*kgo.Record
	rowSplit []int32
	// bad applies 'scan.bad-record.policy'.
	bad badRecords

	// pending holds the records of the last fetch not yet turned into
	// rows. Read takes every buffered record from the client at once so
	// that the client sends its next fetch while this one is decoded (it
	// fetches again only once its buffer is drained); the rows go out
	// maxPoll at a time from here.
	pending []kgo.FetchTopicPartition
	bytes   atomic.Int64 // key and value bytes of the records read

	// recPool holds the client's kgo.Record slices (recpool.go); used
	// are the records the last take removed from pending, decoded or
	// not, which the next take recycles into it (recycleUsed): until
	// then rowPos may point at them.
	recPool *recordPool
	used    []*kgo.Record

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

	// cluster is the cluster id, read at open: a sink on the same cluster
	// may commit the group's offsets in its transactions
	// (connector.GroupPositions.Cluster), and split states carry it, with
	// the topics' ids (topicIDs, topic -> id), so that a restore against
	// another cluster or topic is refused (identity.go).
	cluster  string
	topicIDs map[string]string

	// claim is the run's hold on its partitions in a scaled-out job
	// (taken when it opens); nil otherwise.
	claim *claim
}

// The connector capabilities reader means to have (checked by the compiler).
var (
	_ connector.Reader              = (*reader)(nil)
	_ connector.BadRecordCounter    = (*reader)(nil)
	_ connector.BadRowHandler       = (*reader)(nil)
	_ connector.ByteCounter         = (*reader)(nil)
	_ connector.DeadLetterReader    = (*reader)(nil)
	_ connector.GroupPositionReader = (*reader)(nil)
	_ connector.LagReporter         = (*reader)(nil)
	_ connector.RowPositioner       = (*reader)(nil)
	_ connector.RowRecycler         = (*reader)(nil)
	_ connector.NestedRowRecycler   = (*reader)(nil)
	_ connector.RowSplitter         = (*reader)(nil)
)

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
	if r.recPool == nil {
		r.recPool = &recordPool{}
	}
	opts := []kgo.Opt{kgo.ConsumePartitions(assign), kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(), kgo.ConsumeResetOffset(reset),
		kgo.WithPools(r.recPool)}
	opts = append(opts, s.settings.fetchSizes()...)
	cl, err := s.newClient(append(opts, s.settings.consumer...)...)
	if err != nil {
		return err
	}
	r.cl = cl
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
	r.recycleUsed()
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
	r.rowPos, r.rowSplit = r.rowPos[:0], r.rowSplit[:0]
	var finished map[string][]int32
	examined := 0
	for len(r.pending) > 0 && examined < n {
		p := &r.pending[0]
		st := r.parts[topicPartition{p.Topic, p.Partition}]
		for st != nil && !st.done && len(p.Records) > 0 && examined < n {
			rec := p.Records[0]
			if rec.Offset < st.next {
				r.used = append(r.used, rec)
				p.Records[0] = nil
				p.Records = p.Records[1:]
				continue
			}
			if st.end >= 0 && rec.Offset >= st.end {
				// Records are in offset order: everything before the end
				// has been seen (hidden ones included).
				st.next = st.end
				r.drop(p.Records)
				p.Records = nil
				break
			}
			if !rec.Attrs.IsControl() {
				nbytes += int64(len(rec.Key) + len(rec.Value))
				row := &r.row
				*row = types.Row{Fields: rowFields(slab, len(out), width)}
				if err := r.decode(rec.Key, rec.Value, row); err != nil {
					if errors.Is(err, factory.ErrSkipRecord) {
						r.skipped.Add(1)
					} else if err := r.bad.decodeFailed(rec, err); err != nil {
						return out, err
					}
					clear(row.Fields)
					row.Kind = types.Insert
				} else {
					r.fillMetadata(rec, row)
					out = append(out, *row)
					r.rowPos, r.rowSplit = append(r.rowPos, rec), append(r.rowSplit, st.index)
					for r.nextRow != nil {
						// More rows of the record (an UPDATE's -U and +U):
						// past the slab's rows, each has its own fields.
						row := types.Row{Fields: rowFields(slab, len(out), width)}
						if !r.nextRow(&row) {
							break
						}
						r.fillMetadata(rec, &row)
						out = append(out, row)
						r.rowPos, r.rowSplit = append(r.rowPos, rec), append(r.rowSplit, st.index)
					}
				}
			}
			st.next = rec.Offset + 1
			// Drop the record as it is consumed: a batch's decompressed
			// bytes go as soon as its last record is recycled (at the
			// next take), not when the whole fetch is (halves what a
			// reader holds).
			r.used = append(r.used, rec)
			p.Records[0] = nil
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
			r.drop(p.Records)
			r.pending[0] = kgo.FetchTopicPartition{} // let the fetch's memory go
			r.pending = r.pending[1:]
		}
	}
	if finished != nil {
		r.cl.PauseFetchPartitions(finished)
	}
	r.row = types.Row{} // keeps no slab alive
	return out, nil
}

// drop hands recs, records removed from pending without being examined,
// to the next recycleUsed.
func (r *reader) drop(recs []*kgo.Record) {
	for i, rec := range recs {
		if rec != nil {
			r.used = append(r.used, rec)
			recs[i] = nil
		}
	}
}

// recycleUsed recycles the records the last take removed from pending
// into the client's pool, when the next Read begins: the runtime is done
// with the last batch's positions (rowPos, forgotten here too), and
// nothing else of the reader's refers to a record (dead letters copy what
// they keep; a row may view a record's bytes, which are not pooled). Each
// record is recycled once: a second Recycle of a record would hand its
// batch's slice back to the pool while in use.
func (r *reader) recycleUsed() {
	r.rowPos, r.rowSplit = r.rowPos[:0], r.rowSplit[:0]
	for i, rec := range r.used {
		rec.Recycle()
		r.used[i] = nil
	}
	r.used = r.used[:0]
	// The record of the last dead letter is compared by address
	// (badRecords.rejected): a recycled record's address may be another
	// record's in a later batch.
	r.bad.lastDead = nil
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

// RecycleNested implements connector.NestedRowRecycler: Recycle, and the
// formats' decoders may reuse the memory of the nested values they made
// (factory.ValueRecycler). Every row decoded so far is dead then, those
// of the last batch and those of records that became no row (skipped or
// set aside as dead letters, which keep the record's bytes, not its row).
func (r *reader) RecycleNested(rows []types.Row) {
	r.Recycle(rows)
	if r.recycleValues != nil {
		r.recycleValues()
	}
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

// RowSplit implements connector.RowSplitter: the index, among the splits
// the reader was opened with, of the partition of row i of the last batch
// (-1 for a partition discovered during the run).
func (r *reader) RowSplit(i int) int {
	if i < 0 || i >= len(r.rowSplit) {
		return -1
	}
	return int(r.rowSplit[i])
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
		state = appendIdentity(state, r.identity(st))
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
