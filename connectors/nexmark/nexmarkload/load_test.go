package nexmarkload_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/connectors/nexmark/nexmarkload"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestLoadRealBroker fills a topic of a real broker with 20,000 events of
// two generators, reads it back with an independent consumer and checks
// that it holds exactly the JSON of every generated event, once.
func TestLoadRealBroker(t *testing.T) {
	b := kafkatest.Require(t)
	topic := b.Topic(t, 3)
	cfg, err := nexmark.ConfigFromOptions(map[string]string{"events.num": "20000", "scan.parallelism": "2", "seed": "9",
		"base-time": "2024-05-01 00:00:00"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := nexmarkload.Load(ctx, nexmarkload.Options{Brokers: []string{b.Addr}, Topic: topic, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 20000 || res.Bytes <= 0 {
		t.Fatalf("Load = %+v, want 20000 events", res)
	}

	m, err := nexmark.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var ev nexmark.Event
	var types [3]int
	for i := range cfg.Generators {
		g := m.NewGenerator(i)
		for g.HasNext() {
			g.Next(&ev)
			types[ev.Type]++
			want = append(want, string(nexmark.AppendJSON(nil, &ev)))
		}
	}
	if types != [3]int{400, 1200, 18400} {
		t.Fatalf("generated persons, auctions, bids = %v", types)
	}
	recs := b.Consume(t, topic, true, time.Minute, func(r []*kgo.Record) bool { return len(r) >= 20000 })
	got := kafkatest.Values(recs)
	if len(got) != len(want) {
		t.Fatalf("read %d records, want %d", len(got), len(want))
	}
	slices.Sort(got)
	slices.Sort(want)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("the topic's records differ from the generated events' JSON:\n got %s\nwant %s", got[i], want[i])
		}
	}
	parts := map[int32]int{}
	for _, r := range recs {
		parts[r.Partition]++
	}
	t.Logf("loaded %d events, %d bytes in %v; records per partition %v", res.Events, res.Bytes, res.Elapsed, parts)
}

// TestLoadRefusesUnbounded checks that an unbounded configuration is an
// error, before connecting anywhere.
func TestLoadRefusesUnbounded(t *testing.T) {
	cfg, err := nexmark.ConfigFromOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = nexmarkload.Load(context.Background(), nexmarkload.Options{Brokers: []string{"127.0.0.1:1"}, Topic: "t", Config: cfg})
	if !errors.Is(err, nexmarkload.ErrUnbounded) {
		t.Fatalf("Load = %v, want ErrUnbounded", err)
	}
}
