package kafka

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/job"
)

// badInput is the input of the bad-record job tests: good JSON records,
// records that are not JSON (bad: the format cannot decode them), and a
// record whose user_id is NULL, which the NOT NULL sink column rejects.
// Records carry keys, headers (a duplicate key and a header without value
// among them) and explicit timestamps, so that a dead letter can be
// compared byte for byte.
type badInput struct {
	good     []string
	bad      []*kgo.Record // not decodable, in offset order
	rejected []*kgo.Record // decodable, with a NULL user_id
}

func produceBadInput(t *testing.T, b kafkatest.Broker, topic string, n int) badInput {
	t.Helper()
	cl := b.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var in badInput
	var recs []*kgo.Record
	ts := time.UnixMilli(1_700_000_000_000)
	for i := range n {
		r := &kgo.Record{Topic: topic, Timestamp: ts.Add(time.Duration(i) * time.Millisecond)}
		switch i % 5 {
		case 1:
			r.Key = []byte("k-" + strconv.Itoa(i))
			r.Value = []byte(fmt.Sprintf(`{"user_id":%d,"n":` /* cut short: not JSON */, i))
			r.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte("1")}, {Key: "h", Value: []byte("2")}, {Key: "nil", Value: nil}, {Key: "empty", Value: []byte{}}}
			in.bad = append(in.bad, r)
		case 3:
			if i%10 == 3 {
				r.Value = []byte(fmt.Sprintf(`{"user_id":null,"n":%d}`, i))
				in.rejected = append(in.rejected, r)
				break
			}
			r.Value = []byte{0xff, 0x00, byte(i)} // binary garbage, no key
			in.bad = append(in.bad, r)
		default:
			v := fmt.Sprintf(`{"user_id":%d,"n":%d}`, i, i)
			r.Value = []byte(v)
			in.good = append(in.good, v)
		}
		recs = append(recs, r)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return in
}

// logLines returns the lines of logs that contain substr.
func logLines(logs *logBuffer, substr string) []string {
	var out []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return out
}

