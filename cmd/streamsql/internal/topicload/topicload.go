// Package topicload writes the lines of a file to a Kafka topic, one
// record per line, creating the topic when it does not exist: how
// `streamsql topic load` and `streamsql run --embedded-kafka --load` give
// the examples (and users trying a job) their input without another tool.
package topicload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// MaxLine is the longest line Load accepts (a record of 1 MiB is Kafka's
// default message.max.bytes).
const MaxLine = 1 << 20

// Options configure Load.
type Options struct {
	// Brokers are the bootstrap servers (host:port); no TLS or SASL.
	Brokers []string
	// Topic receives the records.
	Topic string
	// Partitions is the number of partitions of the topic when Load
	// creates it (default 1); an existing topic is left as it is.
	Partitions int32
}

// Load creates the topic unless it exists, then writes each line of r to
// it as a record value, in order, and returns how many it wrote once the
// broker acknowledged them all. A line is written as it is, without its
// line break (JSON lines for the json and debezium-json formats, say); an
// empty line is a record without value (a tombstone), as Debezium writes
// after a delete. The records have no key (franz-go's default partitioner
// spreads them over the partitions; a topic Load creates has one, so the
// lines keep their order). The lines are held in memory until written: it
// is meant for sample files. The error names the line that could not be
// read or written.
func Load(ctx context.Context, o Options, r io.Reader) (int, error) {
	if o.Topic == "" || len(o.Brokers) == 0 {
		return 0, errors.New("topicload: a topic and bootstrap servers are required")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(o.Brokers...), kgo.DefaultProduceTopic(o.Topic),
		// The order of the lines is kept within a partition: one request
		// in flight, retried without reordering (idempotent producer).
		kgo.MaxProduceRequestsInflightPerBroker(1))
	if err != nil {
		return 0, fmt.Errorf("topicload: %w", err)
	}
	defer cl.Close()
	parts := o.Partitions
	if parts <= 0 {
		parts = 1
	}
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, parts, -1, nil, o.Topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return 0, fmt.Errorf("topicload: creating topic %s on %v: %w", o.Topic, o.Brokers, err)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	var recs []*kgo.Record
	for sc.Scan() {
		rec := &kgo.Record{Topic: o.Topic}
		if b := sc.Bytes(); len(b) > 0 {
			rec.Value = append([]byte(nil), b...)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("topicload: line %d: %w", len(recs)+1, err)
	}
	for i, res := range cl.ProduceSync(ctx, recs...) {
		if res.Err != nil {
			return 0, fmt.Errorf("topicload: writing line %d to topic %s: %w", i+1, o.Topic, res.Err)
		}
	}
	return len(recs), nil
}
