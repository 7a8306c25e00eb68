package kafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/internal/badrecord"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// TestBadRecordOptions: the policy's options are refused, naming the table
// and the options, where they contradict each other or Flink's
// '<format>.ignore-parse-errors'; the combinations with a meaning pass.
func TestBadRecordOptions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table factory.Table
		want  []string // substrings of the error; none: accepted
	}{
		{"dead-letter without topic", kafkaTable("scan.bad-record.policy", "dead-letter"),
			[]string{"'scan.bad-record.dead-letter.topic' is required", "cat.db.t"}},
		{"topic without dead-letter", kafkaTable("scan.bad-record.dead-letter.topic", "dlq"),
			[]string{"'scan.bad-record.policy' is 'fail'", "scan.bad-record.dead-letter.topic", "cat.db.t"}},
		{"topic with skip", kafkaTable("scan.bad-record.policy", "skip", "scan.bad-record.dead-letter.topic", "dlq"),
			[]string{"'scan.bad-record.policy' is 'skip'"}},
		{"unknown policy", kafkaTable("scan.bad-record.policy", "ignore"), []string{"scan.bad-record.policy", "fail", "skip", "dead-letter"}},
		{"ignore-parse-errors with dead-letter", kafkaTable("json.ignore-parse-errors", "true", "scan.bad-record.policy", "dead-letter",
			"scan.bad-record.dead-letter.topic", "dlq"), []string{"'json.ignore-parse-errors' = 'true' contradicts 'scan.bad-record.policy' = 'dead-letter'"}},
		{"ignore-parse-errors with fail", kafkaTable("json.ignore-parse-errors", "true", "scan.bad-record.policy", "fail"),
			[]string{"'json.ignore-parse-errors' = 'true' contradicts 'scan.bad-record.policy' = 'fail'"}},
		{"key format ignore-parse-errors with dead-letter", kafkaTable("key.format", "csv", "key.fields", "id", "key.csv.ignore-parse-errors", "true",
			"scan.bad-record.policy", "dead-letter", "scan.bad-record.dead-letter.topic", "dlq"), []string{"'key.csv.ignore-parse-errors'"}},
		{"upsert ignore-parse-errors with dead-letter", upsertTable("value.json.ignore-parse-errors", "true", "scan.bad-record.policy", "dead-letter",
			"scan.bad-record.dead-letter.topic", "dlq"), []string{"'value.json.ignore-parse-errors'"}},
		{"ignore-parse-errors alone", kafkaTable("json.ignore-parse-errors", "true"), nil},
		{"ignore-parse-errors with skip", kafkaTable("json.ignore-parse-errors", "true", "scan.bad-record.policy", "skip"), nil},
		{"ignore-parse-errors false with dead-letter", kafkaTable("json.ignore-parse-errors", "false", "scan.bad-record.policy", "dead-letter",
			"scan.bad-record.dead-letter.topic", "dlq"), nil},
		{"skip", kafkaTable("scan.bad-record.policy", "SKIP"), nil},
		{"dead-letter", upsertTable("scan.bad-record.policy", "dead-letter", "scan.bad-record.dead-letter.topic", "dlq"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := factory.Default.Validate(tc.table)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("validation passed")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q: %v", w, err)
				}
			}
		})
	}
}

// testBadRecords returns a policy applier that logs into buf, with a log
// interval of every.
func testBadRecords(policy badRecordPolicy, buf *bytes.Buffer, every time.Duration) *badRecords {
	return &badRecords{policy: policy, table: "cat.db.t", job: "j", log: slog.New(slog.NewTextHandler(buf, nil)), limit: badrecord.Log{Every: every}}
}

func badRec(offset int64) *kgo.Record {
	return &kgo.Record{Topic: "in", Partition: 2, Offset: offset, Key: []byte("k"), Value: []byte("{bad"),
		Headers: []kgo.RecordHeader{{Key: "a", Value: []byte("1")}, {Key: "a", Value: nil}}, Timestamp: time.UnixMilli(1234)}
}

