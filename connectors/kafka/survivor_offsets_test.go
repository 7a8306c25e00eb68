package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestSurvivorCommitsOnlyStoredOffsets: below transaction version 2 a
// writer adds the group to its transaction (AddOffsetsToTxn) before it
// sends the offsets (TxnOffsetCommit). An instance that died between the
// two left an open transaction that lists __consumer_offsets but whose
// group coordinator holds no offset of it: the survivor aborts it (its
// records must not be published without the offsets of their input, which
// the partitions' next owner would read again). One that died after its
// TxnOffsetCommit is committed, records and offsets together.
func TestSurvivorCommitsOnlyStoredOffsets(t *testing.T) {
	b := kafkatest.RequireTV1(t)
	for _, stored := range []bool{false, true} {
		name := "added-only"
		if stored {
			name = "offsets-stored"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			topic, in := b.Topic(t, 1), b.Topic(t, 1)
			base, group := kafkatest.UniqueName(t), kafkatest.UniqueName(t)+"-group"
			// The dead instance b: a record in its transaction, then the
			// group added, and (stored) its offsets sent.
			dead := b.Client(t, kgo.TransactionalID(base+"-b-0-0"), kgo.TransactionTimeout(10*time.Minute), kgo.MaxVersions(txn.VersionsFor(1)))
			if err := dead.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			if err := dead.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("dead")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			pid, epoch, err := dead.ProducerID(ctx)
			if err != nil {
				t.Fatal(err)
			}
			add := kmsg.NewPtrAddOffsetsToTxnRequest()
			add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = base+"-b-0-0", pid, epoch, group
			addResp, err := add.RequestWith(ctx, dead)
			if err == nil {
				err = kerr.ErrorForCode(addResp.ErrorCode)
			}
			if err != nil {
				t.Fatalf("AddOffsetsToTxn: %v", err)
			}
			if stored {
				req := kmsg.NewPtrTxnOffsetCommitRequest()
				req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = base+"-b-0-0", group, pid, epoch
				req.Generation = -1
				rt := kmsg.NewTxnOffsetCommitRequestTopic()
				rt.Topic = in
				rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
				rp.Partition, rp.Offset, rp.LeaderEpoch = 0, 42, -1
				rt.Partitions = append(rt.Partitions, rp)
				req.Topics = append(req.Topics, rt)
				resp, err := req.RequestWith(ctx, dead)
				if err == nil {
					for _, t := range resp.Topics {
						for _, p := range t.Partitions {
							err = kerr.ErrorForCode(p.ErrorCode)
						}
					}
				}
				if err != nil {
					t.Fatalf("TxnOffsetCommit: %v", err)
				}
			}

			// The survivor a.
			run, err := startEOS(t, eosConfig(b, topic, base+"-a", &memoryAckTracker{}))
			if err != nil {
				t.Fatal(err)
			}
			nobody := func(context.Context) (map[string]bool, error) { return map[string]bool{}, nil }
			n, err := run.sink.machinery().ResolveAbandoned(ctx, txn.Survivors{Base: base, Self: "a", Live: nobody,
				Writes: func(tp string) bool { return tp == topic }})
			if err != nil || n != 1 {
				t.Fatalf("ResolveAbandoned = %d, %v; want 1 transaction ended", n, err)
			}

			// By name: a group-wide fetch leaves out a partition whose
			// first offset is in a completing transaction.
			var o kadm.Offset
			fetch := kmsg.NewPtrOffsetFetchRequest()
			fetch.Group, fetch.RequireStable = group, true
			ft := kmsg.NewOffsetFetchRequestTopic()
			ft.Topic, ft.Partitions = in, []int32{0}
			fetch.Topics = append(fetch.Topics, ft)
			for deadline := time.Now().Add(30 * time.Second); ; {
				var resp *kmsg.OffsetFetchResponse
				resp, err = fetch.RequestWith(ctx, b.Client(t))
				if err == nil {
					err = kerr.ErrorForCode(resp.ErrorCode)
				}
				if err == nil {
					o = kadm.Offset{Topic: in, At: -1}
					for _, rt := range resp.Topics {
						for _, p := range rt.Partitions {
							o.At = p.Offset
							if e := kerr.ErrorForCode(p.ErrorCode); e != nil {
								err = e
							}
						}
					}
				}
				if err == nil || !kerr.IsRetriable(err) || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err != nil {
				t.Fatalf("fetching the group's stable offset of %s[0]: %v", in, err)
			}
			t.Logf("group offset of %s[0] after the survivor: %d", in, o.At)
			if stored {
				if o.At != 42 {
					t.Errorf("group offset of %s[0] = %d; want 42, committed with the transaction", in, o.At)
				}
				expectValues(t, b, topic, true, []string{"dead"})
				return
			}
			if o.At >= 0 {
				t.Errorf("group offset of %s[0] = %d; want none (the transaction held no offset)", in, o.At)
			}
			// Aborted: a committed record after it is all a read_committed
			// reader sees.
			if err := b.Client(t).ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("after")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			expectValues(t, b, topic, true, []string{"after"})
		})
	}
}
