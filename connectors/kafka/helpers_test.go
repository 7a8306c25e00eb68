package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/types"
)

const waitLong = 60 * time.Second

// kvEncoder encodes rows (key STRING NULL, value STRING): field 0 is the
// key (NULL: no key), field 1 the value.
var kvEncoder = encoderFunc(func(row *types.Row, rec *kgo.Record) error {
	if row.Fields[0].IsNull() {
		rec.Key = nil
	} else {
		rec.Key = append(rec.Key, row.Fields[0].Str()...)
	}
	rec.Value = append(rec.Value, row.Fields[1].Str()...)
	return nil
})

func rows(values ...string) []types.Row {
	out := make([]types.Row, len(values))
	for i, v := range values {
		out[i] = types.Row{Fields: []types.Value{{}, types.Str(v)}}
	}
	return out
}

func keyedRows(keys ...string) []types.Row {
	out := make([]types.Row, len(keys))
	for i, k := range keys {
		out[i] = types.Row{Fields: []types.Value{types.Str(k), types.Str(k)}}
	}
	return out
}

func seq(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, prefix+strconv.Itoa(i))
	}
	return out
}

func task(i int) connector.TaskInfo {
	return connector.TaskInfo{Job: "test", Table: "out", Index: i, Parallelism: 1, Logger: slog.Default()}
}

type sinkOpt func(*sinkConfig)

func withProps(kv ...string) sinkOpt {
	return func(c *sinkConfig) {
		for i := 0; i+1 < len(kv); i += 2 {
			c.Properties[kv[i]] = kv[i+1]
		}
	}
}

func eosConfig(b kafkatest.Broker, topic, prefix string, ack ackTracker, opts ...sinkOpt) sinkConfig {
	cfg := sinkConfig{Topic: topic, Properties: map[string]string{"bootstrap.servers": b.Addr},
		DeliveryGuarantee: exactlyOnce, TransactionalIDPrefix: prefix, Encoder: kvEncoder, AckTracker: ack}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// eosRun is one "process" of an exactly-once sink: sink, committer (after
// Recover) and one writer.
type eosRun struct {
	sink *exactlyOnceSink
	cm   *txn.Committer
	w    *txn.Writer
}

func startEOS(t *testing.T, cfg sinkConfig, pending ...connector.Committable) (*eosRun, error) {
	t.Helper()
	ctx := context.Background()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	}
	s, err := newSink(cfg)
	if err != nil {
		t.Fatalf("NewSink: %v", err)
	}
	ts := s.(*exactlyOnceSink)
	c, err := ts.Committer(ctx, "test")
	if err != nil {
		return nil, err
	}
	cm := c.(*txn.Committer)
	t.Cleanup(func() { cm.Close() })
	if err := cm.Recover(ctx, pending); err != nil {
		return nil, err
	}
	w, err := ts.Open(ctx, task(0))
	if err != nil {
		return nil, err
	}
	ew := w.(*txn.Writer)
	t.Cleanup(func() { ew.Close() })
	return &eosRun{sink: ts, cm: cm, w: ew}, nil
}

// openClient returns the client of w's open transaction.
func openClient(w *txn.Writer) *kgo.Client {
	_, cl := w.OpenTransaction()
	c, _ := cl.(*kgo.Client)
	return c
}

// openID returns the transactional id of w's open transaction.
func openID(w *txn.Writer) string {
	id, _ := w.OpenTransaction()
	return id
}

func mustWrite(t *testing.T, w connector.Writer, rs []types.Row) {
	t.Helper()
	if err := w.Write(context.Background(), rs); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

func mustPreCommit(t *testing.T, w connector.Writer, cp int64) connector.Committable {
	t.Helper()
	cs, err := w.PreCommit(context.Background(), cp)
	if err != nil {
		t.Fatalf("PreCommit(%d): %v", cp, err)
	}
	if len(cs) != 1 {
		t.Fatalf("PreCommit(%d) returned %d committables, want 1", cp, len(cs))
	}
	return cs[0]
}

func mustDecode(t *testing.T, b connector.Committable) txn.Committable {
	t.Helper()
	c, err := txn.DecodeCommittable(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readAll reads topic until want records arrived (or the timeout) and
// checks they are exactly want, in order.
func expectValues(t *testing.T, b kafkatest.Broker, topic string, readCommitted bool, want []string) {
	t.Helper()
	got := kafkatest.Values(b.Consume(t, topic, readCommitted, waitLong, func(r []*kgo.Record) bool { return len(r) >= len(want) }))
	if !slices.Equal(got, want) {
		t.Fatalf("read_committed=%v consumer saw %d records %q, want %d %q\n%s", readCommitted, len(got), trunc(got), len(want), trunc(want),
			brokerState(t, b, topic))
	}
}

// expectNothingCommitted checks that a read_committed consumer sees nothing
// for a while and that the last stable offset of partition 0 is 0.
func expectNothingCommitted(t *testing.T, b kafkatest.Broker, topic string) {
	t.Helper()
	if got := b.Consume(t, topic, true, 1500*time.Millisecond, func(r []*kgo.Record) bool { return len(r) > 0 }); len(got) != 0 {
		t.Fatalf("read_committed saw %q before the commit", kafkatest.Values(got))
	}
}

func trunc(s []string) string {
	if len(s) > 8 {
		return fmt.Sprintf("%q…(%d more)", s[:8], len(s)-8)
	}
	return fmt.Sprintf("%q", s)
}

// produceSentinel writes one committed, non-transactional record.
func produceSentinel(t *testing.T, b kafkatest.Broker, topic string) {
	t.Helper()
	cl := b.Client(t, kgo.DefaultProduceTopic(topic))
	if err := cl.ProduceSync(context.Background(), kgo.StringRecord("sentinel")).FirstErr(); err != nil {
		t.Fatalf("produce sentinel: %v", err)
	}
}

// brokerState describes what the broker says of topic's partitions (high
// watermark and last stable offset) and of the transactions still open on
// it, for the message of a failed visibility check: a last stable offset
// below the high watermark names the transaction that holds readers back.
func brokerState(t *testing.T, b kafkatest.Broker, topic string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	adm := b.Admin(t)
	var sb strings.Builder
	ends, err := adm.ListEndOffsets(ctx, topic)
	lsos, err2 := adm.ListCommittedOffsets(ctx, topic)
	fmt.Fprintf(&sb, "broker state of %s (errors: %v, %v):\n", topic, err, err2)
	ends.Each(func(o kadm.ListedOffset) {
		l, _ := lsos.Lookup(o.Topic, o.Partition)
		fmt.Fprintf(&sb, "  partition %d: high watermark %d, last stable offset %d\n", o.Partition, o.Offset, l.Offset)
	})
	open, err := adm.ListTransactions(ctx, nil, []string{"Ongoing", "PrepareCommit", "PrepareAbort"})
	fmt.Fprintf(&sb, "open transactions (error %v):\n", err)
	open.Each(func(tx kadm.ListedTransaction) {
		fmt.Fprintf(&sb, "  %s: producer %d, state %s\n", tx.TxnID, tx.ProducerID, tx.State)
	})
	return sb.String()
}

// offsetsOf returns the offsets of a split state ("next" or "next/end"),
// without the cluster and topic ids after them.
func offsetsOf(state []byte) string {
	offsets, _ := cutIdentity(state)
	return string(offsets)
}
