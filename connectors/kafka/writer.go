package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
	"github.com/streamsql/streamsql/types"
)

// plainWriter is the writer of the at-least-once and none delivery
// guarantees: records go out as soon as franz-go batches them (linger,
// batch size and compression come from properties.*). At-least-once
// flushes and checks every record on each checkpoint; none never waits.
type plainWriter struct {
	sink      *sink
	cl        *kgo.Client
	warm      *produce.Warming[*kgo.Client] // loads the producer id and connects before the first record
	p         *produce.Producer
	guarantee deliveryGuarantee
	log       *slog.Logger
	failed    error
}

// The connector capabilities plainWriter means to have (checked by the compiler).
var (
	_ connector.Writer         = (*plainWriter)(nil)
	_ connector.ByteCounter    = (*plainWriter)(nil)
	_ connector.HealthReporter = (*plainWriter)(nil)
)

// newPlainWriter returns the writer of task; ctx is the context of its
// Open, in which its warm-up and its records' life are rooted.
func newPlainWriter(ctx context.Context, s *sink, task connector.TaskInfo) (*plainWriter, error) {
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
	warm := produce.Warm(ctx, func(context.Context) (*kgo.Client, error) { return cl, nil })
	return &plainWriter{sink: s, cl: cl, warm: warm, p: s.newProducer(ctx, enc, log), guarantee: s.cfg.DeliveryGuarantee, log: log}, nil
}

// Write hands rows to the producer. Under at-least-once a record failure
// seen since the last checkpoint fails the write.
func (w *plainWriter) Write(ctx context.Context, rows []types.Row) error {
	if w.failed != nil {
		return w.failed
	}
	if w.guarantee == atLeastOnce {
		if err := w.p.Err(); err != nil {
			w.failed = err
			return err
		}
	}
	_, err := w.p.Produce(ctx, w, rows)
	if err != nil {
		w.failed = err
	}
	return err
}

// ForgetsRows reports that the writer keeps no row past Write
// (connector.RowForgetter): Produce encodes each row into its record at
// once. An upsert buffer in front of it (sink.buffer-flush.*) keeps rows,
// and does not claim it.
func (*plainWriter) ForgetsRows() bool { return true }

// ProduceClient returns the writer's client (produce.ClientSource).
func (w *plainWriter) ProduceClient(context.Context) (produce.Client, error) { return w.cl, nil }

// PreCommit flushes (at-least-once) and fails when any record failed;
// under none it only reports failures in the log. It never returns
// committables.
func (w *plainWriter) PreCommit(ctx context.Context, checkpointID int64) ([]connector.Committable, error) {
	if w.guarantee == none {
		if o := w.p.Outcome(); o.Err != nil {
			w.log.Warn("kafka sink (delivery guarantee none): records were lost", "count", o.Failed, "first_error", o.Err)
			w.p.Reset()
		}
		return nil, nil
	}
	if w.failed != nil {
		return nil, w.failed
	}
	if err := w.cl.Flush(ctx); err != nil {
		return nil, fmt.Errorf("kafka sink: flushing for checkpoint %d: %w", checkpointID, err)
	}
	if err := w.p.Wait(ctx); err != nil {
		return nil, fmt.Errorf("kafka sink: waiting for the records of checkpoint %d: %w", checkpointID, err)
	}
	if o := w.p.Outcome(); o.Err != nil {
		w.failed = fmt.Errorf("kafka sink: %d records failed before checkpoint %d: %w", o.Failed, checkpointID, o.Err)
		return nil, w.failed
	}
	return nil, nil
}

// Close flushes what is buffered, waiting at most 10 s (records that were
// not pre-committed carry no guarantee, but a finished bounded job should
// not drop its tail needlessly), and closes the client.
func (w *plainWriter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w.warm.Stop()
	_ = w.cl.Flush(ctx)
	w.cl.Close()
	w.p.Close()
	return nil
}

// Bytes returns the key and value bytes written so far
// (connector.ByteCounter).
func (w *plainWriter) Bytes() int64 { return w.p.Bytes() }

// Delivered returns the records the brokers acknowledged
// (connector.DeliveryCounter).
func (w *plainWriter) Delivered() int64 { return w.p.Delivered() }

// DeliveryTimeout returns properties.delivery.timeout.ms
// (connector.DeliveryTimeouter).
func (w *plainWriter) DeliveryTimeout() time.Duration { return w.p.DeliveryTimeout() }

// Unhealthy names the brokers the writer's client cannot reach
// (connector.HealthReporter); "" when there are none.
func (w *plainWriter) Unhealthy() string { return w.sink.watch.unhealthy() }

// newProducer returns the record path of one writer: enc, then the
// writable metadata columns, then the check of a record's own topic, then
// its size against the topic's limit ('sink.bad-record.policy').
func (s *sink) newProducer(ctx context.Context, enc recordEncoder, log *slog.Logger) *produce.Producer {
	var meta func(*types.Row, *kgo.Record)
	if md := s.cfg.Metadata; len(md) > 0 {
		meta = func(row *types.Row, r *kgo.Record) { writeMetadata(row, r, md) }
	}
	p := produce.New(ctx, enc, meta, s.cfg.topicCheck(), s.deliveryTimeout())
	p.SetOversize(s.newOversize(ctx, log), compressor(s.cfg.Properties["compression.type"]))
	return p
}

// writeMetadata copies the writable metadata columns of row into r,
// reusing r's header slice. Header values alias the row's immutable
// string data: no copy.
func writeMetadata(row *types.Row, r *kgo.Record, meta []metadataColumn) {
	for _, m := range meta {
		v := row.Fields[m.Index]
		if v.IsNull() {
			continue
		}
		switch m.Key {
		case metaTopic:
			r.Topic = v.Str()
		case metaTimestamp:
			r.Timestamp = v.Timestamp().Time()
		case metaHeaders:
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
