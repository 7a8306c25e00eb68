// Package embedkafka runs an in-process Kafka-protocol broker (franz-go's
// kfake) for streamsql's quick start: a job can run end to end on a machine
// without Kafka, and other clients (kcat, a second streamsql) can connect to
// the printed address.
//
// It is only ever started on an explicit request (the CLI's
// --embedded-kafka flag); it is never substituted for a configured broker.
// kfake implements transactions (both transaction versions), isolation
// levels and consumer groups closely enough for a demonstration, but it is
// not Apache Kafka: behaviour that matters is tested against a real broker.
package embedkafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Options configure the embedded broker.
type Options struct {
	// Addr is the host:port to listen on; the host must be a loopback
	// address (kfake listens on 127.0.0.1). Empty or port 0 picks a free
	// port.
	Addr string
	// DataDir keeps the broker's data in this directory across runs; empty
	// keeps it in memory.
	DataDir string
	// Partitions is the number of partitions of the topics it creates
	// (default 1).
	Partitions int
	// Topics are created at start. Clients that do not ask for automatic
	// topic creation (streamsql's Kafka connector does not) need the
	// topics they use to exist; the CLI passes the topics of the job's
	// Kafka tables.
	Topics []string
}

// Broker is a running embedded broker.
type Broker struct {
	cluster    *kfake.Cluster
	addr       string
	partitions int32
}

// Start starts a single-broker cluster with the given topics. Clients that
// ask for automatic topic creation get their topics created on first use.
func Start(o Options) (*Broker, error) {
	port := 0
	if o.Addr != "" {
		host, p, err := net.SplitHostPort(o.Addr)
		if err != nil {
			return nil, fmt.Errorf("embedded Kafka: address %q: %w", o.Addr, err)
		}
		if ip := net.ParseIP(host); host != "" && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("embedded Kafka: address %q: only loopback addresses are supported", o.Addr)
		}
		if port, err = strconv.Atoi(p); err != nil || port < 0 || port > 65535 {
			return nil, fmt.Errorf("embedded Kafka: address %q: bad port", o.Addr)
		}
	}
	if port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("embedded Kafka: finding a free port: %w", err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	parts := o.Partitions
	if parts <= 0 {
		parts = 1
	}
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port), kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(parts)}
	if len(o.Topics) > 0 {
		opts = append(opts, kfake.SeedTopics(int32(parts), o.Topics...))
	}
	if o.DataDir != "" {
		opts = append(opts, kfake.DataDir(o.DataDir))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("embedded Kafka: %w", err)
	}
	return &Broker{cluster: c, addr: c.ListenAddrs()[0], partitions: int32(parts)}, nil
}

// Addr returns the broker's host:port.
func (b *Broker) Addr() string { return b.addr }

// Close stops the broker.
func (b *Broker) Close() { b.cluster.Close() }

// CreateTopics creates the topics that do not exist yet, with the broker's
// number of partitions; existing topics are left as they are.
func (b *Broker) CreateTopics(ctx context.Context, topics ...string) error {
	if len(topics) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.addr))
	if err != nil {
		return fmt.Errorf("embedded Kafka: %w", err)
	}
	defer cl.Close()
	resp, err := kadm.NewClient(cl).CreateTopics(ctx, b.partitions, 1, nil, topics...)
	if err != nil {
		return fmt.Errorf("embedded Kafka: creating topics: %w", err)
	}
	for _, r := range resp.Sorted() {
		if r.Err != nil && !errors.Is(r.Err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("embedded Kafka: creating topic %q: %w", r.Topic, r.Err)
		}
	}
	return nil
}
