package txn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
	"github.com/streamsql/streamsql/types"
)

// ErrSlotsExhausted is returned by Writer.Write when it needs a
// transactional id for a new transaction and every id of the task's pool
// holds a transaction whose commit is not done. Under the runtime it does
// not happen: the pool is at least connector.TaskInfo.MaxUncommitted ids
// (the open transaction, one per checkpoint in flight, one per checkpoint
// waiting for its commits — the runtime stops triggering at
// execution.checkpointing.max-uncommitted-checkpoints of them — and the
// work carried over tolerated failed checkpoints). Ids whose commit is done
// but not yet durably acknowledged never make Write wait: the pool takes
// one more id instead. Other drivers can consult CheckpointReady before
// triggering a checkpoint.
var ErrSlotsExhausted = errors.New("kafka sink: every transactional id of the task holds a transaction whose commit is not acknowledged")

type slotState uint8

const (
	slotIdle         slotState = iota // no open transaction
	slotOpen                          // a transaction is open on client
	slotPrecommitted                  // flushed and handed out as a committable; not known to be committed
	slotCommitted                     // its last transaction is committed
	slotClosed                        // its writer is closed
)

// slot is one transactional id of a writer's pool and the client that
// writes its transactions. The writer drives open transactions; the
// committer commits pre-committed ones on the same client when it can. mu
// guards state, client and last across the two.
type slot struct {
	id    string
	index int

	mu     sync.Mutex
	state  slotState
	client Client // nil: a new one is made at the next begin
	tv     int16  // transaction version client is pinned to
	used   bool   // client has begun a transaction
	last   connector.Committable
	lastC  Committable
	acked  []produce.TopicPartition // partitions of the records lastC's transaction wrote
	began  time.Time                // when the open or last transaction began
}

// reusable reports whether a new transaction may start on sl: its last
// committable (if any) is durably acknowledged as committed.
func (sl *slot) reusable(ack AckTracker) bool {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	switch sl.state {
	case slotIdle:
		return true
	case slotCommitted, slotPrecommitted:
		// Precommitted: committed by a process that did not go through this
		// slot (a raw commit after its client was lost) counts too.
		return ack.IsDurablyCommitted(sl.last)
	}
	return false
}

// committedNotDurable reports whether sl's last transaction is committed
// but the acknowledgement is not yet durable.
func (sl *slot) committedNotDurable() bool {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return sl.state == slotCommitted
}

// Writer writes one sink task's rows in Kafka transactions
// (docs/exactly-once.md): one transaction per checkpoint, on
// transactional ids <prefix>-<task>-<slot> from a bounded pool. Write and
// PreCommit are called from the task's goroutine; the sink's committer may
// commit the writer's pre-committed transactions concurrently.
type Writer struct {
	ctx  context.Context // NewWriter's
	sink *Sink
	task connector.TaskInfo
	log  *slog.Logger
	meta Client // non-transactional: reads the transaction version
	ack  AckTracker
	p    *produce.Producer
	// dead are the record paths of the dead letters written in the
	// writer's transactions (WriteDeadLetters), by dead-letter sink; all
	// holds p and them, for what applies to every record of a
	// transaction.
	dead map[connector.Sink]*produce.Producer
	all  []*produce.Producer

	slots    []*slot // live slots
	maxSlots int     // pool size: MaxTransactionSlots, or the runtime's bound when larger
	cur      *slot   // slot of the open transaction, nil when none is open
	nextSeq  int     // next slot index (INCREMENTING)
	failed   error   // sticky: a produce failed; only Close remains
	// stored holds the offsets committed in this writer's transactions,
	// so that an idle source does not cost a transaction per checkpoint.
	stored map[storedKey]int64
	// warm is the warm-up of the first transaction's client (Warm); nil
	// without one or once dropped.
	warm *warming

	// view is a copy of slots and cur for CheckpointReady and
	// OldestUncommitted, which other goroutines call.
	view atomic.Pointer[writerView]
}

// The connector capabilities Writer means to have (checked by the compiler).
var (
	_ connector.Writer              = (*Writer)(nil)
	_ connector.ByteCounter         = (*Writer)(nil)
	_ connector.DeadLetterWriter    = (*Writer)(nil)
	_ connector.GroupPositionWriter = (*Writer)(nil)
	_ connector.HealthReporter      = (*Writer)(nil)
)