func badRecordJob(b kafkatest.Broker, in, out, policy, extra, sinkExtra string) string {
	return `CREATE TABLE src (user_id BIGINT, n INT) WITH ('connector' = 'kafka', 'topic' = '` + in + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json', 'scan.bad-record.policy' = '` + policy + `'` + extra + `);
CREATE TABLE snk (user_id BIGINT NOT NULL, n INT) WITH ('connector' = 'kafka', 'topic' = '` + out + `',
  'properties.bootstrap.servers' = '` + b.Addr + `', 'format' = 'json'` + sinkExtra + `);
INSERT INTO snk SELECT user_id, n FROM src;
`
}

// TestBadRecordPolicyFail: the default policy fails the job at the first
// bad record, naming topic, partition and offset and the format's reason.
func TestBadRecordPolicyFail(t *testing.T) {
	b := kafkatest.Require(t)
	in := b.Topic(t, 1)
	produceBadInput(t, b, in, 5)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	j, err := job.Compile(ctx, "fail.sql", badRecordJob(b, in, b.Topic(t, 1), "fail", "", ""),
		job.Options{Registry: job.NewRegistry(), Set: map[string]string{"restart-strategy.type": "none"}})
	if err != nil {
		t.Fatal(err)
	}
	err = j.Run(ctx)
	for _, w := range []string{"topic " + in + " partition 0 offset 1", "value: "} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("job error %v; want it to contain %q", err, w)
		}
	}
}

// TestBadRecordPolicySkip: skip drops the records the format cannot decode
// and the rows the NOT NULL column rejects, counts them, writes every good
// record, and logs at a bounded rate, naming topic, partition and offset.
func TestBadRecordPolicySkip(t *testing.T) {
	b := kafkatest.Require(t)
	in, out := b.Topic(t, 1), b.Topic(t, 1)
	input := produceBadInput(t, b, in, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logs := &logBuffer{}
	j, err := job.Compile(ctx, "skip.sql", badRecordJob(b, in, out, "skip", "", ""),
		job.Options{Registry: job.NewRegistry(), Set: map[string]string{"restart-strategy.type": "none"},
			Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	var skipped, dead int64
	for _, ts := range j.Status().Tasks {
		skipped += ts.BadSkipped
		dead += ts.DeadLettered
	}
	if want := int64(len(input.bad) + len(input.rejected)); skipped != want || dead != 0 {
		t.Errorf("skipped %d, dead-lettered %d; want %d skipped", skipped, dead, want)
	}
	recs := b.Consume(t, out, false, time.Minute, func(r []*kgo.Record) bool { return len(r) >= len(input.good) })
	if got := kafkatest.Values(recs); strings.Join(got, "\n") != strings.Join(input.good, "\n") {
		t.Errorf("written %d records, want the %d good ones in order", len(got), len(input.good))
	}
	lines := logLines(logs, "skipped a record")
	if len(lines) == 0 || !strings.Contains(lines[0], "topic="+in) || !strings.Contains(lines[0], "partition=0") ||
		!strings.Contains(lines[0], "offset=1 ") {
		t.Fatalf("no log line naming the first bad record (topic %s partition 0 offset 1): %q", in, lines)
	}
	// One message for the first bad record, then at most one per
	// interval, not one per record.
	if limit := 1 + int(elapsed/badRecordLogInterval); len(lines) > limit {
		t.Errorf("%d log lines for %d skipped records in %v: the log is not rate-limited (at most %d)", len(lines), skipped, elapsed, limit)
	}
}

// TestBadRecordPolicyDeadLetter: dead-letter writes every bad record (and
// the record whose row the NOT NULL column rejects) to the dead-letter
// topic byte for byte — key, value, headers, timestamp — with the
// documented headers after the record's own; exactly-once, read
// read_committed; the good records reach the sink.
func TestBadRecordPolicyDeadLetter(t *testing.T) {
	b := kafkatest.Require(t)
	in, out, dlq := b.Topic(t, 1), b.Topic(t, 1), b.Topic(t, 1)
	input := produceBadInput(t, b, in, 50)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := kafkatest.UniqueName(t)
	j, err := job.Compile(ctx, "dl.sql", badRecordJob(b, in, out, "dead-letter", `, 'scan.bad-record.dead-letter.topic' = '`+dlq+`'`,
		`, 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '`+name+`'`),
		job.Options{Registry: job.NewRegistry(), JobName: name, Set: map[string]string{"restart-strategy.type": "none",
			"execution.checkpointing.interval": "100ms", "execution.checkpointing.dir": filepath.Join(t.TempDir(), "ckpt")}})
	if err != nil {
		t.Fatal(err)
	}
	var explain strings.Builder
	if err := j.Explain(&explain); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"bad records: written unchanged to dead-letter topic '" + dlq + "'", "dead letters after a crash: exactly-once"} {
		if !strings.Contains(explain.String(), w) {
			t.Errorf("EXPLAIN lacks %q:\n%s", w, explain.String())
		}
	}
	if err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want := append(append([]*kgo.Record{}, input.bad...), input.rejected...)
	b.AwaitStable(t, dlq)
	got := b.Consume(t, dlq, true, time.Minute, func(r []*kgo.Record) bool { return len(r) >= len(want) })
	checkDeadLetters(t, got, want, in, name, "snk/src")
	b.AwaitStable(t, out)
	recs := b.Consume(t, out, true, time.Minute, func(r []*kgo.Record) bool { return len(r) >= len(input.good) })
	if got := kafkatest.Values(recs); strings.Join(got, "\n") != strings.Join(input.good, "\n") {
		t.Errorf("written %d records, want the %d good ones in order", len(got), len(input.good))
	}
}

// checkDeadLetters checks that got holds one dead letter per record of want
// (matched by offset), each byte-identical to it with the dead-letter
// headers after its own.
func checkDeadLetters(t *testing.T, got, want []*kgo.Record, topic, jobName, source string) {
	t.Helper()
	byOffset := map[string][]*kgo.Record{}
	for _, r := range got {
		byOffset[headerValue(r, HeaderDeadLetterPartition)+"/"+headerValue(r, HeaderDeadLetterOffset)] =
			append(byOffset[headerValue(r, HeaderDeadLetterPartition)+"/"+headerValue(r, HeaderDeadLetterOffset)], r)
	}
	if len(got) != len(want) {
		t.Errorf("%d dead letters, want %d", len(got), len(want))
	}
	for _, w := range want {
		key := strconv.Itoa(int(w.Partition)) + "/" + strconv.FormatInt(w.Offset, 10)
		rs := byOffset[key]
		if len(rs) != 1 {
			t.Errorf("record at partition/offset %s: %d dead letters, want exactly 1", key, len(rs))
			continue
		}
		r := rs[0]
		if !bytes.Equal(r.Key, w.Key) || (r.Key == nil) != (w.Key == nil) || !bytes.Equal(r.Value, w.Value) || !r.Timestamp.Equal(w.Timestamp) {
			t.Errorf("dead letter of %s: key %q value %q at %v; want key %q value %q at %v", key, r.Key, r.Value, r.Timestamp, w.Key, w.Value, w.Timestamp)
		}
		if len(r.Headers) != len(w.Headers)+8 {
			t.Errorf("dead letter of %s has %d headers, want the record's %d and 8 more", key, len(r.Headers), len(w.Headers))
			continue
		}
		for i, h := range w.Headers {
			g := r.Headers[i]
			if g.Key != h.Key || !bytes.Equal(g.Value, h.Value) || (g.Value == nil) != (h.Value == nil) {
				t.Errorf("dead letter of %s: header %d is %q=%q (nil %v), want %q=%q (nil %v)", key, i, g.Key, g.Value, g.Value == nil, h.Key, h.Value, h.Value == nil)
			}
		}
		reason := "decode"
		if strings.Contains(string(w.Value), `"user_id":null`) {
			reason = "rejected"
		}
		wantHeaders := map[string]string{HeaderDeadLetterTopic: topic, HeaderDeadLetterTable: "default_catalog.default_database.src",
			HeaderDeadLetterSource: source, HeaderDeadLetterJob: jobName, HeaderDeadLetterReason: reason}
		for k, v := range wantHeaders {
			if g := headerValue(r, k); g != v {
				t.Errorf("dead letter of %s: header %s = %q, want %q", key, k, g, v)
			}
		}
		errText := headerValue(r, HeaderDeadLetterError)
		wantErr := "decoding the record at topic " + topic + " partition " + strconv.Itoa(int(w.Partition)) + " offset " + strconv.FormatInt(w.Offset, 10)
		if reason == "rejected" {
			wantErr = "column 'user_id' of table"
		}
		if !strings.Contains(errText, wantErr) {
			t.Errorf("dead letter of %s: error %q, want it to contain %q", key, errText, wantErr)
		}
	}
}

func headerValue(r *kgo.Record, key string) string {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// TestBadRecordPlanning: dead letters of a source on the cluster of the
// pipeline's exactly-once Kafka sink go in the sink's transactions, which
// lifts the need for checkpoint files (offsets in the sink's transaction,
// scale-out); dead letters that could not keep the sink's guarantee —
// another cluster than the sink's with checkpoints in memory — are
// refused, naming the source table, the option and the reason; EXPLAIN
// states the guarantee the dead letters have and which way they go. No
// broker is needed.
func TestBadRecordPlanning(t *testing.T) {
	const addr, other = "localhost:9", "otherhost:9"
	dl := `, 'scan.bad-record.dead-letter.topic' = 'dlq'`
	eos := `, 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'p'`
	b := kafkatest.Broker{Addr: addr}
	sourceOn := func(servers string) string {
		return `CREATE TABLE src (user_id BIGINT, n INT) WITH ('connector' = 'kafka', 'topic' = 'in',
  'properties.bootstrap.servers' = '` + servers + `', 'properties.group.id' = 'g', 'scan.startup.mode' = 'group-offsets',
  'format' = 'json', 'scan.bad-record.policy' = 'dead-letter'` + dl + `);
`
	}
	source := sourceOn(addr)
	sink := `CREATE TABLE snk (user_id BIGINT, n INT) WITH ('connector' = 'kafka',
  'topic' = 'out', 'properties.bootstrap.servers' = '` + addr + `', 'format' = 'json'` + eos + `);
INSERT INTO snk SELECT * FROM src;`
	const inSink = "dead letters after a crash: exactly-once: written in the sink's transactions"
	// memory keeps the checkpoints in memory: no folder, not even the
	// default one.
	memory := map[string]string{"execution.checkpointing.storage": "jobmanager"}
	for _, tc := range []struct {
		name string
		text string
		set  map[string]string
		want []string // substrings of the error, or of EXPLAIN when ok
		ok   bool
	}{
		// The sink cannot keep its own guarantee: the job is refused for
		// the sink, whatever the dead letters do.
		{"exactly-once without checkpoint dir", badRecordJob(b, "in", "out", "dead-letter", dl, eos), memory,
			[]string{"exactly-once sink 'snk'", "execution.checkpointing.dir"}, false},
		// The same, with the default checkpoint folder.
		{"exactly-once with the default folder", badRecordJob(b, "in", "out", "dead-letter", dl, eos), nil,
			[]string{"after a crash: exactly-once (checkpoints in ", inSink}, true},
		// The sink commits the source's offsets in its transactions and
		// writes the dead letters in them too.
		{"exactly-once with positions in the transaction", source + sink, memory,
			[]string{inSink, "after a crash: exactly-once (source offsets committed in the sink transaction"}, true},
		{"scaled out", source + sink, map[string]string{"pipeline.scale-out": "true", "pipeline.instance-id": "a"},
			[]string{inSink}, true},
		// The dead-letter topic (the source's cluster) is not the sink's
		// cluster: the dead letters need transactions of their own, which
		// only checkpoint files let a restarted process finish.
		{"another cluster without checkpoint dir", sourceOn(other) + sink, memory,
			[]string{"source 'src'", "'scan.bad-record.policy' = 'dead-letter'", "exactly-once sink 'snk'",
				"dead-letter topic is on another cluster than sink 'snk' writes", "execution.checkpointing.dir"}, false},
		{"another cluster scaled out", sourceOn(other) + sink, map[string]string{"pipeline.scale-out": "true", "pipeline.instance-id": "a"},
			[]string{"source 'src'", "scaled-out job", "another cluster", "'scan.bad-record.policy' = 'skip' or 'fail'"}, false},
		{"another cluster with checkpoint dir", sourceOn(other) + sink,
			map[string]string{"execution.checkpointing.dir": t.TempDir(), "execution.checkpointing.interval": "1s"},
			[]string{"dead letters after a crash: exactly-once: written in Kafka transactions of their own"}, true},
		{"exactly-once with checkpoint dir", badRecordJob(b, "in", "out", "dead-letter", dl, eos),
			map[string]string{"execution.checkpointing.dir": t.TempDir(), "execution.checkpointing.interval": "1s"},
			[]string{"bad records: written unchanged to dead-letter topic 'dlq'", inSink}, true},
		{"at-least-once", badRecordJob(b, "in", "out", "dead-letter", dl, ""), nil,
			[]string{"dead letters after a crash: at-least-once"}, true},
		{"skip", badRecordJob(b, "in", "out", "skip", "", eos), map[string]string{"execution.checkpointing.dir": t.TempDir()},
			[]string{"bad records: skipped, counted and logged"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := job.Compile(context.Background(), "plan.sql", tc.text, job.Options{Registry: job.NewRegistry(), Set: tc.set})
			if !tc.ok {
				for _, w := range tc.want {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Fatalf("error %v; want it to contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var explain strings.Builder
			if err := j.Explain(&explain); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(explain.String(), w) {
					t.Errorf("EXPLAIN lacks %q:\n%s", w, explain.String())
				}
			}
		})
	}
}

// TestDeadLetterTopicMissing: a job whose dead-letter topic does not exist
// fails at start, naming the table, the topic and the option — not only
// when the first bad record arrives, which may be days later (here no
// record is bad).
func TestDeadLetterTopicMissing(t *testing.T) {
	b := kafkatest.Require(t)
	in := b.Topic(t, 1)
	cl := b.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: in, Value: []byte(`{"user_id":1,"n":1}`)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	missing := "missing-" + in
	j, err := job.Compile(ctx, "dl.sql", badRecordJob(b, in, b.Topic(t, 1), "dead-letter", `, 'scan.bad-record.dead-letter.topic' = '`+missing+`'`, ""),
		job.Options{Registry: job.NewRegistry(), Set: map[string]string{"restart-strategy.type": "none"}})
	if err != nil {
		t.Fatal(err)
	}
	err = j.Run(ctx)
	for _, w := range []string{"dead-letter topic of table 'default_catalog.default_database.src'", "topic '" + missing + "' does not exist", "scan.bad-record.dead-letter.topic"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("job error %v; want it to contain %q", err, w)
		}
	}
}
