package kafka

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/streamsql/streamsql/connectors/kafka/internal/txn"
	"github.com/streamsql/streamsql/factory"
)

// scaleJobKey is the key of a scaled-out job's Kafka tables in
// factory.JobShared.
const scaleJobKey = "kafka.scale-out"

// survivorTimeout bounds the survivor pass of a run's start.
const survivorTimeout = 20 * time.Second

// scaleJob is what the Kafka tables of one scaled-out job share: its
// sources, whose consumer groups say which instances are alive, and its
// exactly-once sinks, whose transactions left open by instances that are
// gone the others end (survive).
type scaleJob struct {
	mu      sync.Mutex
	sources []*source
	sinks   []*exactlyOnceSink
}

// scaleJobOf returns the scaled-out job's shared tables (nil when the job
// is not known).
func scaleJobOf(shared *factory.JobShared) *scaleJob {
	if shared == nil {
		return nil
	}
	return shared.Value(scaleJobKey, func() any { return &scaleJob{} }).(*scaleJob)
}

func (j *scaleJob) addSource(s *source) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.sources = append(j.sources, s)
	s.job = j
}

func (j *scaleJob) addSink(s *exactlyOnceSink) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.sinks = append(j.sinks, s)
}

// survive ends the transactions that instances no longer in the job's
// consumer groups left open in its exactly-once sinks
// (txn.Sink.ResolveAbandoned). A source calls it when the group has
// assigned this instance partitions, before its readers fetch the
// group's offsets: those of an instance that died between its offset
// commit and its EndTxn stay unstable until its transaction ends. Failures
// are logged: the broker's transaction timeout still ends them.
func (j *scaleJob) survive(ctx context.Context, log *slog.Logger) {
	j.mu.Lock()
	sources, sinks := slices.Clone(j.sources), slices.Clone(j.sinks)
	j.mu.Unlock()
	live := func(ctx context.Context) (map[string]bool, error) {
		out := map[string]bool{}
		for _, s := range sources {
			if err := s.groupInstances(ctx, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var bases []string
	for _, sk := range sinks {
		bases = append(bases, sk.base)
	}
	// An exactly-once sink writes the dead letters of the job's sources
	// on its cluster in its transactions: a transaction of an instance
	// that is gone may hold them beside the sink's records.
	var deadLetters []string
	for _, s := range sources {
		if s.cfg.BadRecordPolicy == deadLetterBadRecords && s.cfg.DeadLetterTopic != "" {
			deadLetters = append(deadLetters, s.cfg.DeadLetterTopic)
		}
	}
	for _, sk := range sinks {
		if err := sk.resolveAbandoned(ctx, live, bases, deadLetters); err != nil {
			log.Warn("kafka sink: could not end the transactions of instances that left the job (the broker's transaction timeout ends them)",
				"prefix", sk.TransactionalIDPrefix(), "error", err)
		}
	}
}

// groupInstances adds the instance ids of the members of the source's
// group to out.
func (s *source) groupInstances(ctx context.Context, out map[string]bool) error {
	cl, err := s.newClient()
	if err != nil {
		return err
	}
	defer cl.Close()
	groups, err := kadm.NewClient(cl).DescribeGroups(ctx, s.settings.groupID)
	if err == nil {
		err = groups.Error()
	}
	if err != nil {
		return fmt.Errorf("group %q: %w", s.settings.groupID, err)
	}
	for _, m := range groups[s.settings.groupID].Members {
		if m.InstanceID != nil {
			out[*m.InstanceID] = true
		}
	}
	return nil
}

// resolveAbandoned ends the abandoned transactions of the sink's ids (see
// scaleJob.survive): those that write the sink's topics and, in
// deadLetters, the dead-letter topics of the job's sources, which the sink
// writes in its transactions (connector.DeadLetterWriter).
func (s *exactlyOnceSink) resolveAbandoned(ctx context.Context, live func(context.Context) (map[string]bool, error), bases, deadLetters []string) error {
	if s.base == "" {
		return nil
	}
	if err := s.start(ctx); err != nil {
		return err
	}
	writes := func(topic string) bool { return s.cfg.writesTopic(topic) || slices.Contains(deadLetters, topic) }
	_, err := s.machinery().ResolveAbandoned(ctx, txn.Survivors{Base: s.base, Self: s.instance, Live: live, Writes: writes, Others: bases})
	return err
}

// writesTopic reports whether the sink may write topic.
func (cfg *sinkConfig) writesTopic(topic string) bool {
	return topic == cfg.Topic || slices.Contains(cfg.AllowedTopics, topic) ||
		(cfg.TopicPattern != nil && anchored(cfg.TopicPattern).MatchString(topic))
}