type writerView struct {
	slots []*slot
	cur   *slot
}

// publish makes the current slots visible to other goroutines. It is
// called when slots or cur change: per transaction, not per record.
func (w *Writer) publish() {
	w.view.Store(&writerView{slots: slices.Clone(w.slots), cur: w.cur})
}

// NewWriter returns the writer of one sink task: its transactions write
// through p, and ack says when a transactional id may be reused. ctx is
// the context the runtime handed the sink's Open: the writer's warm-up and
// the record paths it makes later (dead letters) are rooted in it. The
// writer owns p (it is closed also when NewWriter fails).
func (s *Sink) NewWriter(ctx context.Context, task connector.TaskInfo, ack AckTracker, p *produce.Producer) (*Writer, error) {
	meta, err := s.cfg.Dialer.Client(nil)
	if err != nil {
		p.Close()
		return nil, err
	}
	log := task.Logger
	if log == nil {
		log = s.cfg.Logger
	}
	w := &Writer{ctx: ctx, sink: s, task: task, log: log, meta: meta, ack: ack, p: p, all: []*produce.Producer{p},
		maxSlots: max(s.cfg.MaxSlots, task.MaxUncommitted)}
	if s.cfg.Incrementing {
		// Continue after the ids of the restored checkpoint.
		w.nextSeq = s.nextIndex(task.Index)
	}
	return w, nil
}