// TestBadRecordsFail: under fail a decode error is returned with the
// record's topic, partition and offset and the format's reason, and a
// rejected row is left to the runtime.
func TestBadRecordsFail(t *testing.T) {
	var buf bytes.Buffer
	b := testBadRecords(failOnBadRecord, &buf, time.Hour)
	reason := errors.New("value: json: unexpected end")
	err := b.decodeFailed(badRec(7), reason)
	if err == nil || !errors.Is(err, reason) || !strings.Contains(err.Error(), "topic in partition 2 offset 7: value: json: unexpected end") {
		t.Fatalf("decode failure under fail: %v", err)
	}
	if b.rejected(badRec(8), connector.ErrBadRow) {
		t.Error("a rejected row was handled under fail")
	}
	if s, d := b.skipped.Load(), b.deadLettered.Load(); s != 0 || d != 0 || buf.Len() != 0 {
		t.Errorf("counted %d skipped, %d dead letters, logged %q under fail", s, d, buf.String())
	}
}

func decodeErr(msg string) error {
	return fmt.Errorf("value: %w", &factory.DecodeError{Format: "json", Err: errors.New(msg)})
}

// TestBadRecordsNotTheRecordsFault: a decoder failure that is not a
// *factory.DecodeError (a schema registry that cannot be reached) fails
// the job under every policy instead of skipping a good record.
func TestBadRecordsNotTheRecordsFault(t *testing.T) {
	for _, p := range []badRecordPolicy{skipBadRecords, deadLetterBadRecords} {
		var buf bytes.Buffer
		b := testBadRecords(p, &buf, time.Hour)
		err := b.decodeFailed(badRec(1), errors.New("value: avro-confluent: schema registry: connection refused"))
		if err == nil || !strings.Contains(err.Error(), "topic in partition 2 offset 1") {
			t.Errorf("%v: an unreachable registry gave %v, want the job to fail naming the record", p, err)
		}
		if len(b.take()) != 0 || b.skipped.Load() != 0 {
			t.Errorf("%v: the record was handled as bad", p)
		}
	}
}

// TestBadRecordsSkipRateLimited: skip counts every record and logs the
// first at once, then at most one message per interval, which says how
// many it did not log.
func TestBadRecordsSkipRateLimited(t *testing.T) {
	var buf bytes.Buffer
	b := testBadRecords(skipBadRecords, &buf, time.Hour)
	for i := range 100 {
		if err := b.decodeFailed(badRec(int64(i)), decodeErr("bad")); err != nil {
			t.Fatal(err)
		}
	}
	if !b.rejected(badRec(100), connector.ErrBadRow) {
		t.Fatal("a rejected row was not handled under skip")
	}
	if n := b.skipped.Load(); n != 101 {
		t.Errorf("skipped %d, want 101", n)
	}
	if lines := strings.Count(buf.String(), "\n"); lines != 1 || !strings.Contains(buf.String(), "topic=in partition=2 offset=0 ") {
		t.Errorf("log with an hour's interval: %q; want one line naming offset 0", buf.String())
	}
	if len(b.take()) != 0 {
		t.Error("skip set dead letters aside")
	}
	b.limit.Expire()
	buf.Reset()
	_ = b.decodeFailed(badRec(200), decodeErr("bad"))
	if !strings.Contains(buf.String(), "not_logged_since_last_message=100") {
		t.Errorf("the next message does not count the 100 records not logged: %q", buf.String())
	}
}

