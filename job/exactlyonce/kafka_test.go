package exactlyonce

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// input is a test's input: records per partition, in order. Record i of
// partition p is at offset i (the producer writes them alone, in order,
// without transactions).
type input struct {
	topic string
	parts [][]inRecord
}

// inRecord is one input record.
type inRecord struct {
	key, value []byte
}

// produce writes in's records to its topic, each partition in order, in
// batches of batch records every pace (all at once when pace is 0). It
// returns at once; wait waits for the last record's acknowledgement and
// fails the test if any write failed. The producer stops when the test
// ends.
func (in input) produce(t *testing.T, b kafkatest.Broker, batch int, pace time.Duration) (wait func()) {
	t.Helper()
	cl := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MaxBufferedRecords(100000),
		kgo.ProducerLinger(0), kgo.RequiredAcks(kgo.AllISRAcks()))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		var tick *time.Ticker
		if pace > 0 {
			tick = time.NewTicker(pace)
			defer tick.Stop()
		}
		for i := 0; ; i += batch {
			more := false
			for p, recs := range in.parts {
				for _, r := range recs[min(i, len(recs)):min(i+batch, len(recs))] {
					more = true
					cl.Produce(ctx, &kgo.Record{Topic: in.topic, Partition: int32(p), Key: r.key, Value: r.value}, func(_ *kgo.Record, err error) {
						if err != nil {
							select {
							case errs <- err:
							default:
							}
						}
					})
				}
			}
			if !more {
				break
			}
			if tick != nil {
				select {
				case <-tick.C:
				case <-ctx.Done():
					return
				}
			}
		}
		if err := cl.Flush(ctx); err != nil {
			select {
			case errs <- err:
			default:
			}
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return func() {
		t.Helper()
		wg.Wait()
		select {
		case err := <-errs:
			t.Fatalf("producing the input to %s: %v", in.topic, err)
		default:
		}
	}
}

// specificOffsets returns the value of 'scan.bounded.specific-offsets'
// that ends each partition after its last input record.
func (in input) specificOffsets() string {
	var b strings.Builder
	for p, recs := range in.parts {
		if p > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "partition:%d,offset:%d", p, len(recs))
	}
	return b.String()
}

// committed reads what a read_committed consumer sees of topic once no
// transaction is open on it: every committed record of each partition, in
// offset order. It waits (kafkatest's AwaitStable) until the last stable
// offset of every partition is its high watermark, then reads
// committedNow.
func committed(t *testing.T, b kafkatest.Broker, topic string) map[int32][]*kgo.Record {
	t.Helper()
	b.AwaitStable(t, topic)
	return committedNow(t, b, topic)
}

// committedNow reads the committed records of topic below the last stable
// offsets of its partitions now: it fetches each
// partition up to exactly that offset with raw Fetch requests at isolation
// read_committed, decoded by franz-go (kgo.ProcessFetchPartition), so
// that it neither stops early nor waits on a guess. It shares no code with
// the connector's reader.
func committedNow(t *testing.T, b kafkatest.Broker, topic string) map[int32][]*kgo.Record {
	t.Helper()
	cl := b.Client(t)
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	md, err := adm.Metadata(ctx, topic)
	if err != nil {
		t.Fatalf("metadata of %s: %v", topic, err)
	}
	td, ok := md.Topics[topic]
	if !ok || td.Err != nil {
		t.Fatalf("metadata of %s: %v", topic, td.Err)
	}
	start, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = start.Error()
	}
	if err != nil {
		t.Fatalf("start offsets of %s: %v", topic, err)
	}
	stable, err := adm.ListCommittedOffsets(ctx, topic)
	if err == nil {
		err = stable.Error()
	}
	if err != nil {
		t.Fatalf("last stable offsets of %s: %v", topic, err)
	}
	out := map[int32][]*kgo.Record{}
	for _, p := range slices.Sorted(maps.Keys(td.Partitions)) {
		from, _ := start.Lookup(topic, p)
		to, _ := stable.Lookup(topic, p)
		out[p] = fetchCommitted(t, ctx, cl, topic, [16]byte(td.ID), p, td.Partitions[p].Leader, from.Offset, to.Offset)
	}
	return out
}

// fetchCommitted fetches partition p of topic from offset from to offset
// to (excluded) at isolation read_committed.
func fetchCommitted(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, id [16]byte, p, leader int32, from, to int64) []*kgo.Record {
	t.Helper()
	var out []*kgo.Record
	stalls := 0
	for off := from; off < to; {
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID = -1
		req.MaxWaitMillis = 100
		req.MaxBytes = 16 << 20
		req.IsolationLevel = 1
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic, rt.TopicID = topic, id
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = p, off, 8<<20
		rp.CurrentLeaderEpoch, rp.LogStartOffset = -1, -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl.Broker(int(leader)))
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err != nil {
			t.Fatalf("fetching %s/%d at %d: %v", topic, p, off, err)
		}
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			t.Fatalf("fetching %s/%d at %d: a response of %d topics", topic, p, off, len(resp.Topics))
		}
		fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Offset: off, IsolationLevel: kgo.ReadCommitted(),
			Topic: topic, Partition: p}, &resp.Topics[0].Partitions[0], kgo.DefaultDecompressor(), nil)
		if fp.Err != nil {
			t.Fatalf("fetching %s/%d at %d: %v", topic, p, off, fp.Err)
		}
		for _, r := range fp.Records {
			if r.Offset < to {
				out = append(out, r)
			}
		}
		if next <= off {
			if stalls++; stalls > 50 {
				t.Fatalf("fetching %s/%d: no progress at offset %d (last stable offset %d)", topic, p, off, to)
			}
			continue
		}
		stalls, off = 0, next
	}
	return out
}

// boundedSource is the WITH options of a crash test's Kafka source of
// json records: topic read from the earliest offset up to the end in (its
// specific offsets), read_committed, 64 records a poll, par tasks.
func boundedSource(b kafkatest.Broker, topic string, in input, par int) string {
	return `'connector' = 'kafka', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset',
  'topic' = '` + topic + `', 'properties.bootstrap.servers' = '` + b.Addr + `',
  'properties.isolation.level' = 'read_committed', 'properties.max.poll.records' = '64',
  'scan.bounded.mode' = 'specific-offsets', 'scan.bounded.specific-offsets' = '` + in.specificOffsets() + `',
  'scan.parallelism' = '` + strconv.Itoa(par) + `'`
}

// exactlyOnceSink is the WITH options, but the connector and formats, of a
// crash test's exactly-once Kafka sink into topic, with transactional ids
// prefixed txnPrefix, par tasks.
func exactlyOnceSink(b kafkatest.Broker, topic, txnPrefix string, par int) string {
	return `'topic' = '` + topic + `', 'properties.bootstrap.servers' = '` + b.Addr + `',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + txnPrefix + `',
  'sink.parallelism' = '` + strconv.Itoa(par) + `'`
}
