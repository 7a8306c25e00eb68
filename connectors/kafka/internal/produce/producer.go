// Package produce is the Kafka sink's record path, which every writer
// shares, transactional or not: Producer encodes rows into recycled
// records, hands them to a client and collects the produce promises'
// outcome, and Warm prepares a producing client for its first record
// while the job starts. Package kafka's plain writers use it directly;
// package txn's exactly-once writer wraps it in transactions.
package produce

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/types"
)

// Producer is the record path shared by every writer of the Kafka sink,
// transactional or not: it encodes rows into recycled *kgo.Record values
// (no allocation per record while acknowledged records come back faster
// than maxFree accumulate: key and value buffers are reused too) and collects the outcome of
// the produce promises. Produce, Wait and Reset are called by one
// goroutine, the writer's; promises run on franz-go's.
type Producer struct {
	enc   Encoder
	meta  func(*types.Row, *kgo.Record) // copies writable metadata into records; nil: none
	check func(*kgo.Record) error       // checks a record's own topic; nil: none
	over  Oversize                      // measures records against their topic's limit; nil: none
	// compress is the client's codec for over (nil: none); scratch and
	// zipped are its buffers.
	compress        Compressor
	scratch, zipped []byte
	promise         func(*kgo.Record, error) // p.done, bound once
	bytes           atomic.Int64             // key and value bytes handed to the client
	// spare are recycled records only Produce touches: it refills them
	// from free, a batch at a time, so that neither side takes a lock per
	// record for recycling (the promise adds to free under the lock it
	// takes anyway).
	spare []*kgo.Record
	// lastKey and lastValue are the key and value lengths of the last
	// record Produce encoded.
	lastKey, lastValue int

	mu sync.Mutex // guards the fields below; promises run on franz-go's goroutine
	// free are records whose promise ran (franz-go no longer holds them),
	// at most maxFree.
	free     []*kgo.Record
	firstErr error
	failed   int64
	pidSet   bool
	pid      int64
	epoch    int16
	mixed    bool // records of one transaction reported different producer ids or epochs
	// acked holds the partitions of acknowledged records; last is the
	// latest one added (consecutive records mostly share a partition).
	acked map[TopicPartition]struct{}
	last  TopicPartition
	// pending counts records handed to Produce whose promise has not run,
	// plus, while a Produce call runs, the rows of it not yet handed (it
	// reserves them at once rather than taking the lock per record);
	// idle is closed when it drops to zero. Flush does not wait for a
	// record that failed before it was buffered (a record larger than
	// buffer.memory, say): its promise runs on another goroutine, later.
	pending int64
	idle    chan struct{}
	settled int64 // promises run so far
	// delivered counts the records the brokers acknowledged.
	delivered int64

	// life is the context of every buffered record: franz-go fails them
	// when it ends. watch ends it when records wait deliveryTimeout with
	// no promise running (franz-go's RecordDeliveryTimeout counts from
	// each record's own timestamp, which the 'timestamp' metadata column
	// may set in the past, so it is not used).
	life            context.Context
	kill            context.CancelCauseFunc
	deliveryTimeout time.Duration
	timer           *time.Timer
	seen            int64     // settled at the last stall check
	stalled         time.Time // since when records wait with no promise running
	closed          bool
}

// ErrDeliveryTimeout fails a writer's buffered records when they waited
// 'properties.delivery.timeout.ms' (default kafka.DefaultDeliveryTimeout)
// for an acknowledgement and none arrived: for example, the brokers cannot
// be reached.
var ErrDeliveryTimeout = errors.New("kafka sink: no record was acknowledged within properties.delivery.timeout.ms")

// ErrSkipRow is returned (possibly wrapped) by an Encoder for a row that
// produces no record (upsert-kafka's UPDATE_BEFORE): the row is skipped.
var ErrSkipRow = errors.New("kafka sink: row produces no record")

// Encoder turns a row into a Kafka record (package kafka's recordEncoder).
type Encoder interface {
	EncodeRecord(row *types.Row, rec *kgo.Record) error
}

// New returns the record path of one writer. enc encodes each row
// (ErrSkipRow: no record); meta, when not nil, then copies the row's
// writable metadata into the record, and check, when not nil, checks the
// record's own topic. Records waiting deliveryTimeout with no
// acknowledgement arriving fail with ErrDeliveryTimeout (0: never).
//
// ctx is the writer's: the context the runtime handed its Open, which
// ends with the run. The records' context and the delivery-timeout watch
// are rooted in it: when it ends, buffered records fail and the watch's
// timer stops, as they do at Close.
func New(ctx context.Context, enc Encoder, meta func(*types.Row, *kgo.Record), check func(*kgo.Record) error, deliveryTimeout time.Duration) *Producer {
	p := &Producer{enc: enc, meta: meta, check: check, deliveryTimeout: deliveryTimeout}
	p.promise = p.done
	p.life, p.kill = context.WithCancelCause(ctx)
	if deliveryTimeout > 0 {
		// Under the lock watch takes: the timer may fire before the
		// writer's goroutine next takes it (a slow Open after New).
		p.mu.Lock()
		p.timer = time.AfterFunc(p.checkEvery(), p.watch)
		p.mu.Unlock()
	}
	return p
}

