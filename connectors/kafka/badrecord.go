package kafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/internal/badrecord"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// badRecordPolicy is 'scan.bad-record.policy' (badrecord.Policy): what a
// source does with a record it cannot decode, and with a record whose row
// the pipeline rejects because of its data (a NULL for a NOT NULL sink
// column, connector.ErrBadRow and connector.ErrDropRow).
type badRecordPolicy = badrecord.Policy

// Bad-record policies.
const (
	// failOnBadRecord fails the job, naming the record's topic, partition
	// and offset and the format's reason (the default, as Flink).
	failOnBadRecord = badrecord.Fail
	// skipBadRecords skips the record, counts it
	// (connector.BadRecordCounter) and logs it at a bounded rate.
	skipBadRecords = badrecord.Skip
	// deadLetterBadRecords sets the record aside as a dead letter: its
	// key, value, headers and timestamp, unchanged, with headers saying
	// where it came from and why, written by the source's dead-letter
	// sink (Source.DeadLetterSink) to SourceConfig.DeadLetterTopic.
	deadLetterBadRecords = badrecord.DeadLetter
)

// parseBadRecordPolicy parses fail, skip or dead-letter.
func parseBadRecordPolicy(s string) (badRecordPolicy, error) {
	return badrecord.Parse(s, failOnBadRecord, skipBadRecords, deadLetterBadRecords)
}

// The headers a dead letter carries after the original record's own
// headers. Their values are UTF-8 text.
const (
	// HeaderDeadLetterTopic, HeaderDeadLetterPartition and
	// HeaderDeadLetterOffset give the record's position (partition and
	// offset in decimal).
	HeaderDeadLetterTopic     = "streamsql.dead-letter.topic"
	HeaderDeadLetterPartition = "streamsql.dead-letter.partition"
	HeaderDeadLetterOffset    = "streamsql.dead-letter.offset"
	// HeaderDeadLetterTable is the source table's name in the catalog.
	HeaderDeadLetterTable = "streamsql.dead-letter.table"
	// HeaderDeadLetterSource is the source's id in the job:
	// "<pipeline>/<table>" (one table read by two INSERTs is two sources,
	// each setting its bad records aside).
	HeaderDeadLetterSource = "streamsql.dead-letter.source"
	// HeaderDeadLetterJob is the job's name.
	HeaderDeadLetterJob = "streamsql.dead-letter.job"
	// HeaderDeadLetterReason is "decode" (the formats could not decode the
	// record) or "rejected" (the pipeline rejected a row of it: a NULL for
	// a NOT NULL sink column).
	HeaderDeadLetterReason = "streamsql.dead-letter.reason"
	// HeaderDeadLetterError is the error, as the job would have failed
	// with it, cut to MaxDeadLetterErrorBytes.
	HeaderDeadLetterError = "streamsql.dead-letter.error"
)

// MaxDeadLetterErrorBytes bounds the error text of a dead letter
// (HeaderDeadLetterError).
const MaxDeadLetterErrorBytes = 1024

// Reasons in HeaderDeadLetterReason.
const (
	reasonDecode   = "decode"
	reasonRejected = "rejected"
)

// badRecordLogInterval bounds how often a reader logs a bad record it
// skipped or set aside (badrecord.Log).
const badRecordLogInterval = badrecord.LogInterval

// A dead letter travels from the reader to the dead-letter sink as a row
// of these fields.
const (
	dlKey       = iota // BYTES; NULL: no key
	dlValue            // BYTES; NULL: no value (a tombstone)
	dlHeaders          // the record's headers in order, duplicates kept; NULL value: header without value
	dlTimestamp        // the record's timestamp
	dlTopic            // STRING
	dlPartition        // INT
	dlOffset           // BIGINT
	dlTable            // STRING
	dlJob              // STRING
	dlReason           // STRING
	dlError            // STRING
	dlWidth
)

// badRecords applies a reader's bad-record policy. Only the reader's
// goroutine calls its methods, except the counters (BadRecords).
type badRecords struct {
	policy badRecordPolicy
	table  string
	job    string
	log    *slog.Logger
	limit  badrecord.Log // how often to log

	skipped, deadLettered atomic.Int64

	dead     []types.Row // dead letters not yet taken (DeadLetters)
	lastDead *kgo.Record // the record of the last dead letter of a rejected row
}

