package kafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/internal/badrecord"
	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
	"github.com/streamsql/streamsql/option"
)

// Records too large for the brokers: 'sink.bad-record.policy'. A record
// whose encoded size exceeds what its topic accepts (the topic's
// max.message.bytes, and the producer's largest batch) would fail at the
// broker with MESSAGE_TOO_LARGE, fail the job, and fail every restart the
// same way. The sink measures each record before it hands it to the
// client and applies the policy: fail (naming the size, the limit and the
// way out), skip (counted and logged), or write the record to a
// dead-letter topic with headers saying why, in the same transaction as
// the sink's output under exactly-once.

// The values of 'sink.bad-record.policy'.
const (
	sinkBadFail       = "fail"
	sinkBadSkip       = "skip"
	sinkBadDeadLetter = "dead-letter"
)

var (
	optSinkBadRecordPolicy = option.Enum("sink.bad-record.policy", sinkBadFail, sinkBadSkip, sinkBadDeadLetter).Default(sinkBadFail).
				Description("What the sink does with a record too large for its topic (larger than the topic's max.message.bytes, read when the sink starts, or than the producer's batch limit), which the brokers would refuse with MESSAGE_TOO_LARGE: fail the job, naming the record's size, the limit and the topic (the default; a restart meets the same record again, so restart-strategy.max-failures-per-record ends the job); skip it, logged with its size at most once per 10 s; or dead-letter it: write it unchanged to 'sink.bad-record.dead-letter.topic' with streamsql.dead-letter.* headers saying why (in the sink's transaction under exactly-once), which must accept its size.")
	optSinkDeadLetterTopic = option.String("sink.bad-record.dead-letter.topic").
				Description("Topic the records 'sink.bad-record.policy' = 'dead-letter' sets aside go to, on the sink's cluster. Required with that policy, refused without it.")
)

// Rules of the sink's bad-record policy, shared by both connectors.
var (
	ruleSinkDeadLetterTopic = option.RequiredWhen(optSinkDeadLetterTopic, optSinkBadRecordPolicy, []string{sinkBadDeadLetter},
		"'sink.bad-record.dead-letter.topic' is required when 'sink.bad-record.policy' is 'dead-letter': it names the topic the records go to")
	ruleSinkDeadLetterOnly = option.Check("'sink.bad-record.dead-letter.topic' is only used by 'sink.bad-record.policy' = 'dead-letter'", func(c *option.Config) error {
		if c.Has(optSinkDeadLetterTopic) && optSinkBadRecordPolicy.Get(c) != sinkBadDeadLetter {
			return fmt.Errorf("'sink.bad-record.policy' is '%s': set it to 'dead-letter', or remove 'sink.bad-record.dead-letter.topic'", optSinkBadRecordPolicy.Get(c))
		}
		return nil
	}, optSinkDeadLetterTopic, optSinkBadRecordPolicy)
)

// defaultBatchMaxBytes is franz-go's default largest record batch, which
// is Kafka's default max.message.bytes (1000012).
const defaultBatchMaxBytes = 1000012

// sizeLimits are the largest record batch each topic of a sink accepts,
// read once per sink (shared by its writers).
type sizeLimits struct {
	once     sync.Once
	batchMax int            // the producer's largest batch
	topics   map[string]int // max.message.bytes of the topics it could read
}

// load reads max.message.bytes of the sink's topics (those named in its
// options; a record's own topic from the 'topic' metadata column is
// checked against the producer's batch limit only). A failure to read
// them is logged: the brokers still refuse such records, and the error
// then names the record.
func (s *sink) loadSizeLimits(ctx context.Context) *sizeLimits {
	l := &s.limits
	l.once.Do(func() {
		l.batchMax = defaultBatchMaxBytes
		if v, ok := s.cfg.Properties["batch.size"]; ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				l.batchMax = n
			}
		}
		topics := append([]string{}, s.cfg.AllowedTopics...)
		if s.cfg.Topic != "" {
			topics = append(topics, s.cfg.Topic)
		}
		if s.cfg.DeadLetterTopic != "" {
			topics = append(topics, s.cfg.DeadLetterTopic)
		}
		if len(topics) == 0 || compressor(s.cfg.Properties["compression.type"]) == nil && !strings.EqualFold(s.cfg.Properties["compression.type"], "none") {
			return // lz4: the compressed size is not measured here, the brokers judge it
		}
		cl, err := s.newClient()
		if err == nil {
			defer cl.Close()
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			var rcs kadm.ResourceConfigs
			if rcs, err = kadm.NewClient(cl).DescribeTopicConfigs(ctx, topics...); err == nil {
				l.topics = map[string]int{}
				for _, rc := range rcs {
					for _, c := range rc.Configs {
						if c.Key == "max.message.bytes" && c.Value != nil {
							if n, perr := strconv.Atoi(*c.Value); perr == nil && n > 0 {
								l.topics[rc.Name] = n
							}
						}
					}
				}
			}
		}
		if err != nil {
			s.cfg.Logger.Warn("kafka sink: cannot read the topics' max.message.bytes; records too large for them fail at the broker",
				"table", s.cfg.Table, "error", err)
		}
	})
	return l
}

// limit returns the largest record batch topic accepts.
func (l *sizeLimits) limit(topic string) int {
	if n, ok := l.topics[topic]; ok && n < l.batchMax {
		return n
	}
	return l.batchMax
}

