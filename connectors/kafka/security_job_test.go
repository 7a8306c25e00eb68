package kafka

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/jobconfig"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/runtime/testkit"
	"github.com/streamsql/streamsql/types"
)

// The job's secrets, scanned for in its log.
const (
	alicePass = "alice-Secret-512"
	trustPass = "trust-Store-Secret"
)

// secureClient is a client of addr configured by the security
// properties props (mapped as the connector maps them), closed when the
// test ends.
func secureClient(t *testing.T, addr string, props map[string]string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	all := map[string]string{"bootstrap.servers": addr}
	for k, v := range props {
		all[k] = v
	}
	s, err := parseProperties(all)
	if err != nil {
		t.Fatalf("parseProperties: %v", err)
	}
	cl, err := kgo.NewClient(append(append([]kgo.Opt{kgo.SeedBrokers(s.seeds...)}, s.common...), opts...)...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// TestExactlyOnceJobOverSASLSSL runs a whole exactly-once job through the
// runtime — a factory-created Kafka sink configured with the properties a
// Flink job file would carry (SCRAM-SHA-512 over SASL_SSL, a keytool-made
// JKS trust store) — on a real broker, then checks the output with an
// independent read_committed consumer, and scans the job's log for the
// secrets.
func TestExactlyOnceJobOverSASLSSL(t *testing.T) {
	t.Parallel()
	sb := kafkatest.StartSecure(t, kafkatest.SecureOptions{ScramUsers: map[string]string{"alice": alicePass}})
	trustJKS := sb.CA.KeytoolTrustStore(t, filepath.Join(sb.Dir, "job-trust.jks"), trustPass)
	topic := sb.Plain.Topic(t, 2)
	secure := map[string]string{
		"security.protocol":       "SASL_SSL",
		"sasl.mechanism":          "SCRAM-SHA-512",
		"sasl.jaas.config":        `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="` + alicePass + `";`,
		"ssl.truststore.location": trustJKS,
		"ssl.truststore.password": trustPass,
	}
	opts := map[string]string{"connector": "kafka", "topic": topic, "properties.bootstrap.servers": sb.SASLSSL,
		"key.format": "json", "key.fields": "p", "value.format": "json",
		"sink.delivery-guarantee": "exactly-once", "sink.transactional-id-prefix": "sasl-job"}
	for k, v := range secure {
		opts["properties."+k] = v
	}
	table := factory.Table{Name: "cat.db.out", Options: opts, Schema: factory.Schema{Columns: []factory.Column{
		{Name: "p", Type: types.BigInt()}, {Name: "seq", Type: types.BigInt()}}}}
	sink, _, err := factory.Default.CreateSink(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}

	const partitions, per = 2, 300
	var logs bytes.Buffer
	cfg := jobconfig.DefaultConfig()
	cfg.Checkpoint.Interval = 50 * time.Millisecond
	cfg.Checkpoint.Dir = t.TempDir()
	cfg.Checkpoint.Retention = jobconfig.RetainOnCancellation // kept, to be scanned for secrets
	cfg.Restart.Strategy = jobconfig.RestartNone
	job, err := runtime.NewJob(runtime.JobSpec{Name: "sasl-job", Config: cfg,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Pipelines: []runtime.Pipeline{{Name: "main",
			Sources: []runtime.SourceSpec{{Name: "seq", Parallelism: 1,
				Source: &testkit.SeqSource{Partitions: partitions, PerPartition: per, Batch: 20, Delay: time.Millisecond}}},
			Sinks: []runtime.SinkSpec{{Name: "out", Sink: sink, Parallelism: 1}}}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := job.Run(ctx); err != nil {
		t.Fatalf("job over SASL_SSL: %v", err)
	}

	cl := secureClient(t, sb.SASLSSL, secure, kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	seqs := map[int64][]int64{}
	n := 0
	for n < partitions*per && ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		for _, e := range fs.Errors() {
			if ctx.Err() == nil {
				t.Fatalf("consuming over SASL_SSL: %v", e.Err)
			}
		}
		fs.EachRecord(func(r *kgo.Record) {
			var v struct{ P, Seq int64 }
			if err := json.Unmarshal(r.Value, &v); err != nil {
				t.Fatalf("record %q: %v", r.Value, err)
			}
			seqs[v.P] = append(seqs[v.P], v.Seq)
			n++
		})
	}
	for p := range int64(partitions) {
		got := seqs[p]
		if len(got) != per {
			t.Fatalf("partition %d: %d rows read_committed, want %d exactly once", p, len(got), per)
		}
		for i, s := range got {
			if s != int64(i) {
				t.Fatalf("partition %d: row %d has seq %d: not exactly once in order", p, i, s)
			}
		}
	}
	if !strings.Contains(logs.String(), "checkpoint") {
		t.Fatalf("the job logged nothing about checkpoints; the secret scan would look at %d bytes", logs.Len())
	}
	scanned := map[string]string{"the job's log": logs.String()}
	err = filepath.WalkDir(cfg.Checkpoint.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		scanned[path] = string(b)
		return err
	})
	if err != nil || len(scanned) < 2 {
		t.Fatalf("reading the checkpoint files (%d read): %v", len(scanned)-1, err)
	}
	for what, text := range scanned {
		for _, secret := range []string{alicePass, trustPass} {
			if strings.Contains(text, secret) {
				t.Fatalf("%s shows a secret", what)
			}
		}
	}
}