// decodeFailed handles a record the formats could not decode: the error
// that fails the job under failOnBadRecord, else nil. Only a
// *factory.DecodeError says the record's bytes are bad: any other failure
// (a schema registry that cannot be reached) fails the job under every
// policy, so that an outage does not turn good records into bad ones.
func (b *badRecords) decodeFailed(rec *kgo.Record, err error) error {
	bad := errors.As(err, new(*factory.DecodeError))
	err = fmt.Errorf("kafka source: decoding the record at topic %s partition %d offset %d: %w",
		rec.Topic, rec.Partition, rec.Offset, err)
	if !bad {
		return err
	}
	if b.policy == failOnBadRecord {
		return &connector.BadRecordError{Record: fmt.Sprintf("topic %s partition %d offset %d", rec.Topic, rec.Partition, rec.Offset),
			Policy: fmt.Sprintf("table '%s' has 'scan.bad-record.policy' = 'fail' (the default): a record that does not decode fails "+
				"the job, and every restart meets it again. 'skip' counts and logs such records and goes on; 'dead-letter' "+
				"(with 'scan.bad-record.dead-letter.topic') writes them unchanged to that topic and goes on", b.table),
			Err: err}
	}
	b.handle(rec, reasonDecode, err)
	return nil
}

// rejected handles a record whose row the pipeline rejected; false under
// failOnBadRecord (the runtime goes on as without a policy).
func (b *badRecords) rejected(rec *kgo.Record, err error) bool {
	if b.policy == failOnBadRecord || rec == nil {
		return false
	}
	if b.policy == deadLetterBadRecords && rec == b.lastDead {
		return true // another row of a record already set aside (an UPDATE's -U and +U)
	}
	err = fmt.Errorf("%w (row from topic %s partition %d offset %d)", err, rec.Topic, rec.Partition, rec.Offset)
	b.handle(rec, reasonRejected, err)
	if b.policy == deadLetterBadRecords {
		b.lastDead = rec
	}
	return true
}

func (b *badRecords) handle(rec *kgo.Record, reason string, err error) {
	what := "skipped a record"
	if b.policy == deadLetterBadRecords {
		what = "set a record aside as a dead letter"
		b.dead = append(b.dead, deadLetterRow(rec, b.table, b.job, reason, err))
		b.deadLettered.Add(1)
	} else {
		b.skipped.Add(1)
	}
	ok, unshown := b.limit.Allow(time.Now())
	if !ok {
		return
	}
	b.log.Warn(fmt.Sprintf("kafka source: %s (table '%s', 'scan.bad-record.policy' = '%s')", what, b.table, b.policy),
		"topic", rec.Topic, "partition", rec.Partition, "offset", rec.Offset, "reason", reason, "error", err.Error(),
		"not_logged_since_last_message", unshown)
}

// take returns the dead letters not yet taken and forgets them.
func (b *badRecords) take() []types.Row {
	out := b.dead
	b.dead = nil
	return out
}

// deadLetterRow copies what a dead letter keeps of rec.
func deadLetterRow(rec *kgo.Record, table, job, reason string, err error) types.Row {
	f := make([]types.Value, dlWidth)
	f[dlKey] = bytesOrNull(rec.Key)
	f[dlValue] = bytesOrNull(rec.Value)
	md := &types.MapData{Keys: make([]types.Value, len(rec.Headers)), Values: make([]types.Value, len(rec.Headers))}
	for i, h := range rec.Headers {
		md.Keys[i] = types.Str(h.Key)
		md.Values[i] = bytesOrNull(h.Value)
	}
	f[dlHeaders] = types.MapValue(md)
	f[dlTimestamp] = types.TimestampValue(types.TimestampFromTime(rec.Timestamp))
	f[dlTopic] = types.Str(rec.Topic)
	f[dlPartition] = types.Int64(int64(rec.Partition))
	f[dlOffset] = types.Int64(rec.Offset)
	f[dlTable] = types.Str(table)
	f[dlJob] = types.Str(job)
	f[dlReason] = types.Str(reason)
	f[dlError] = types.Str(truncateUTF8(err.Error(), MaxDeadLetterErrorBytes))
	return types.Row{Kind: types.Insert, Fields: f}
}

// bytesOrNull copies b; nil is NULL (Kafka's null key, value or header
// value, which is not the same bytes on the wire as an empty one).
func bytesOrNull(b []byte) types.Value {
	if b == nil {
		return types.Value{}
	}
	return types.BytesValue(bytes.Clone(b))
}

// nullOrBytes is bytesOrNull's inverse.
func nullOrBytes(v types.Value) []byte {
	if v.IsNull() {
		return nil
	}
	if b := v.Bytes(); b != nil {
		return b
	}
	return []byte{}
}

