package kafka

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestTimeoutFallback: when the broker refuses DescribeConfigs, the
// transaction timeout is Kafka's default, with a warning. (kfake stands in
// for a broker whose ACLs forbid describing its configuration.)
func TestTimeoutFallback(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.ControlKey(kmsg.DescribeConfigs.Int16(), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		r := req.(*kmsg.DescribeConfigsRequest)
		resp := r.ResponseKind().(*kmsg.DescribeConfigsResponse)
		for _, res := range r.Resources {
			rr := kmsg.NewDescribeConfigsResponseResource()
			rr.ResourceType, rr.ResourceName = res.ResourceType, res.ResourceName
			rr.ErrorCode = kerr.ClusterAuthorizationFailed.Code
			resp.Resources = append(resp.Resources, rr)
		}
		return resp, nil, true
	})
	var logs bytes.Buffer
	cfg := sinkConfig{Topic: "t", Properties: map[string]string{"bootstrap.servers": c.ListenAddrs()[0]}, Encoder: kvEncoder,
		DeliveryGuarantee: exactlyOnce, TransactionalIDPrefix: "p", AckTracker: &memoryAckTracker{},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	s, err := newSink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := s.(*exactlyOnceSink)
	if err := ts.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := ts.TransactionTimeout(); got != DefaultTransactionTimeout {
		t.Fatalf("transaction timeout %v, want the fallback %v", got, DefaultTransactionTimeout)
	}
	if !strings.Contains(logs.String(), "transaction.max.timeout.ms") || !strings.Contains(logs.String(), "WARN") {
		t.Fatalf("no warning logged: %q", logs.String())
	}
	// A configured timeout stands when the maximum is unknown.
	cfg.Properties["transaction.timeout.ms"] = "3600000"
	if s, err = newSink(cfg); err != nil {
		t.Fatal(err)
	}
	ts = s.(*exactlyOnceSink)
	if err := ts.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := ts.TransactionTimeout(); got != time.Hour {
		t.Fatalf("transaction timeout %v, want the configured 1h", got)
	}
}

// TestEndTxnVersions: the committer's raw clients send EndTxn v4 for
// transactions of version 0/1 and v5 for version 2 (the broker supports
// both).
func TestEndTxnVersions(t *testing.T) {
	t.Parallel()
	b := kafkatest.Require(t)
	s, err := newSink(eosConfig(b, "unused", kafkatest.UniqueName(t), &memoryAckTracker{}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.(*exactlyOnceSink).Committer(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	cm := c.(*txn.Committer)
	defer cm.Close()
	for _, tc := range []struct{ tv, want int16 }{{0, 4}, {1, 4}, {2, 5}} {
		if v, _ := txn.VersionsFor(tc.tv).LookupMaxKeyVersion(kmsg.EndTxn.Int16()); v != tc.want {
			t.Fatalf("txn.VersionsFor(%d) allows EndTxn v%d, want v%d", tc.tv, v, tc.want)
		}
		req := kmsg.NewPtrEndTxnRequest()
		req.TransactionalID, req.ProducerID, req.ProducerEpoch = kafkatest.UniqueName(t), 1, 0
		if _, err := req.RequestWith(context.Background(), cm.RawClient(tc.tv)); err != nil {
			t.Fatal(err)
		}
		if got := req.GetVersion(); got != tc.want {
			t.Fatalf("transaction version %d: EndTxn sent as v%d, want v%d", tc.tv, got, tc.want)
		}
	}
}
