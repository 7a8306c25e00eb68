package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// PlainWriter is the writer of the at-least-once and none delivery
// guarantees: records go out as soon as franz-go batches them (linger,
// batch size and compression come from properties.*). At-least-once
// flushes and checks every record on each checkpoint; none never waits.
type PlainWriter struct {
	sink      *Sink
	cl        *kgo.Client
	p         *producer
	guarantee DeliveryGuarantee
	log       *slog.Logger
	failed    error
}

func newPlainWriter(s *Sink, task connector.TaskInfo) (*PlainWriter, error) {
	enc, err := s.cfg.encoder()
	if err != nil {
		return nil, err
	}
	opts := s.producerOpts(task)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka sink: creating a producer: %w", err)
	}
	log := task.Logger
	if log == nil {
		log = s.cfg.Logger
	}
	return &PlainWriter{sink: s, cl: cl, p: newProducer(enc, s.cfg.Metadata, s.cfg.topicCheck(), s.deliveryTimeout()), guarantee: s.cfg.DeliveryGuarantee, log: log}, nil
}

// Write hands rows to the producer. Under at-least-once a record failure
// seen since the last checkpoint fails the write.
func (w *PlainWriter) Write(ctx context.Context, rows []types.Row) error {
	if w.failed != nil {
		return w.failed
	}
	if w.guarantee == AtLeastOnce {
		if err := w.p.err(); err != nil {
			w.failed = err
			return err
		}
	}
	_, err := w.p.produce(ctx, w, rows)
	if err != nil {
		w.failed = err
	}
	return err
}

func (w *PlainWriter) client(context.Context) (*kgo.Client, error) { return w.cl, nil }

// PreCommit flushes (at-least-once) and fails when any record failed;
// under none it only reports failures in the log. It never returns
// committables.
func (w *PlainWriter) PreCommit(ctx context.Context, checkpointID int64) ([]connector.Committable, error) {
	if w.guarantee == None {
		if o := w.p.outcome(); o.err != nil {
			w.log.Warn("kafka sink (delivery guarantee none): records were lost", "count", o.failed, "first_error", o.err)
			w.p.reset()
		}
		return nil, nil
	}
	if w.failed != nil {
		return nil, w.failed
	}
	if err := w.cl.Flush(ctx); err != nil {
		return nil, fmt.Errorf("kafka sink: flushing for checkpoint %d: %w", checkpointID, err)
	}
	if err := w.p.wait(ctx); err != nil {
		return nil, fmt.Errorf("kafka sink: waiting for the records of checkpoint %d: %w", checkpointID, err)
	}
	if o := w.p.outcome(); o.err != nil {
		w.failed = fmt.Errorf("kafka sink: %d records failed before checkpoint %d: %w", o.failed, checkpointID, o.err)
		return nil, w.failed
	}
	return nil, nil
}

// Close flushes what is buffered, waiting at most 10 s (records that were
// not pre-committed carry no guarantee, but a finished bounded job should
// not drop its tail needlessly), and closes the client.
func (w *PlainWriter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = w.cl.Flush(ctx)
	w.cl.Close()
	w.p.close()
	return nil
}

// Bytes returns the key and value bytes written so far
// (connector.ByteCounter).
func (w *PlainWriter) Bytes() int64 { return w.p.bytes.Load() }

// Unhealthy names the brokers the writer's client cannot reach
// (connector.HealthReporter); "" when there are none.
func (w *PlainWriter) Unhealthy() string { return w.sink.watch.unhealthy() }