// truncateUTF8 cuts s to at most n bytes at a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// deadLetterEncoder turns dead-letter rows into records: the original key,
// value, headers and timestamp, then the dead-letter headers. source is
// the source's id in the job (HeaderDeadLetterSource).
func deadLetterEncoder(source string) recordEncoder {
	return encoderFunc(func(row *types.Row, rec *kgo.Record) error {
		f := row.Fields
		if len(f) != dlWidth {
			return fmt.Errorf("a dead letter has %d fields, want %d", len(f), dlWidth)
		}
		rec.Key = nullOrBytes(f[dlKey])
		rec.Value = nullOrBytes(f[dlValue])
		hs := rec.Headers[:0]
		if md := f[dlHeaders].Map(); md != nil {
			for i, k := range md.Keys {
				hs = append(hs, kgo.RecordHeader{Key: k.Str(), Value: nullOrBytes(md.Values[i])})
			}
		}
		text := func(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }
		hs = append(hs,
			text(HeaderDeadLetterTopic, f[dlTopic].Str()),
			text(HeaderDeadLetterPartition, strconv.FormatInt(f[dlPartition].Int64(), 10)),
			text(HeaderDeadLetterOffset, strconv.FormatInt(f[dlOffset].Int64(), 10)),
			text(HeaderDeadLetterTable, f[dlTable].Str()),
			text(HeaderDeadLetterSource, source),
			text(HeaderDeadLetterJob, f[dlJob].Str()),
			text(HeaderDeadLetterReason, f[dlReason].Str()),
			text(HeaderDeadLetterError, f[dlError].Str()))
		rec.Headers = hs
		rec.Timestamp = f[dlTimestamp].Timestamp().Time()
		return nil
	})
}

// DeadLetterSink implements connector.DeadLetterSource: the sink that
// writes the source's dead letters to 'scan.bad-record.dead-letter.topic'
// with the source's connection properties, or nil when the policy is not
// dead-letter. Asked for exactly-once, it is an exactly-once Kafka sink
// whose transactional ids derive from the job name and dc.Name
// ("<job>-<pipeline>-<table>-dead-letter"), so that its transactions are
// committed by the same checkpoints as the pipeline's output and recovered
// with them; otherwise an at-least-once sink flushed at every checkpoint.
func (s *source) DeadLetterSink(dc connector.DeadLetterConfig) (connector.Sink, error) {
	if s.cfg.BadRecordPolicy != deadLetterBadRecords {
		return nil, nil
	}
	if s.cfg.DeadLetterTopic == "" {
		return nil, errors.New("kafka source: 'scan.bad-record.policy' = 'dead-letter' needs 'scan.bad-record.dead-letter.topic'")
	}
	cfg := sinkConfig{
		Topic:      s.cfg.DeadLetterTopic,
		Properties: s.cfg.Properties,
		Encoder:    deadLetterEncoder(dc.Name),
		Table:      deadLetterTable(dc.Name),
		Logger:     s.cfg.Logger,
	}
	if dc.ExactlyOnce {
		cfg.DeliveryGuarantee = exactlyOnce
		if dc.Job != "" {
			cfg.TransactionalIDPrefix = defaultTransactionalIDPrefix(dc.Job, cfg.Table)
		} else {
			cfg.DeriveTransactionalIDPrefix = true
		}
	}
	return newSink(cfg)
}

// deadLetterTable is the name from which the transactional-id prefix of
// the exactly-once dead-letter sink of source (its id in the job,
// "<pipeline>/<table>") derives: defaultTransactionalIDPrefix(job,
// deadLetterTable(source)).
func deadLetterTable(source string) string {
	return strings.ReplaceAll(source, "/", "-") + "-dead-letter"
}

// checkDeadLetterTopic fails, at the start of every run, when the source's
// dead-letter topic does not exist: bad records may be rare, and a job
// should not learn of a missing topic only at the first one.
func (s *source) checkDeadLetterTopic(ctx context.Context) error {
	if s.cfg.BadRecordPolicy != deadLetterBadRecords {
		return nil
	}
	cl, err := s.newClient()
	if err != nil {
		return err
	}
	defer cl.Close()
	topic := s.cfg.DeadLetterTopic
	md, err := kadm.NewClient(cl).ListTopics(ctx, topic)
	if err == nil {
		if td, ok := md[topic]; !ok || td.Err != nil {
			err = fmt.Errorf("topic '%s' does not exist: create it, or name another in 'scan.bad-record.dead-letter.topic'", topic)
			if ok && !errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
				err = fmt.Errorf("topic '%s': %w", topic, td.Err)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("kafka source: dead-letter topic of table '%s': %w", s.cfg.Table, err)
	}
	return nil
}