// TestDeadLetterRoundTrip: a dead letter keeps the record's key, value,
// headers (order, duplicates, a header without value) and timestamp, and
// the encoder writes them back unchanged with the dead-letter headers
// after them; a NULL key or value stays nil, an empty one stays empty.
func TestDeadLetterRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	b := testBadRecords(deadLetterBadRecords, &buf, time.Hour)
	rec := badRec(42)
	if err := b.decodeFailed(rec, decodeErr(strings.Repeat("é", 2*MaxDeadLetterErrorBytes))); err != nil {
		t.Fatal(err)
	}
	empty := &kgo.Record{Topic: "in", Offset: 43, Key: nil, Value: []byte{}, Timestamp: time.UnixMilli(5)}
	for range 2 { // two rows of one record (an UPDATE's -U and +U)
		if !b.rejected(empty, connector.ErrBadRow) {
			t.Fatal("a rejected row was not handled under dead-letter")
		}
	}
	rows := b.take()
	if len(rows) != 2 || len(b.take()) != 0 {
		t.Fatalf("%d dead letters (one per record, the second row of a record adds none), then not forgotten", len(rows))
	}
	if d := b.deadLettered.Load(); d != 2 {
		t.Errorf("counted %d dead letters, want 2", d)
	}
	enc := deadLetterEncoder("p/t")
	for i, want := range []*kgo.Record{rec, empty} {
		var got kgo.Record
		if err := enc.EncodeRecord(&rows[i], &got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Key, want.Key) || (got.Key == nil) != (want.Key == nil) || !bytes.Equal(got.Value, want.Value) ||
			(got.Value == nil) != (want.Value == nil) || !got.Timestamp.Equal(want.Timestamp) {
			t.Errorf("record %d: key %q value %q ts %v; want %q %q %v", i, got.Key, got.Value, got.Timestamp, want.Key, want.Value, want.Timestamp)
		}
		if len(got.Headers) != len(want.Headers)+8 {
			t.Fatalf("record %d: %d headers", i, len(got.Headers))
		}
		for k, h := range want.Headers {
			if g := got.Headers[k]; g.Key != h.Key || !bytes.Equal(g.Value, h.Value) || (g.Value == nil) != (h.Value == nil) {
				t.Errorf("record %d header %d: %q=%q, want %q=%q", i, k, g.Key, g.Value, h.Key, h.Value)
			}
		}
		if g := headerValue(&got, HeaderDeadLetterOffset); g != strconv.FormatInt(want.Offset, 10) {
			t.Errorf("record %d: offset header %q", i, g)
		}
		if e := headerValue(&got, HeaderDeadLetterError); len(e) > MaxDeadLetterErrorBytes || !strings.HasPrefix(e, "kafka source: decoding") && i == 0 {
			t.Errorf("record %d: error header of %d bytes: %.80q", i, len(e), e)
		}
	}
	if r := headerValue(&kgo.Record{Headers: mustEncode(t, enc, rows[1]).Headers}, HeaderDeadLetterReason); r != "rejected" {
		t.Errorf("reason of a rejected row: %q", r)
	}
}

