package main

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// warmUp makes the broker ready for transactions and consumers before the
// first measured run: on a fresh broker (scripts/bench.sh starts one) the
// first transactional producer waits while the broker creates
// __transaction_state, which fell on the first run of the first
// transactional scenario (start→first of 3.8 s). It commits one record to
// a topic of its own and reads it back with read_committed.
func warmUp(ctx context.Context, bootstrap string, topics *benchTopics) error {
	topic, err := topics.make(ctx, "warm", 1)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	p, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic),
		kgo.TransactionalID(fmt.Sprintf("bench-warm-%d", time.Now().UnixNano())))
	if err != nil {
		return err
	}
	defer p.Close()
	if err := p.BeginTransaction(); err != nil {
		return err
	}
	if err := p.ProduceSync(ctx, &kgo.Record{Value: []byte("{}")}).FirstErr(); err != nil {
		return fmt.Errorf("warming up: %w", err)
	}
	if err := p.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("warming up: %w", err)
	}
	c, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		fs := c.PollRecords(ctx, 1)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("warming up: reading back the committed record: %w", err)
		}
		if fs.NumRecords() > 0 {
			return nil
		}
	}
}
