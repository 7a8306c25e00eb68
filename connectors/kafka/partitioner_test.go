package kafka

import (
	"bufio"
	"context"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

var vectorPartitions = []int{1, 3, 7, 12, 100}

type murmurVector struct {
	key   []byte
	hash  uint32
	parts []int // partition for each of vectorPartitions
}

// loadVectors reads testdata/murmur2.txt, made by Kafka's Java client
// (testdata/Murmur2Vectors.java).
func loadVectors(t *testing.T) []murmurVector {
	t.Helper()
	f, err := os.Open("testdata/murmur2.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []murmurVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 2+len(vectorPartitions) {
			t.Fatalf("bad vector line %q", sc.Text())
		}
		var v murmurVector
		if fs[0] != "-" {
			if v.key, err = hex.DecodeString(fs[0]); err != nil {
				t.Fatal(err)
			}
		} else {
			v.key = []byte{}
		}
		h, err := strconv.ParseUint(fs[1], 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		v.hash = uint32(h)
		for _, p := range fs[2:] {
			n, err := strconv.Atoi(p)
			if err != nil {
				t.Fatal(err)
			}
			v.parts = append(v.parts, n)
		}
		out = append(out, v)
	}
	if len(out) < 10 {
		t.Fatalf("only %d vectors", len(out))
	}
	return out
}

func TestMurmur2MatchesJava(t *testing.T) {
	for _, v := range loadVectors(t) {
		if got := murmur2(v.key); got != v.hash {
			t.Errorf("murmur2(%q) = %d, Java says %d", v.key, got, v.hash)
		}
		for i, n := range vectorPartitions {
			if got := keyPartition(v.key, n); got != v.parts[i] {
				t.Errorf("partition of %q among %d = %d, Java's producer picks %d", v.key, n, got, v.parts[i])
			}
			// The partitioner the writer installs agrees.
			tp := newPartitioner(partitionerDefault, 0).ForTopic("t")
			if got := tp.Partition(&kgo.Record{Key: v.key}, n); got != v.parts[i] {
				t.Errorf("default partitioner puts %q on %d of %d, Java's producer on %d", v.key, got, n, v.parts[i])
			}
		}
	}
}

func plainConfig(b kafkatest.Broker, topic string, g deliveryGuarantee, p partitionerKind) sinkConfig {
	return sinkConfig{Topic: topic, Properties: map[string]string{"bootstrap.servers": b.Addr, "linger.ms": "5"},
		DeliveryGuarantee: g, Partitioner: p, Encoder: kvEncoder}
}

// writePlain writes rs through a plain writer of task idx and pre-commits.
func writePlain(t *testing.T, cfg sinkConfig, idx int, rs []string, keyed bool) {
	t.Helper()
	s, err := newSink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Open(context.Background(), task(idx))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if keyed {
		mustWrite(t, w, keyedRows(rs...))
	} else {
		mustWrite(t, w, rows(rs...))
	}
	if cs, err := w.PreCommit(context.Background(), 1); err != nil || len(cs) != 0 {
		t.Fatalf("PreCommit = %q, %v; want no committables, no error", cs, err)
	}
}

// TestPartitioners checks on the broker where each partitioner puts
// records: the default one as Kafka's Java producer (vectors), fixed on
// task mod partitions, round-robin on every partition.
func TestPartitioners(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	vectors := loadVectors(t)

	t.Run("default", func(t *testing.T) {
		t.Parallel()
		topic := b.Topic(t, 7)
		want := map[string]int32{}
		var keys []string
		for _, v := range vectors {
			if len(v.key) == 0 {
				continue
			}
			keys = append(keys, string(v.key))
			want[string(v.key)] = int32(v.parts[2]) // 7 partitions
		}
		writePlain(t, plainConfig(b, topic, atLeastOnce, partitionerDefault), 0, keys, true)
		got := b.Consume(t, topic, false, waitLong, func(r []*kgo.Record) bool { return len(r) >= len(keys) })
		if len(got) != len(keys) {
			t.Fatalf("read %d records, want %d", len(got), len(keys))
		}
		for _, r := range got {
			if r.Partition != want[string(r.Key)] {
				t.Errorf("key %q on partition %d, Java's producer picks %d", r.Key, r.Partition, want[string(r.Key)])
			}
		}
	})
	t.Run("fixed", func(t *testing.T) {
		t.Parallel()
		topic := b.Topic(t, 3)
		vals := seq("f", 0, 30)
		writePlain(t, plainConfig(b, topic, atLeastOnce, partitionerFixed), 5, vals, true)
		got := b.Consume(t, topic, false, waitLong, func(r []*kgo.Record) bool { return len(r) >= len(vals) })
		for _, r := range got {
			if r.Partition != 2 {
				t.Fatalf("fixed partitioner of task 5 wrote to partition %d of 3, want 2", r.Partition)
			}
		}
		if len(got) != len(vals) {
			t.Fatalf("read %d records, want %d", len(got), len(vals))
		}
	})
	t.Run("round-robin", func(t *testing.T) {
		t.Parallel()
		topic := b.Topic(t, 3)
		vals := seq("rr", 0, 30)
		writePlain(t, plainConfig(b, topic, atLeastOnce, partitionerRoundRobin), 0, vals, true)
		got := b.Consume(t, topic, false, waitLong, func(r []*kgo.Record) bool { return len(r) >= len(vals) })
		per := map[int32]int{}
		for _, r := range got {
			per[r.Partition]++
		}
		if len(got) != len(vals) || per[0] != 10 || per[1] != 10 || per[2] != 10 {
			t.Fatalf("round-robin spread %d records as %v, want 10 on each of 3 partitions", len(got), per)
		}
	})
}

// TestPlainWriters: at-least-once has every record durable after
// PreCommit; none delivers without waiting.
func TestPlainWriters(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	for _, g := range []deliveryGuarantee{atLeastOnce, none} {
		t.Run(g.String(), func(t *testing.T) {
			t.Parallel()
			topic := b.Topic(t, 1)
			vals := seq("v", 0, 1000)
			writePlain(t, plainConfig(b, topic, g, partitionerDefault), 0, vals[:500], false)
			if g == atLeastOnce {
				// PreCommit returned: every record is acknowledged already.
				end, err := b.Admin(t).ListEndOffsets(context.Background(), topic)
				if err != nil {
					t.Fatal(err)
				}
				if o, _ := end.Lookup(topic, 0); o.Offset != 500 {
					t.Fatalf("end offset %d after PreCommit, want 500", o.Offset)
				}
			}
			writePlain(t, plainConfig(b, topic, g, partitionerDefault), 0, vals[500:], false)
			expectValues(t, b, topic, true, vals)
		})
	}
}

// TestPlainWriterFailure: under at-least-once a record the broker rejects
// fails the pre-commit. (With lz4 the sink leaves the record's size to the
// broker; otherwise 'sink.bad-record.policy' would stop it before.)
func TestPlainWriterFailure(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	topic := b.TopicWithConfig(t, 1, map[string]string{"max.message.bytes": "200"})
	cfg := plainConfig(b, topic, atLeastOnce, partitionerDefault)
	cfg.Properties["compression.type"] = "lz4"
	s, err := newSink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Open(context.Background(), task(0))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mustWrite(t, w, rows(incompressible(2000)))
	if _, err := w.PreCommit(context.Background(), 1); err == nil {
		t.Fatalf("PreCommit after a rejected record succeeded")
	}
}
