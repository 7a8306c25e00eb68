package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// pipeResult is what a pipe reports.
type pipeResult struct {
	In        int64 `json:"in"`
	Out       int64 `json:"out"`
	BytesIn   int64 `json:"bytes_in"`
	ElapsedNS int64 `json:"elapsed_ns"` // first fetch to last ack
	Commits   int64 `json:"commits"`    // transactions (baseline) or checkpoints (streamsql) completed
	// PeakRSSKB is the child's own peak resident set (VmHWM of
	// /proc/self/status, read as it ends).
	PeakRSSKB int64 `json:"peak_rss_kb"`
	// CheckpointP99NS is the p99 of the checkpoint durations (streamsql).
	CheckpointP99NS int64 `json:"checkpoint_p99_ns,omitempty"`
	// Phases are the times of streamsql's start-up steps (startup.go).
	Phases *startPhases `json:"start_phases,omitempty"`
}

// runBaseline is the hand-written franz-go pipe: consume every partition of
// src directly, decode JSON, filter, project 5 columns, encode JSON and
// produce to dst. It reads until it has consumed `expect` records (or, with
// expect 0, until the end offsets that src had at start). With txn it writes
// in transactions committed every second; otherwise at least once.
//
// ready is called once both clients have reached the broker.
func runBaseline(ctx context.Context, bootstrap, src, dst string, expect int64, txn bool, set ClientSettings, ready func()) (pipeResult, error) {
	var res pipeResult
	consumer, producer, expect, err := openPipe(ctx, "baseline", bootstrap, src, dst, expect, txn, set)
	if err != nil {
		return res, err
	}
	defer consumer.Close()
	defer producer.Close()
	ready()

	var (
		out     atomic.Int64
		errMu   sync.Mutex
		prodErr error
	)
	onAck := func(_ *kgo.Record, err error) {
		if err != nil {
			errMu.Lock()
			if prodErr == nil {
				prodErr = err
			}
			errMu.Unlock()
			return
		}
		out.Add(1)
	}
	if txn {
		if err := producer.BeginTransaction(); err != nil {
			return res, err
		}
	}
	commit := func() error {
		if err := producer.Flush(ctx); err != nil {
			return err
		}
		if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
			return err
		}
		res.Commits++
		return producer.BeginTransaction()
	}
	lastCommit := time.Now()
	var start time.Time
	var in sourceRecord
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
			in = sourceRecord{}
			if err := json.Unmarshal(r.Value, &in); err != nil {
				return res, fmt.Errorf("decoding %s/%d@%d: %w", r.Topic, r.Partition, r.Offset, err)
			}
			if !in.passes() {
				continue
			}
			b, err := json.Marshal(sinkRecord{ID: in.ID, User: in.User, Amount: in.Amount, Country: in.Country, TS: in.TS})
			if err != nil {
				return res, err
			}
			producer.Produce(ctx, &kgo.Record{Key: r.Key, Value: b}, onAck)
		}
		if txn && time.Since(lastCommit) >= time.Second {
			if err := commit(); err != nil {
				return res, err
			}
			lastCommit = time.Now()
		}
	}
	if txn {
		if err := producer.Flush(ctx); err != nil {
			return res, err
		}
		if err := producer.EndTransaction(ctx, kgo.TryCommit); err != nil {
			return res, err
		}
		res.Commits++
	} else if err := producer.Flush(ctx); err != nil {
		return res, err
	}
	errMu.Lock()
	defer errMu.Unlock()
	if prodErr != nil {
		return res, fmt.Errorf("producing to %s: %w", dst, prodErr)
	}
	res.Out = out.Load()
	res.ElapsedNS = int64(time.Since(start))
	return res, nil
}

// openPipe opens the two clients of a hand-written pipe (the encoding/json
// baseline and the reference pipes): a consumer of every partition of src
// from the start (read_committed with txn) and a producer to dst
// (transactional with txn, its id named after kind), both with set's
// settings and both having reached the broker. With expect 0 it returns
// the sum of src's end offsets as the number of records to read.
func openPipe(ctx context.Context, kind, bootstrap, src, dst string, expect int64, txn bool, set ClientSettings) (consumer, producer *kgo.Client, _ int64, err error) {
	copts := append([]kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(src),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, set.consumerOpts()...)
	if txn {
		copts = append(copts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	popts := append([]kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(dst)}, set.producerOpts()...)
	if txn {
		popts = append(popts, kgo.TransactionalID(fmt.Sprintf("bench-%s-%d", kind, time.Now().UnixNano())),
			kgo.TransactionTimeout(time.Minute))
	}
	if consumer, err = kgo.NewClient(copts...); err != nil {
		return nil, nil, 0, err
	}
	if producer, err = kgo.NewClient(popts...); err != nil {
		consumer.Close()
		return nil, nil, 0, err
	}
	fail := func(err error) (*kgo.Client, *kgo.Client, int64, error) {
		consumer.Close()
		producer.Close()
		return nil, nil, 0, err
	}
	if err := producer.Ping(ctx); err != nil {
		return fail(err)
	}
	if err := consumer.Ping(ctx); err != nil {
		return fail(err)
	}
	if expect == 0 {
		ends, err := kadm.NewClient(consumer).ListEndOffsets(ctx, src)
		if err != nil {
			return fail(err)
		}
		ends.Each(func(o kadm.ListedOffset) { expect += o.Offset })
	}
	return consumer, producer, expect, nil
}
