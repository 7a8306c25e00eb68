// Package nexmarkload fills a Kafka topic with Nexmark events as JSON, one
// record per event in the shape of the public ddl_kafka.sql table (what
// Flink's json format writes for it, see nexmark.AppendJSON), so that the
// Kafka variant of the Nexmark queries reads the very events the nexmark
// connector generates for the same options. `streamsql nexmark load` is
// its command line; the benchmark program calls Load.
//
// Each generator (nexmark.Config.Generators) is encoded by a goroutine of
// its own and the records are produced with franz-go in large batches
// (sticky partitioning per megabyte, no compression, acks from all
// in-sync replicas), so that loading is not what a benchmark waits on.
package nexmarkload

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connectors/nexmark"
)

// Options configure Load.
type Options struct {
	// Brokers are the bootstrap servers. Required unless Client is set.
	Brokers []string
	// Client, when set, is used instead of one Load makes from Brokers
	// (for TLS or SASL); Load does not close it.
	Client *kgo.Client
	// Topic is the topic to fill. Required.
	Topic string
	// Partitions, when above 0, creates the topic with that many
	// partitions (replication factor 1) if it does not exist.
	Partitions int32
	// Config is the generator configuration (nexmark.ConfigFromOptions);
	// it must be bounded: events.num or stop-at set.
	Config nexmark.Config
	// Progress, when set, is called about once a second with the events
	// produced so far.
	Progress func(events int64)
}

// Result says what Load wrote.
type Result struct {
	Events  int64
	Bytes   int64
	Elapsed time.Duration
}

// ErrUnbounded is returned by Load for a configuration without events.num
// and stop-at.
var ErrUnbounded = errors.New("nexmarkload: the events are unbounded: set events.num (or stop-at)")

// chunkSize is the size of the buffers record values are cut from.
const chunkSize = 1 << 20

// Load generates o.Config's events and produces them to o.Topic, and
// returns once every record is acknowledged (or at the first error).
func Load(ctx context.Context, o Options) (Result, error) {
	start := time.Now()
	if o.Topic == "" {
		return Result{}, errors.New("nexmarkload: no topic")
	}
	if o.Config.NumEvents == 0 && o.Config.StopAtEvent < 0 {
		return Result{}, ErrUnbounded
	}
	m, err := nexmark.NewModel(o.Config)
	if err != nil {
		return Result{}, err
	}
	cl := o.Client
	if cl == nil {
		if len(o.Brokers) == 0 {
			return Result{}, errors.New("nexmarkload: no brokers")
		}
		cl, err = kgo.NewClient(
			kgo.SeedBrokers(o.Brokers...),
			kgo.DefaultProduceTopic(o.Topic),
			kgo.ProducerBatchCompression(kgo.NoCompression()),
			kgo.ProducerBatchMaxBytes(1<<20),
			kgo.MaxBufferedBytes(64<<20),
			kgo.ProducerLinger(5*time.Millisecond),
			kgo.RecordPartitioner(kgo.UniformBytesPartitioner(1<<20, false, false, nil)),
		)
		if err != nil {
			return Result{}, fmt.Errorf("nexmarkload: %w", err)
		}
		defer cl.Close()
	}
	if o.Partitions > 0 {
		if err := createTopic(ctx, cl, o.Topic, o.Partitions); err != nil {
			return Result{}, err
		}
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var events, bytes atomic.Int64
	var produced sync.WaitGroup
	fail := func(err error) { cancel(err) }
	onAck := func(r *kgo.Record, err error) {
		if err != nil {
			fail(fmt.Errorf("nexmarkload: produce to topic %s: %w", o.Topic, err))
		}
		produced.Done()
	}
	var gens sync.WaitGroup
	for i := range o.Config.Generators {
		gens.Add(1)
		go func() {
			defer gens.Done()
			g := m.NewGenerator(i)
			var ev nexmark.Event
			var chunk []byte
			for g.HasNext() {
				if ctx.Err() != nil {
					return
				}
				if cap(chunk)-len(chunk) < 64<<10 {
					chunk = make([]byte, 0, chunkSize)
				}
				g.Next(&ev)
				n := len(chunk)
				chunk = nexmark.AppendJSON(chunk, &ev)
				// The record keeps its slice of the chunk; later records
				// append after it, never over it.
				value := chunk[n:len(chunk):len(chunk)]
				produced.Add(1)
				cl.Produce(ctx, &kgo.Record{Topic: o.Topic, Value: value}, onAck)
				events.Add(1)
				bytes.Add(int64(len(value)))
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		gens.Wait()
		produced.Wait()
		close(done)
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			res := Result{Events: events.Load(), Bytes: bytes.Load(), Elapsed: time.Since(start)}
			if err := context.Cause(ctx); err != nil {
				return res, err
			}
			return res, nil
		case <-tick.C:
			if o.Progress != nil {
				o.Progress(events.Load())
			}
		}
	}
}

// createTopic creates topic with n partitions unless it exists.
func createTopic(ctx context.Context, cl *kgo.Client, topic string, n int32) error {
	adm := kadm.NewClient(cl)
	resp, err := adm.CreateTopic(ctx, n, 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("nexmarkload: create topic %s: %w", topic, err)
	}
	return nil
}
