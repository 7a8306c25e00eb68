package kafka

import (
	"context"
	"strconv"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
	"github.com/streamsql/streamsql/types"
)

// benchRows is 1000 rows with 100-byte values and distinct keys.
func benchRows() []types.Row {
	rs := make([]types.Row, 1000)
	pad := string(make([]byte, 100))
	for i := range rs {
		k := "key-" + strconv.Itoa(i)
		rs[i] = types.Row{Fields: []types.Value{types.Str(k), types.Str((k + pad)[:100])}}
	}
	return rs
}

// benchWriter writes b.N records (one op = one record) through w, with a
// checkpoint (PreCommit, then commit) every 100,000 records.
func benchWriter(b *testing.B, w connector.Writer, commit func(connector.Committable) error) {
	rs := benchRows()
	ctx := context.Background()
	b.SetBytes(100)
	b.ReportAllocs()
	b.ResetTimer()
	var cp int64
	for done := 0; done < b.N; {
		n := min(len(rs), b.N-done)
		if err := w.Write(ctx, rs[:n]); err != nil {
			b.Fatal(err)
		}
		done += n
		if done%100_000 < n || done == b.N {
			cp++
			cs, err := w.PreCommit(ctx, cp)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range cs {
				if err := commit(c); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

func BenchmarkExactlyOnceWriter(b *testing.B) {
	br := kafkatest.Require(b)
	topic := br.Topic(b, 4)
	ack := &memoryAckTracker{}
	s, err := newSink(eosConfig(br, topic, kafkatest.UniqueName(b), ack, withProps("linger.ms", "5")))
	if err != nil {
		b.Fatal(err)
	}
	ts := s.(*exactlyOnceSink)
	cm, err := ts.Committer(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer cm.Close()
	w, err := ts.Open(context.Background(), task(0))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	benchWriter(b, w, func(c connector.Committable) error {
		if err := cm.Commit(context.Background(), c); err != nil {
			return err
		}
		ack.MarkDurable(c)
		return nil
	})
}

func BenchmarkAtLeastOnceWriter(b *testing.B) {
	br := kafkatest.Require(b)
	topic := br.Topic(b, 4)
	s, err := newSink(plainConfig(br, topic, atLeastOnce, partitionerDefault))
	if err != nil {
		b.Fatal(err)
	}
	w, err := s.Open(context.Background(), task(0))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	benchWriter(b, w, func(connector.Committable) error { return nil })
}

// BenchmarkReader reads 200,000 records (one op = one record).
func BenchmarkReader(b *testing.B) {
	br := kafkatest.Require(b)
	topic := br.Topic(b, 1)
	s, err := newSink(plainConfig(br, topic, atLeastOnce, partitionerDefault))
	if err != nil {
		b.Fatal(err)
	}
	w, err := s.Open(context.Background(), task(0))
	if err != nil {
		b.Fatal(err)
	}
	rs := benchRows()
	for i := 0; i < b.N; i += len(rs) {
		if err := w.Write(context.Background(), rs[:min(len(rs), b.N-i)]); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.PreCommit(context.Background(), 1); err != nil {
		b.Fatal(err)
	}
	w.Close()
	src, err := newSource(srcConfig(br, topic))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(100)
	b.ReportAllocs()
	b.ResetTimer()
	r, err := src.open(context.Background(), []connector.SplitState{{ID: splitID(topic, 0)}})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	n := 0
	for {
		got, err := r.Read(context.Background())
		n += len(got)
		if err != nil {
			break
		}
	}
	if n != b.N {
		b.Fatalf("read %d records, want %d", n, b.N)
	}
}