func (p *Producer) checkEvery() time.Duration { return max(p.deliveryTimeout/8, 10*time.Millisecond) }

// watch runs on a timer: it ends the records' context once records have
// waited deliveryTimeout without any promise running. It stops once that
// context has ended (Close, the writer's context, or a delivery timeout).
func (p *Producer) watch() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.life.Err() != nil {
		return
	}
	now := time.Now()
	switch {
	case p.pending == 0 || p.settled != p.seen:
		p.seen, p.stalled = p.settled, time.Time{}
	case p.stalled.IsZero():
		p.stalled = now
	case now.Sub(p.stalled) >= p.deliveryTimeout-p.checkEvery():
		p.kill(fmt.Errorf("%w (%s, %d records waiting)", ErrDeliveryTimeout, p.deliveryTimeout, p.pending))
		return
	}
	p.timer.Reset(p.checkEvery())
}

// Close stops the watch. The records' context ends too: the client is
// being closed.
func (p *Producer) Close() {
	p.mu.Lock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
	}
	p.mu.Unlock()
	p.kill(errors.New("kafka sink: writer closed"))
}

// record returns a cleared record whose Key, Value and Headers keep their
// capacity.
func (p *Producer) record() *kgo.Record {
	if len(p.spare) == 0 {
		p.mu.Lock()
		p.spare, p.free = p.free, p.spare
		p.mu.Unlock()
		if len(p.spare) == 0 {
			// A new record: buffers sized after the last record's, so
			// that encoding does not grow them from nothing.
			r := new(kgo.Record)
			r.Key, r.Value = sized(p.lastKey), sized(p.lastValue)
			return r
		}
	}
	n := len(p.spare) - 1
	r := p.spare[n]
	p.spare[n] = nil // a record the free list drops is not held here
	p.spare = p.spare[:n]
	k, v, h := r.Key[:0], r.Value[:0], r.Headers[:0]
	*r = kgo.Record{Key: k, Value: v, Headers: h}
	return r
}

// sized returns an empty buffer for about n bytes: nil for 0 or for more
// than a recycled record keeps.
func sized(n int) []byte {
	if n += n / 4; n == 0 || n > maxKeptBuffer {
		return nil
	}
	return make([]byte, 0, n)
}

// unused takes back a record Produce did not hand to the client.
func (p *Producer) unused(r *kgo.Record) { p.spare = append(p.spare, r) }

// done is the produce promise. franz-go calls promises serially and does
// not touch a record after its promise returns, so the record is recycled.
func (p *Producer) done(r *kgo.Record, err error) {
	p.mu.Lock()
	p.settled++
	p.release(1)
	if err != nil {
		p.failed++
		if p.firstErr == nil {
			if cause := context.Cause(p.life); cause != nil && errors.Is(err, context.Canceled) {
				err = cause
			}
			p.firstErr = fmt.Errorf("kafka sink: producing to topic %s partition %d: %w", r.Topic, r.Partition, err)
		}
	} else {
		p.delivered++
		if !p.pidSet {
			p.pidSet, p.pid, p.epoch = true, r.ProducerID, r.ProducerEpoch
		} else if r.ProducerID != p.pid || r.ProducerEpoch != p.epoch {
			p.mixed = true
		}
		if tp := (TopicPartition{r.Topic, r.Partition}); len(p.acked) == 0 || tp != p.last {
			if p.acked == nil {
				p.acked = make(map[TopicPartition]struct{})
			}
			p.acked[tp], p.last = struct{}{}, tp
		}
	}
	if cap(r.Value) > maxKeptBuffer {
		r.Value = nil // one large record does not pin its buffer for good
	}
	if cap(r.Key) > maxKeptBuffer {
		r.Key = nil
	}
	if len(p.free) < maxFree {
		p.free = append(p.free, r)
	}
	p.mu.Unlock()
}

// maxFree is the most records the free list keeps; the GC takes the
// others. The records in flight can number the client's max buffered
// records (kafka.DefaultMaxBufferedRecords, 50,000): keeping every one
// that was ever in flight would hold megabytes for good, where a Write
// needs at most a few hundred at a time.
const maxFree = 4096

// maxKeptBuffer is the largest key or value buffer a recycled record keeps.
const maxKeptBuffer = 64 << 10

// Client is the part of a *kgo.Client the record path uses.
type Client interface {
	// Produce buffers r; promise runs once r is acknowledged or failed.
	Produce(ctx context.Context, r *kgo.Record, promise func(*kgo.Record, error))
}

