package embedkafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestTransactionalRoundTrip(t *testing.T) {
	b, err := Start(Options{Partitions: 2, Topics: []string{"quick"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DefaultProduceTopic("quick"), kgo.TransactionalID("t1"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := p.ProduceSync(ctx, kgo.StringRecord("a"), kgo.StringRecord("b")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := p.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	c, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumeTopics("quick"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got int
	for got < 2 {
		fs := c.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of 2 committed records before the deadline", got)
		}
		got += len(fs.Records())
	}
}

func TestAddressChecks(t *testing.T) {
	for _, addr := range []string{"10.1.2.3:9092", "nohost", "127.0.0.1:99999"} {
		if b, err := Start(Options{Addr: addr}); err == nil {
			b.Close()
			t.Errorf("Start(%q) succeeded, want an error", addr)
		}
	}
}

func TestCreateTopics(t *testing.T) {
	b, err := Start(Options{Partitions: 3, Topics: []string{"seeded"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// An existing topic is left as it is; new ones get the broker's partitions.
	if err := b.CreateTopics(ctx, "seeded", "orders", "payments"); err != nil {
		t.Fatal(err)
	}
	if err := b.CreateTopics(ctx); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"seeded", "orders", "payments"} {
		d, ok := td[name]
		if !ok || d.Err != nil || len(d.Partitions) != 3 {
			t.Errorf("topic %s: %+v", name, d)
		}
	}
}