// Write produces rows in the task's open transaction, beginning one (on a
// free slot) when none is open. It blocks when the client's buffer is full.
func (w *Writer) Write(ctx context.Context, rows []types.Row) error {
	if w.failed != nil {
		return w.failed
	}
	if err := w.p.Err(); err != nil {
		w.failed = err
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := w.p.Produce(ctx, w, rows)
	if err != nil {
		w.failed = err
	}
	return err
}

// ForgetsRows reports that the writer keeps no row past Write
// (connector.RowForgetter): Produce encodes each row into its record at
// once.
func (*Writer) ForgetsRows() bool { return true }

// WriteDeadLetters implements connector.DeadLetterWriter: it produces
// rows, dead letters of the source whose dead-letter sink is dl, in the
// task's open transaction (beginning one when none is open) through the
// record path Config.DeadLetters gives for dl, so that they commit or
// abort with the rows and the source offsets of the same transaction.
func (w *Writer) WriteDeadLetters(ctx context.Context, dl connector.Sink, rows []types.Row) error {
	if w.failed != nil {
		return w.failed
	}
	p, err := w.deadLetters(dl)
	if err != nil {
		return err
	}
	if err := p.Err(); err != nil {
		w.failed = err
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	if _, err := p.Produce(ctx, w, rows); err != nil {
		w.failed = err
		return err
	}
	return nil
}

// deadLetters returns the record path of dl's dead letters, made at first
// use.
func (w *Writer) deadLetters(dl connector.Sink) (*produce.Producer, error) {
	if p, ok := w.dead[dl]; ok {
		return p, nil
	}
	if w.sink.cfg.DeadLetters == nil {
		return nil, errors.New("kafka sink: this sink cannot write dead letters in its transactions")
	}
	p, err := w.sink.cfg.DeadLetters(w.ctx, dl)
	if err != nil {
		return nil, err
	}
	if w.cur != nil {
		// A transaction is open: outcomes count from its beginning.
		p.Reset()
	}
	if w.dead == nil {
		w.dead = map[connector.Sink]*produce.Producer{}
	}
	w.dead[dl] = p
	w.all = append(w.all, p)
	return p, nil
}

// outcome returns what the promises of every record path of the writer
// reported since the open transaction began: one producer id and epoch
// for all, or Mixed.
func (w *Writer) outcome() produce.Outcome {
	o := w.p.Outcome()
	for _, p := range w.all[1:] {
		d := p.Outcome()
		if o.Err == nil {
			o.Err = d.Err
		}
		o.Failed += d.Failed
		switch {
		case !d.PIDSet:
		case !o.PIDSet:
			o.PID, o.Epoch, o.PIDSet = d.PID, d.Epoch, true
		case d.PID != o.PID || d.Epoch != o.Epoch:
			o.Mixed = true
		}
		o.Mixed = o.Mixed || d.Mixed
		o.Partitions = append(o.Partitions, d.Partitions...)
	}
	return o
}

// ProduceClient returns the client of the open transaction, beginning one
// when none is open (at the first record: rows the encoder skips, such as
// upsert-kafka's UPDATE_BEFORE, open no transaction). It implements
// produce.ClientSource for the writer's Producer.
func (w *Writer) ProduceClient(ctx context.Context) (produce.Client, error) {
	if w.cur == nil {
		if err := w.begin(ctx); err != nil {
			return nil, err
		}
	}
	return w.cur.client, nil
}

// begin starts a transaction on a free slot. Under transaction version
// 0/1 every transaction on a reused slot starts on a new client, whose
// first transaction sends InitProducerId: successive transactions of one
// producer would otherwise share an epoch (FLINK-8132).
func (w *Writer) begin(ctx context.Context) error {
	sl, err := w.acquire()
	if err != nil {
		return err
	}
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.client != nil && sl.used && sl.tv < 2 {
		sl.client.Close()
		sl.client = nil
	}
	if sl.client == nil {
		w.adoptWarmed(ctx, sl)
	}
	if sl.client == nil {
		cl, tv, err := w.newClient(ctx, sl.id)
		if err != nil {
			return err
		}
		sl.client, sl.tv, sl.used = cl, tv, false
	}
	if err := sl.client.BeginTransaction(); err != nil {
		return fmt.Errorf("kafka sink: beginning a transaction on %q: %w", sl.id, err)
	}
	sl.state, sl.used, sl.last, sl.lastC, sl.acked, sl.began = slotOpen, true, nil, Committable{}, nil, time.Now()
	for _, p := range w.all {
		p.Reset()
	}
	w.cur = sl
	w.publish()
	return nil
}

// acquire returns a slot on which a transaction may begin: a reusable
// one, else a new one while the pool has room, else — when a slot's commit
// is done but its acknowledgement not yet durable — a new one beyond the
// pool: that acknowledgement becomes durable only with a later checkpoint,
// which needs this task's barrier, queued behind this Write, so waiting
// for it would stall the task until a timeout. With every slot holding a
// transaction whose commit is not done it fails with ErrSlotsExhausted.
func (w *Writer) acquire() (*slot, error) {
	ack := w.ack
	w.sweep()
	if !w.sink.cfg.Incrementing {
		for _, sl := range w.slots {
			if sl.reusable(ack) && !w.sink.isReserved(sl.id, ack) {
				return sl, nil
			}
		}
	}
	if len(w.slots) < w.maxSlots {
		return w.newSlot(), nil
	}
	for _, sl := range w.slots {
		if sl.committedNotDurable() {
			w.log.Debug("kafka sink: every transactional id of the pool waits for its commit to be durably acknowledged; using one more",
				"table", w.task.Table, "task", w.task.Index, "slots", len(w.slots))
			return w.newSlot(), nil
		}
	}
	return nil, fmt.Errorf("%w (task %d, %d slots, transactional id prefix %q)", ErrSlotsExhausted,
		w.task.Index, len(w.slots), w.sink.cfg.Prefix)
}

// newSlot adds a slot with the lowest free index (POOLING) or the next
// index (INCREMENTING), skipping ids that hold restored committables not
// yet durably committed.
func (w *Writer) newSlot() *slot {
	idx := 0
	if w.sink.cfg.Incrementing {
		idx = w.nextSeq
	}
	for {
		used := false
		for _, sl := range w.slots {
			if sl.index == idx {
				used = true
			}
		}
		id := ID(w.sink.cfg.Prefix, w.task.Index, idx)
		if !used && !w.sink.isReserved(id, w.ack) {
			sl := &slot{id: id, index: idx}
			w.slots = append(w.slots, sl)
			w.publish()
			w.sink.register(sl)
			w.nextSeq = idx + 1
			return sl
		}
		idx++
	}
}

// sweep drops (INCREMENTING) slots whose last transaction is durably
// committed: their ids are never used again in this run.
func (w *Writer) sweep() {
	if !w.sink.cfg.Incrementing {
		return
	}
	kept := w.slots[:0]
	for _, sl := range w.slots {
		if sl != w.cur && sl.reusable(w.ack) {
			w.closeSlot(sl)
			continue
		}
		kept = append(kept, sl)
	}
	clear(w.slots[len(kept):])
	w.slots = kept
	w.publish()
}

// CheckpointReady reports whether a checkpoint may be triggered: after
// this writer pre-commits, its next transaction will find a transactional
// id (free now, creatable, or committed and made durable by that
// checkpoint). When it is false a driver should hold checkpoints back (the
// job keeps running) and warn with the reason. streamsql's runtime does not
// call it: its own bound on uncommitted checkpoints keeps the pool from
// running out (see ErrSlotsExhausted). It is safe to call from any
// goroutine.
func (w *Writer) CheckpointReady() (bool, string) {
	v := w.view.Load()
	if v == nil || len(v.slots) < w.maxSlots {
		return true, ""
	}
	for _, sl := range v.slots {
		if sl != v.cur && (sl.reusable(w.ack) || sl.committedNotDurable()) {
			return true, ""
		}
	}
	return false, fmt.Sprintf("kafka sink %s, task %d: all %d transactional ids wait for their commits to be acknowledged",
		w.task.Table, w.task.Index, len(v.slots))
}

// OldestUncommitted returns when the oldest transaction of this writer that
// is not known to be committed (open, or pre-committed and not yet
// committed) began; zero when there is none. The broker aborts a
// transaction TransactionTimeout after it began, so a driver should fail
// over to the last completed checkpoint well before that age (docs/exactly-once.md,
// "Timeout"). streamsql's runtime tracks the same age itself,
// per checkpoint, through connector.TransactionTimeouter. It is safe to
// call from any goroutine.
func (w *Writer) OldestUncommitted() time.Time {
	var oldest time.Time
	v := w.view.Load()
	if v == nil {
		return oldest
	}
	for _, sl := range v.slots {
		sl.mu.Lock()
		if (sl.state == slotOpen || sl.state == slotPrecommitted) && (oldest.IsZero() || sl.began.Before(oldest)) {
			oldest = sl.began
		}
		sl.mu.Unlock()
	}
	return oldest
}

// PreCommit flushes the open transaction and returns its committable, or
// nothing when no transaction is open (empty transactions are never
// checkpointed: committing one fails on the broker). Any failed record
// fails the pre-commit; the transaction is then aborted by Close.
func (w *Writer) PreCommit(ctx context.Context, checkpointID int64) ([]connector.Committable, error) {
	return w.preCommit(ctx, checkpointID, nil)
}

// AcceptsGroupPositions reports whether p's offsets can be committed in this
// writer's transactions (connector.GroupPositionWriter): p's cluster is the
// sink's cluster (same cluster id).
func (w *Writer) AcceptsGroupPositions(p connector.GroupPositions) bool {
	return p.Cluster != "" && p.Cluster == w.sink.cfg.ClusterID
}

// PreCommitWithPositions is PreCommit that also commits positions (source
// offsets, each of an accepted group) inside the transaction:
// AddOffsetsToTxn below transaction version 2 (at 2, TxnOffsetCommit v5
// adds the group itself), then TxnOffsetCommit with the group's generation
// and member id (-1 and "" for a reader that is no member). The offsets
// become visible in the group when the transaction commits — also when a
// later run commits it by raw EndTxn — and never when it aborts. With no
// open transaction (no row of the interval reached this writer) positions
// that moved since the last ones stored go in a transaction of their own
// (preCommitOffsets); unmoved ones open none. A group's refusal (for example UNKNOWN_MEMBER_ID: the group has
// members) leaves the transaction intact; the committable is returned
// with an error wrapping connector.ErrGroupPositions.
func (w *Writer) PreCommitWithPositions(ctx context.Context, checkpointID int64, positions []connector.GroupPositions) ([]connector.Committable, error) {
	return w.preCommit(ctx, checkpointID, positions)
}

func (w *Writer) preCommit(ctx context.Context, checkpointID int64, positions []connector.GroupPositions) ([]connector.Committable, error) {
	if w.failed != nil {
		return nil, w.failed
	}
	sl := w.cur
	if sl == nil {
		// No row of the interval reached this writer. Positions that
		// moved still go in a transaction of their own; unmoved ones
		// (an idle source) need none.
		if moved := w.moved(positions); len(moved) > 0 {
			return w.preCommitOffsets(ctx, checkpointID, moved)
		}
		return nil, nil
	}
	if err := sl.client.Flush(ctx); err != nil {
		return nil, fmt.Errorf("kafka sink: flushing transaction %q for checkpoint %d: %w", sl.id, checkpointID, err)
	}
	for _, p := range w.all {
		if err := p.Wait(ctx); err != nil {
			return nil, fmt.Errorf("kafka sink: waiting for the records of transaction %q for checkpoint %d: %w", sl.id, checkpointID, err)
		}
	}
	// The broker aborts a transaction transaction.timeout.ms after its
	// first record; an idle writer sees nothing of it (its records were
	// acknowledged before). Never hand out a transaction that near its end.
	if age, to := time.Since(sl.began), w.sink.cfg.Timeout; age > to*4/5 {
		w.failed = fmt.Errorf("kafka sink: transaction %q of checkpoint %d began %s ago, past 4/5 of transaction.timeout.ms (%s): the broker may have aborted it, so it is not pre-committed",
			sl.id, checkpointID, age.Round(time.Millisecond), to)
		return nil, w.failed
	}
	o := w.outcome()
	switch {
	case o.Err != nil:
		w.failed = fmt.Errorf("kafka sink: %d records of checkpoint %d failed, transaction %q is not pre-committed: %w",
			o.Failed, checkpointID, sl.id, o.Err)
		return nil, w.failed
	case !o.PIDSet:
		w.failed = fmt.Errorf("kafka sink: transaction %q of checkpoint %d: no record reported its producer id", sl.id, checkpointID)
		return nil, w.failed
	case o.Mixed:
		w.failed = fmt.Errorf("kafka sink: transaction %q of checkpoint %d: records reported different producer ids or epochs", sl.id, checkpointID)
		return nil, w.failed
	}
	groupErrs, _, err := w.commitPositions(ctx, sl, checkpointID, o.PID, o.Epoch, positions)
	if err != nil {
		return nil, err
	}
	b := w.precommitted(sl, Committable{TransactionalID: sl.id, ProducerID: o.PID, Epoch: o.Epoch, TransactionVersion: sl.tv, CheckpointID: checkpointID}, o.Partitions, false)
	return []connector.Committable{b}, errors.Join(groupErrs...)
}

// precommitted marks sl, the open transaction, pre-committed as c, whose
// records went to acked, and returns c encoded. closeClient closes the
// slot's client, so that the committer ends the transaction by raw EndTxn.
func (w *Writer) precommitted(sl *slot, c Committable, acked []produce.TopicPartition, closeClient bool) []byte {
	b := c.Encode()
	sl.mu.Lock()
	sl.state, sl.last, sl.lastC, sl.acked = slotPrecommitted, b, c, acked
	if closeClient {
		sl.client.Close()
		sl.client = nil
	}
	sl.mu.Unlock()
	w.cur = nil
	w.publish()
	return b
}

// commitPositions commits positions inside sl's open transaction (pid,
// epoch) and remembers what it committed (stored). It returns the groups'
// refusals that leave the transaction intact and how many groups
// committed; any other error is fatal (w.failed is set).
func (w *Writer) commitPositions(ctx context.Context, sl *slot, checkpointID int64, pid int64, epoch int16, positions []connector.GroupPositions) ([]error, int, error) {
	var groupErrs []error
	committed := 0
	for _, p := range positions {
		// A member commits under its membership of now, not of the
		// snapshot: a rebalance that left it its partitions has bumped
		// the generation meanwhile (connector.GroupPositions.Membership).
		p = p.Current()
		err := commitOffsetsInTxn(ctx, sl.client, sl.id, sl.tv, pid, epoch, p)
		if isGroupRefusal(err) && p.Membership != nil {
			// The group may have moved to a new generation that the
			// member is joining: commit again under it once the member
			// has it, if it still holds the partitions then.
			if q, ok := awaitNewMembership(ctx, p); ok {
				p = q
				err = commitOffsetsInTxn(ctx, sl.client, sl.id, sl.tv, pid, epoch, p)
			}
		}
		switch {
		case err == nil:
			committed++
			w.remember(p)
		case isGroupRefusal(err) && p.Generation >= 0:
			// The reader is a member of the group (a scaled-out job) and
			// the group refuses its generation: the group has moved its
			// partitions to another member, which reads them again from
			// the group's offsets. This transaction must never commit.
			w.failed = fmt.Errorf("kafka sink: consumer group %q fenced this instance (member %q, generation %d) while committing its offsets in transaction %q of checkpoint %d; the transaction is aborted and the instance rejoins: %w",
				p.Group, p.MemberID, p.Generation, sl.id, checkpointID, err)
			return nil, committed, w.failed
		case isGroupRefusal(err):
			groupErrs = append(groupErrs, fmt.Errorf("kafka sink: committing offsets to group %q in transaction %q of checkpoint %d: %w: %w",
				p.Group, sl.id, checkpointID, connector.ErrGroupPositions, err))
		default:
			w.failed = fmt.Errorf("kafka sink: committing offsets to group %q in transaction %q of checkpoint %d: %w", p.Group, sl.id, checkpointID, err)
			return nil, committed, w.failed
		}
	}
	return groupErrs, committed, nil
}

// storedKey is one partition of one group whose offset the writer
// committed in a transaction.
type storedKey struct {
	group, topic string
	partition    int32
}

// remember records p's offsets as committed in a transaction of this run
// (w.stored). A transaction that then does not commit fails the run, and
// with it this writer.
func (w *Writer) remember(p connector.GroupPositions) {
	if w.stored == nil {
		w.stored = map[storedKey]int64{}
	}
	for _, o := range p.Offsets {
		w.stored[storedKey{p.Group, o.Topic, o.Partition}] = o.Offset
	}
}

// moved returns the positions with an offset that differs from the last
// one this writer committed in a transaction.
func (w *Writer) moved(positions []connector.GroupPositions) []connector.GroupPositions {
	var out []connector.GroupPositions
	for _, p := range positions {
		for _, o := range p.Offsets {
			if at, ok := w.stored[storedKey{p.Group, o.Topic, o.Partition}]; !ok || at != o.Offset {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// preCommitOffsets pre-commits a transaction that carries only positions:
// no row of the interval reached the writer, but its sources read on (a
// WHERE that drops every row), so without it the groups' offsets would not
// move until a row comes. It goes through the same pre-commit, commit and
// recovery path as any transaction, so it can never commit after a later
// transaction's offsets. Its client is closed once the transaction is
// pre-committed: the client's EndTransaction takes a transaction without
// records for empty and sends nothing (franz-go v1.22.3), so the committer
// ends it by raw EndTxn. When no group takes its offsets the transaction
// is aborted and nothing is pre-committed.
func (w *Writer) preCommitOffsets(ctx context.Context, checkpointID int64, positions []connector.GroupPositions) ([]connector.Committable, error) {
	if err := w.begin(ctx); err != nil {
		w.failed = err
		return nil, err
	}
	sl := w.cur
	pid, epoch, err := sl.client.ProducerID(ctx)
	if err != nil {
		// Nothing reached the coordinator: Close's abort sends nothing
		// and needs to send nothing.
		w.failed = fmt.Errorf("kafka sink: loading the producer id of %q for the offsets of checkpoint %d: %w", sl.id, checkpointID, err)
		return nil, w.failed
	}
	groupErrs, committed, err := w.commitPositions(ctx, sl, checkpointID, pid, epoch, positions)
	if err != nil || committed == 0 {
		w.abortOffsets(ctx, sl, pid, epoch)
		if err != nil {
			return nil, err
		}
		// No committable, but not nil: the groups' refusals are not fatal.
		return []connector.Committable{}, errors.Join(groupErrs...)
	}
	b := w.precommitted(sl, Committable{TransactionalID: sl.id, ProducerID: pid, Epoch: epoch, TransactionVersion: sl.tv, CheckpointID: checkpointID}, nil, true)
	return []connector.Committable{b}, errors.Join(groupErrs...)
}

// abortOffsets aborts sl's offsets-only transaction (pid, epoch) by raw
// EndTxn — its client knows of no transaction to abort — and frees sl. An
// answer that the transaction is not open (nothing was added to it) is
// fine; another failure is logged: the broker's timeout or the next
// start's recovery aborts it.
func (w *Writer) abortOffsets(ctx context.Context, sl *slot, pid int64, epoch int16) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeAbortTimeout)
	err := retry(actx, 10, func() error { return rawEndTxn(actx, sl.client, sl.id, pid, epoch, false) })
	cancel()
	if err != nil && !isLost(err) {
		w.log.Warn("kafka sink: cannot abort a transaction that carried only consumer group offsets; the broker's transaction timeout or the next start aborts it",
			"transactional_id", sl.id, "err", err)
	}
	sl.mu.Lock()
	sl.client.Close()
	sl.client = nil
	sl.state, sl.last, sl.lastC, sl.acked = slotIdle, nil, Committable{}, nil
	sl.mu.Unlock()
	w.cur = nil
	w.publish()
}

// Close aborts the open transaction (if any) and closes every client.
// Pre-committed transactions are left for the committer, which commits
// them by raw EndTxn; closing a client sends nothing to the coordinator.
func (w *Writer) Close() error {
	w.dropWarmed()
	var errs []error
	for _, sl := range w.slots {
		if err := w.closeSlot(sl); err != nil {
			errs = append(errs, err)
		}
	}
	w.slots, w.cur = nil, nil
	w.publish()
	w.meta.Close()
	for _, p := range w.all {
		p.Close()
	}
	return errors.Join(errs...)
}

// closeAbortTimeout bounds Close's abort of the open transaction.
const closeAbortTimeout = 5 * time.Second

func (w *Writer) closeSlot(sl *slot) error {
	w.sink.unregister(sl)
	sl.mu.Lock()
	defer sl.mu.Unlock()
	var err error
	if sl.state == slotOpen && sl.client != nil {
		// Aborting is a courtesy to read_committed readers (the broker's
		// timeout or the next start aborts the transaction too): it must
		// not hold up a failover or a stop while the broker is away.
		ctx, cancel := context.WithTimeout(context.Background(), closeAbortTimeout)
		err = sl.client.AbortBufferedRecords(ctx)
		if err == nil {
			err = sl.client.EndTransaction(ctx, kgo.TryAbort)
		}
		cancel()
		if err != nil {
			err = fmt.Errorf("kafka sink: aborting the open transaction of %q: %w (it is aborted by the broker's transaction timeout or at the next start)", sl.id, err)
		}
	}
	if sl.client != nil {
		sl.client.Close()
		sl.client = nil
	}
	sl.state = slotClosed
	return err
}

// Bytes returns the key and value bytes written so far
// (connector.ByteCounter).
func (w *Writer) Bytes() int64 { return w.p.Bytes() }

// Delivered returns the records the brokers acknowledged
// (connector.DeliveryCounter): written into transactions, committed or
// not.
func (w *Writer) Delivered() int64 { return w.p.Delivered() }

// DeliveryTimeout returns properties.delivery.timeout.ms
// (connector.DeliveryTimeouter).
func (w *Writer) DeliveryTimeout() time.Duration { return w.p.DeliveryTimeout() }

// Unhealthy names the brokers the writer's clients cannot reach
// (connector.HealthReporter); "" when there are none. It is safe to call
// from any goroutine.
func (w *Writer) Unhealthy() string { return w.sink.cfg.Unhealthy() }

// membershipPatience bounds how long a refused offset commit waits for the
// member to join the group's new generation.
const membershipPatience = 2 * time.Second

// awaitNewMembership waits (for at most membershipPatience) until p's
// Membership reports a membership other than p's, and returns p with it.
func awaitNewMembership(ctx context.Context, p connector.GroupPositions) (connector.GroupPositions, bool) {
	deadline := time.Now().Add(membershipPatience)
	for {
		id, gen, ok := p.Membership()
		if !ok {
			return p, false // the partitions are no longer the member's
		}
		if gen != p.Generation || id != p.MemberID {
			p.MemberID, p.Generation = id, gen
			return p, true
		}
		if time.Now().After(deadline) {
			return p, false
		}
		select {
		case <-ctx.Done():
			return p, false
		case <-time.After(20 * time.Millisecond):
		}
	}
}
