package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/types"
)

// producer is the record path shared by every writer: it encodes rows into
// recycled *kgo.Record values (no allocation per record once the pool is
// warm: key and value buffers are reused too) and collects the outcome of
// the produce promises.
type producer struct {
	enc     RecordEncoder
	meta    []MetadataColumn        // writable metadata to copy into records
	check   func(*kgo.Record) error // checks a record's own topic; nil: none
	records sync.Pool
	promise func(*kgo.Record, error) // p.done, bound once
	bytes   atomic.Int64             // key and value bytes handed to the client

	mu       sync.Mutex // guards the fields below; promises run on franz-go's goroutine
	firstErr error
	failed   int64
	pidSet   bool
	pid      int64
	epoch    int16
	mixed    bool // records of one transaction reported different producer ids or epochs
}

func newProducer(enc RecordEncoder, meta []MetadataColumn, check func(*kgo.Record) error) *producer {
	p := &producer{enc: enc, meta: meta, check: check}
	p.records.New = func() any { return new(kgo.Record) }
	p.promise = p.done
	return p
}

// record returns a cleared record whose Key, Value and Headers keep their
// capacity.
func (p *producer) record() *kgo.Record {
	r := p.records.Get().(*kgo.Record)
	k, v, h := r.Key[:0], r.Value[:0], r.Headers[:0]
	*r = kgo.Record{Key: k, Value: v, Headers: h}
	return r
}

// done is the produce promise. franz-go calls promises serially and does
// not touch a record after its promise returns, so the record is recycled.
func (p *producer) done(r *kgo.Record, err error) {
	p.mu.Lock()
	if err != nil {
		p.failed++
		if p.firstErr == nil {
			p.firstErr = fmt.Errorf("kafka sink: producing to topic %s partition %d: %w", r.Topic, r.Partition, err)
		}
	} else if !p.pidSet {
		p.pidSet, p.pid, p.epoch = true, r.ProducerID, r.ProducerEpoch
	} else if r.ProducerID != p.pid || r.ProducerEpoch != p.epoch {
		p.mixed = true
	}
	p.mu.Unlock()
	p.records.Put(r)
}

// produce encodes rows and hands them to cl. Produce blocks when the
// client's buffer is full, which is the writer's backpressure.
func (p *producer) produce(cl *kgo.Client, rows []types.Row) (int, error) {
	var n int64
	defer func() { p.bytes.Add(n) }()
	for i := range rows {
		r := p.record()
		if err := p.enc.EncodeRecord(&rows[i], r); err != nil {
			p.records.Put(r)
			if errors.Is(err, ErrSkipRow) {
				continue
			}
			return i, fmt.Errorf("kafka sink: encoding a row: %w", err)
		}
		if len(p.meta) > 0 {
			writeMetadata(&rows[i], r, p.meta)
		}
		if p.check != nil {
			if err := p.check(r); err != nil {
				p.records.Put(r)
				return i, fmt.Errorf("kafka sink: %w", err)
			}
		}
		n += int64(len(r.Key) + len(r.Value))
		// The context only bounds waiting for buffer space and the life of
		// the buffered record; transactions are aborted by Close instead.
		cl.Produce(context.Background(), r, p.promise)
	}
	return len(rows), nil
}

// outcome is what the promises reported since the last reset.
type outcome struct {
	err    error
	failed int64
	pid    int64
	epoch  int16
	pidSet bool
	mixed  bool
}

func (p *producer) outcome() outcome {
	p.mu.Lock()
	defer p.mu.Unlock()
	return outcome{p.firstErr, p.failed, p.pid, p.epoch, p.pidSet, p.mixed}
}

// err returns the first produce failure since the last reset.
func (p *producer) err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.firstErr
}

func (p *producer) reset() {
	p.mu.Lock()
	p.firstErr, p.failed, p.pidSet, p.pid, p.epoch, p.mixed = nil, 0, false, 0, 0, false
	p.mu.Unlock()
}

// writeMetadata copies the writable metadata columns of row into r,
// reusing r's header slice. Header values alias the row's immutable
// string data: no copy.
func writeMetadata(row *types.Row, r *kgo.Record, meta []MetadataColumn) {
	for _, m := range meta {
		v := row.Fields[m.Index]
		if v.IsNull() {
			continue
		}
		switch m.Key {
		case MetaTopic:
			r.Topic = v.Str()
		case MetaTimestamp:
			r.Timestamp = v.Timestamp().Time()
		case MetaHeaders:
			md := v.Map()
			if md == nil {
				continue
			}
			for j := range md.Keys {
				var val []byte
				if !md.Values[j].IsNull() {
					val = md.Values[j].Bytes()
				}
				r.Headers = append(r.Headers, kgo.RecordHeader{Key: md.Keys[j].Str(), Value: val})
			}
		}
	}
}
