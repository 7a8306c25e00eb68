package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The two reference pipes every streamsql scenario is compared with
// (BENCHMARKS.md, "The reference pipes"):
//
//   - rawcopy: consume → produce the same key and value bytes, nothing
//     decoded: the ceiling of any pipe on this client, broker and machine;
//   - fastjson: consume → decode JSON with a zero-reflection parser → filter
//     → project → encode JSON by hand → produce: the best a user could write
//     for the benchmark's job.
//
// Both run with streamsql's default client settings (defaultSettings), at
// least once or transactionally with a commit every second (like streamsql's
// exactly-once sink with 1 s checkpoints), in one goroutine that takes every
// buffered record of a poll at once.

// The reference pipes and their scenarios.
const (
	refRawCopy  = "rawcopy"
	refFastJSON = "fastjson"

	scenarioRawALO  = "rawcopy-alo"
	scenarioRawTxn  = "rawcopy-txn"
	scenarioFastALO = "fastjson-alo"
	scenarioFastTxn = "fastjson-txn"
)

// referenceScenario is a reference pipe with streamsql's default client
// settings.
func referenceScenario(name, guarantee, kind string) scenario {
	txn := guarantee == "exactly-once"
	return scenario{Name: name, Guarantee: guarantee, Reference: kind, CopiesAll: kind == refRawCopy,
		run: func(ctx context.Context, bootstrap, src, dst string, expect int64, ready func()) (pipeResult, error) {
			return runReference(ctx, kind, bootstrap, src, dst, expect, txn, defaultSettings, ready)
		}}
}

// optional marks a scenario that runs only when -only names it.
func optional(sc scenario) scenario {
	sc.Optional = true
	return sc
}

// transform is a reference pipe's per-record work: it returns the value to
// produce (appending it to the slab when it makes a new one) and whether the
// record passes.
type transform func(s *slab, r *kgo.Record) (value []byte, keep bool, err error)

// newTransform returns the per-record work of a reference pipe.
func newTransform(kind string) (transform, error) {
	switch kind {
	case refRawCopy:
		return func(_ *slab, r *kgo.Record) ([]byte, bool, error) { return r.Value, true, nil }, nil
	case refFastJSON:
		return newFastJSONTransform(), nil
	}
	return nil, fmt.Errorf("unknown reference pipe %q", kind)
}

// slab hands out the output values and records of a reference pipe from
// large chunks, so that the loop allocates once per chunk rather than once
// per record. A chunk is freed once every record carved from it has been
// acknowledged and dropped by the client.
type slab struct {
	chunk []byte
	recs  []kgo.Record
}

const (
	slabChunk   = 256 << 10 // bytes per value chunk
	slabMinFree = 32 << 10  // a new chunk is started when less is free
	slabRecords = 1024      // records per record chunk
)

// value appends one value with f to the current chunk and returns it.
func (s *slab) value(f func([]byte) []byte) []byte {
	if cap(s.chunk)-len(s.chunk) < slabMinFree {
		s.chunk = make([]byte, 0, slabChunk)
	}
	start := len(s.chunk)
	s.chunk = f(s.chunk)
	return s.chunk[start:len(s.chunk):len(s.chunk)]
}

// record returns a zeroed record from the current record chunk.
func (s *slab) record() *kgo.Record {
	if len(s.recs) == cap(s.recs) {
		s.recs = make([]kgo.Record, 0, slabRecords)
	}
	s.recs = s.recs[:len(s.recs)+1]
	return &s.recs[len(s.recs)-1]
}

// runReference runs a reference pipe (rawcopy or fastjson) from src to
// dst; expect, txn and ready are as for runBaseline.
func runReference(ctx context.Context, kind, bootstrap, src, dst string, expect int64, txn bool, set ClientSettings, ready func()) (pipeResult, error) {
	var res pipeResult
	xform, err := newTransform(kind)
	if err != nil {
		return res, err
	}
	consumer, producer, expect, err := openPipe(ctx, kind, bootstrap, src, dst, expect, txn, set)
	if err != nil {
		return res, err
	}
	defer consumer.Close()
	defer producer.Close()
	ready()

	var (
		out     atomic.Int64
		errOnce sync.Once
		prodErr atomic.Pointer[error]
	)
	onAck := func(_ *kgo.Record, err error) {
		if err != nil {
			errOnce.Do(func() { prodErr.Store(&err) })
			return
		}
		out.Add(1)
	}
	commit := func() error {
		if err := producer.Flush(ctx); err != nil {
			return err
		}
		if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
			return err
		}
		res.Commits++
		return nil
	}
	if txn {
		if err := producer.BeginTransaction(); err != nil {
			return res, err
		}
	}
	var s slab
	lastCommit := time.Now()
	var start time.Time
	for res.In < expect {
		fs := consumer.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if errs := fs.Errors(); len(errs) > 0 {
			return res, fmt.Errorf("fetch %s/%d: %w", errs[0].Topic, errs[0].Partition, errs[0].Err)
		}
		if start.IsZero() {
			start = time.Now()
		}
		for it := fs.RecordIter(); !it.Done(); {
			r := it.Next()
			res.In++
			res.BytesIn += int64(len(r.Value))
			v, keep, err := xform(&s, r)
			if err != nil {
				return res, fmt.Errorf("%s/%d@%d: %w", r.Topic, r.Partition, r.Offset, err)
			}
			if !keep {
				continue
			}
			rec := s.record()
			rec.Key, rec.Value = r.Key, v
			producer.Produce(ctx, rec, onAck)
		}
		if txn && time.Since(lastCommit) >= time.Second {
			if err := commit(); err != nil {
				return res, err
			}
			if err := producer.BeginTransaction(); err != nil {
				return res, err
			}
			lastCommit = time.Now()
		}
	}
	if txn {
		if err := commit(); err != nil {
			return res, err
		}
	} else if err := producer.Flush(ctx); err != nil {
		return res, err
	}
	if p := prodErr.Load(); p != nil {
		return res, fmt.Errorf("producing to %s: %w", dst, *p)
	}
	res.Out = out.Load()
	res.ElapsedNS = int64(time.Since(start))
	return res, nil
}