// oversize applies 'sink.bad-record.policy' to the records of one writer
// (produce.Oversize).
type oversize struct {
	s       *sink
	limits  *sizeLimits
	log     *slog.Logger
	limit   badrecord.Log
	skipped *atomic.Int64
}

// newOversize returns the size check of a writer, loading the sink's
// limits at its first use.
func (s *sink) newOversize(ctx context.Context, log *slog.Logger) *oversize {
	if log == nil {
		log = s.cfg.Logger
	}
	return &oversize{s: s, limits: s.loadSizeLimits(ctx), log: log, skipped: &s.oversized}
}

// Limit implements produce.Oversize. A record without a topic of its own
// goes to the sink's topic.
func (o *oversize) Limit(topic string) int {
	if topic == "" {
		topic = o.s.cfg.Topic
	}
	return o.limits.limit(topic)
}

// TooLarge implements produce.Oversize: r (of size bytes, above limit) is
// failed, skipped, or rewritten into a dead letter for the dead-letter
// topic.
func (o *oversize) TooLarge(r *kgo.Record, size, limit int) (produce.OversizeAction, error) {
	cfg := o.s.cfg
	topic := r.Topic
	if topic == "" {
		topic = cfg.Topic
	}
	what := fmt.Sprintf("a record of %d bytes for topic '%s', whose limit is %d bytes", size, topic, limit)
	switch {
	case r.Topic == cfg.DeadLetterTopic && cfg.DeadLetterTopic != "":
		// A dead letter too large for its own topic.
		return produce.OversizeFail, &connector.BadRecordError{Record: fmt.Sprintf("sink '%s' dead letter of %d bytes", cfg.Table, size),
			Policy: "raise max.message.bytes of the dead-letter topic, or use 'sink.bad-record.policy' = 'skip'",
			Err:    fmt.Errorf("kafka sink (table '%s'): cannot set aside %s: it is too large for the dead-letter topic too", cfg.Table, what)}
	case cfg.BadRecordPolicy == sinkBadSkip:
		o.skipped.Add(1)
		if ok, unshown := o.limit.Allow(time.Now()); ok {
			o.log.Warn(fmt.Sprintf("kafka sink: skipped %s (table '%s', 'sink.bad-record.policy' = 'skip')", what, cfg.Table),
				"not_logged_since_last_message", unshown)
		}
		return produce.OversizeSkip, nil
	case cfg.BadRecordPolicy == sinkBadDeadLetter:
		o.skipped.Add(1)
		if ok, unshown := o.limit.Allow(time.Now()); ok {
			o.log.Warn(fmt.Sprintf("kafka sink: set aside %s as a dead letter in topic '%s' (table '%s', 'sink.bad-record.policy' = 'dead-letter')",
				what, cfg.DeadLetterTopic, cfg.Table), "not_logged_since_last_message", unshown)
		}
		text := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
		r.Headers = append(r.Headers,
			text(HeaderDeadLetterTopic, topic),
			text(HeaderDeadLetterTable, cfg.Table),
			text(HeaderDeadLetterReason, reasonTooLarge),
			text(HeaderDeadLetterError, truncateUTF8(what, MaxDeadLetterErrorBytes)))
		r.Topic, r.Partition = cfg.DeadLetterTopic, 0
		return produce.OversizeProduce, nil
	}
	return produce.OversizeFail, &connector.BadRecordError{Record: fmt.Sprintf("sink '%s' record of %d bytes for topic '%s'", cfg.Table, size, topic),
		Policy: fmt.Sprintf("table '%s' has 'sink.bad-record.policy' = 'fail' (the default): such a record fails the job, and every restart meets it again. "+
			"Raise the topic's max.message.bytes, or set 'sink.bad-record.policy' to 'skip' (logs and drops such records) or "+
			"'dead-letter' (with 'sink.bad-record.dead-letter.topic': writes them unchanged to that topic)", cfg.Table),
		Err: fmt.Errorf("kafka sink (table '%s'): %s: the brokers would refuse it (MESSAGE_TOO_LARGE)", cfg.Table, what)}
}

// reasonTooLarge is the dead-letter reason of a record too large for its
// topic.
const reasonTooLarge = "too-large"

// errOversizeDeadLetter is returned when a dead-letter policy has no topic
// (the factory refuses that; a sink built by hand may not).
var errOversizeDeadLetter = errors.New("kafka sink: 'sink.bad-record.policy' = 'dead-letter' needs 'sink.bad-record.dead-letter.topic'")

// compressor returns the codec of 'properties.compression.type' (franz-go
// compresses with snappy when it is not set) for measuring a record that
// is too large uncompressed; nil for none, and for lz4, whose records are
// left to the brokers to measure.
func compressor(codec string) produce.Compressor {
	switch strings.ToLower(codec) {
	case "", "snappy":
		return func(dst, src []byte) []byte { return s2.EncodeSnappy(dst[:cap(dst)], src) }
	case "gzip":
		return func(dst, src []byte) []byte {
			b := bytes.NewBuffer(dst)
			w := gzip.NewWriter(b)
			_, _ = w.Write(src)
			_ = w.Close()
			return b.Bytes()
		}
	case "zstd":
		return func(dst, src []byte) []byte {
			enc, err := zstd.NewWriter(nil)
			if err != nil {
				return append(dst, src...)
			}
			defer enc.Close()
			return enc.EncodeAll(src, dst)
		}
	}
	return nil
}