func mustEncode(t *testing.T, enc recordEncoder, row types.Row) *kgo.Record {
	t.Helper()
	var r kgo.Record
	if err := enc.EncodeRecord(&row, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestDeadLetterSink: only a dead-letter source has a dead-letter sink;
// asked for exactly-once it is a two-phase sink whose transactional-id
// prefix derives from the job and the source's id.
func TestDeadLetterSink(t *testing.T) {
	newSrc := func(policy badRecordPolicy, topic string) *source {
		s, err := newSource(sourceConfig{Topics: []string{"in"}, Properties: map[string]string{"bootstrap.servers": "localhost:9092"},
			StartupMode: startEarliest, Decoder: func([]byte, []byte, *types.Row) error { return nil }, BadRecordPolicy: policy, DeadLetterTopic: topic,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if snk, err := newSrc(skipBadRecords, "").DeadLetterSink(connector.DeadLetterConfig{Name: "p/t"}); snk != nil || err != nil {
		t.Errorf("skip source: dead-letter sink %v, %v", snk, err)
	}
	if _, err := newSource(sourceConfig{Topics: []string{"in"}, Properties: map[string]string{"bootstrap.servers": "x:1"},
		StartupMode: startEarliest, Decoder: func([]byte, []byte, *types.Row) error { return nil }, BadRecordPolicy: deadLetterBadRecords}); err == nil {
		t.Error("a dead-letter source without a topic was accepted")
	}
	src := newSrc(deadLetterBadRecords, "dlq")
	snk, err := src.DeadLetterSink(connector.DeadLetterConfig{Name: "p/t", Job: "job"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snk.(connector.TwoPhaseSink); ok {
		t.Error("an at-least-once dead-letter sink is a two-phase sink")
	}
	snk, err = src.DeadLetterSink(connector.DeadLetterConfig{Name: "p/t", Job: "job", ExactlyOnce: true})
	if err != nil {
		t.Fatal(err)
	}
	ts, ok := snk.(*exactlyOnceSink)
	if !ok {
		t.Fatalf("exactly-once dead-letter sink is a %T", snk)
	}
	if p := ts.TransactionalIDPrefix(); p != "job-p-t-dead-letter" {
		t.Errorf("transactional-id prefix %q", p)
	}
}

// TestDecodeFailureNamesPositionAndReason: for every format a Kafka table
// can read, a record the format cannot decode fails (policy fail) with an
// error naming topic, partition and offset, the part of the record (key or
// value) and the format's own reason — the text a dead letter carries too.
func TestDecodeFailureNamesPositionAndReason(t *testing.T) {
	two := []factory.Column{{Name: "id", Type: types.BigInt()}, {Name: "name", Type: types.String()}}
	for _, tc := range []struct {
		format  string
		opts    []string
		columns []factory.Column
		value   string
		reason  string // substring of the format's reason
	}{
		{"json", nil, two, `{"id":`, "json"},
		{"json", nil, two, `{"id":"x"}`, "id"},
		{"csv", nil, two, "x,\"unterminated", "csv"},
		{"raw", nil, []factory.Column{{Name: "id", Type: types.BigInt()}}, "abc", "raw"},
		{"avro", nil, two, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "avro"},
		{"avro-confluent", []string{"avro-confluent.url", "http://localhost:9"}, two, "\x07\x00\x00\x00\x01", "magic"},
		{"debezium-json", nil, two, `{"op":"c","after":{"id":"x"}}`, "id"},
		{"debezium-json", nil, two, `{"op":`, "debezium-json"},
		{"canal-json", nil, two, `{"type":"INSERT","data":[{"id":"x"}]}`, "id"},
		{"maxwell-json", nil, two, `{"type":"insert","data":{"id":"x"}}`, "id"},
	} {
		t.Run(tc.format+"/"+tc.value, func(t *testing.T) {
			table := kafkaTable(append([]string{"format", tc.format}, tc.opts...)...)
			table.Schema.Columns = tc.columns
			src, _, err := factory.Default.CreateSource(context.Background(), table)
			if err != nil {
				t.Fatal(err)
			}
			cfg := src.(*source).cfg
			row := types.NewRow(cfg.RowWidth)
			switch {
			case cfg.NewRowDecoder != nil:
				d, derr := cfg.NewRowDecoder()
				if derr != nil {
					t.Fatal(derr)
				}
				err = d.Decode(nil, []byte(tc.value), &row)
			default:
				d, derr := cfg.NewDecoder()
				if derr != nil {
					t.Fatal(derr)
				}
				err = d(nil, []byte(tc.value), &row)
			}
			if err == nil || errors.Is(err, factory.ErrSkipRecord) || !errors.As(err, new(*factory.DecodeError)) {
				t.Fatalf("decoding %q: %v; want a *factory.DecodeError (the record's bytes are bad)", tc.value, err)
			}
			var buf bytes.Buffer
			err = testBadRecords(failOnBadRecord, &buf, time.Hour).decodeFailed(&kgo.Record{Topic: "orders", Partition: 3, Offset: 99}, err)
			msg := err.Error()
			t.Log(msg)
			if !strings.Contains(msg, "topic orders partition 3 offset 99: value: ") || !strings.Contains(strings.ToLower(msg), tc.reason) {
				t.Errorf("error %q: want the position, the part and the format's reason (%q)", msg, tc.reason)
			}
		})
	}
}