// ClientSource gives Produce the client to produce to.
type ClientSource interface {
	// ProduceClient returns the client for the records of a Write; it is
	// called at most once per Write, when its first record is encoded.
	ProduceClient(ctx context.Context) (Client, error)
}

// Produce encodes rows and hands them to the client that src returns;
// it asks for the client only when the first record is encoded (a
// transaction begins at its first record, never for rows the encoder
// skips). Produce blocks when the client's buffer is full, which is the
// writer's backpressure; ctx (the task's) ends that wait and fails records
// still buffered, so a failover or a stop is not held up by an
// unreachable broker.
func (p *Producer) Produce(ctx context.Context, src ClientSource, rows []types.Row) (int, error) {
	var n int64
	// reserved counts rows added to pending ahead of their record, once
	// the client is known; what is left of it is taken back on return.
	var reserved int64
	defer func() {
		p.bytes.Add(n)
		if reserved > 0 {
			p.unreserve(reserved)
		}
	}()
	var cl Client
	for i := range rows {
		r := p.record()
		if err := p.enc.EncodeRecord(&rows[i], r); err != nil {
			p.unused(r)
			if errors.Is(err, ErrSkipRow) {
				continue
			}
			return i, fmt.Errorf("kafka sink: encoding a row: %w", err)
		}
		if p.meta != nil {
			p.meta(&rows[i], r)
		}
		if p.check != nil {
			if err := p.check(r); err != nil {
				p.unused(r)
				return i, fmt.Errorf("kafka sink: %w", err)
			}
		}
		if p.over != nil {
			if skip, err := p.measure(r); err != nil || skip {
				p.unused(r)
				if err != nil {
					return i, err
				}
				continue
			}
		}
		if cl == nil {
			var err error
			if cl, err = src.ProduceClient(ctx); err != nil {
				p.unused(r)
				return i, err
			}
		}
		if reserved == 0 {
			reserved = int64(len(rows) - i)
			p.mu.Lock()
			p.pending += reserved
			p.mu.Unlock()
		}
		reserved--
		p.lastKey, p.lastValue = len(r.Key), len(r.Value)
		n += int64(len(r.Key) + len(r.Value))
		// ctx bounds the wait for buffer space; life, the record's own
		// context, bounds its time in the buffer.
		r.Context = p.life
		cl.Produce(ctx, r, p.promise)
		if err := ctx.Err(); err != nil {
			return i + 1, err
		}
	}
	return len(rows), nil
}

// unreserve takes back k rows that Produce counted in pending but did not
// hand to the client.
func (p *Producer) unreserve(k int64) {
	p.mu.Lock()
	p.release(k)
	p.mu.Unlock()
}

// release drops k from pending, waking Wait when none is left; p.mu is
// held.
func (p *Producer) release(k int64) {
	if p.pending -= k; p.pending == 0 && p.idle != nil {
		close(p.idle)
		p.idle = nil
	}
}

// Wait waits until the promise of every record handed to Produce has run.
func (p *Producer) Wait(ctx context.Context) error {
	p.mu.Lock()
	if p.pending == 0 {
		p.mu.Unlock()
		return nil
	}
	if p.idle == nil {
		p.idle = make(chan struct{})
	}
	idle := p.idle
	p.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TopicPartition names a partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// Outcome is what the promises reported since the last Reset.
type Outcome struct {
	// Err is the first failure; Failed counts the failed records.
	Err    error
	Failed int64
	// PID and Epoch are the producer id and epoch the first acknowledged
	// record reported (PIDSet: one did); Mixed says that records reported
	// different ones.
	PID    int64
	Epoch  int16
	PIDSet bool
	Mixed  bool
	// Partitions are the partitions of the acknowledged records.
	Partitions []TopicPartition
}

// Outcome returns what the promises reported since the last Reset.
func (p *Producer) Outcome() Outcome {
	p.mu.Lock()
	defer p.mu.Unlock()
	parts := make([]TopicPartition, 0, len(p.acked))
	for tp := range p.acked {
		parts = append(parts, tp)
	}
	return Outcome{p.firstErr, p.failed, p.pid, p.epoch, p.pidSet, p.mixed, parts}
}

// Err returns the first produce failure since the last Reset.
func (p *Producer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.firstErr
}

// Reset forgets the outcome so far.
func (p *Producer) Reset() {
	p.mu.Lock()
	p.firstErr, p.failed, p.pidSet, p.pid, p.epoch, p.mixed = nil, 0, false, 0, 0, false
	clear(p.acked)
	p.mu.Unlock()
}

// Bytes returns the key and value bytes handed to the client so far.
func (p *Producer) Bytes() int64 { return p.bytes.Load() }

// Delivered returns the records the brokers acknowledged so far.
func (p *Producer) Delivered() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delivered
}

// DeliveryTimeout returns how long records wait for an acknowledgement
// before they fail (0: for ever).
func (p *Producer) DeliveryTimeout() time.Duration { return p.deliveryTimeout }
