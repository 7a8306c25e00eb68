package txn

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
)

// AckTracker tells a Writer whether the commit of a committable has been
// acknowledged durably (package kafka's ackTracker). It must be safe for concurrent
// use.
type AckTracker interface {
	IsDurablyCommitted(c connector.Committable) bool
}

// Config is what the machinery of one exactly-once sink needs from the
// sink, resolved before the first writer or committer is made.
type Config struct {
	// Prefix is the transactional-id prefix; ids are <prefix>-<task>-<slot>.
	Prefix string
	// Incrementing gives every transaction a new id (INCREMENTING); false
	// reuses a pool of ids per task (POOLING).
	Incrementing bool
	// MaxSlots is the least size of a task's pool of ids.
	MaxSlots int
	// Timeout is the transaction timeout in use.
	Timeout time.Duration
	// ClusterID is the sink's cluster id ("" when it could not be read):
	// group positions of that cluster are committed in its transactions.
	ClusterID string
	// Logger receives warnings and notes.
	Logger *slog.Logger
	// Dialer makes the clients of the sink's cluster.
	Dialer Dialer
	// Unhealthy names the brokers the sink's clients cannot reach.
	Unhealthy func() string
	// DeadLetters, when set, returns the record path of a source's dead
	// letters in the sink's transactions (Writer.WriteDeadLetters): dl is
	// the source's dead-letter sink; an error says this sink cannot write
	// its records. Each writer calls it once per dl, with its own context
	// (NewWriter's), and owns the Producer.
	DeadLetters func(ctx context.Context, dl connector.Sink) (*produce.Producer, error)
}

// Sink is the transaction machinery of one exactly-once sink in this
// process: its writers and its committer share its registry of
// transactional ids.
type Sink struct {
	cfg Config

	mu sync.Mutex
	// slots are the live slots of this process's writers, by transactional
	// id, so that the committer commits on the slot's own client.
	slots map[string]*slot
	// reserved are committables restored by Recover, by transactional id:
	// their ids are not reused until their commit is durably acknowledged.
	reserved map[string]connector.Committable
}

// NewSink returns the machinery of a sink configured by cfg.
func NewSink(cfg Config) *Sink {
	return &Sink{cfg: cfg, slots: map[string]*slot{}, reserved: map[string]connector.Committable{}}
}

// TransactionTimeout is the transaction timeout in use.
func (s *Sink) TransactionTimeout() time.Duration { return s.cfg.Timeout }

func (s *Sink) register(sl *slot) {
	s.mu.Lock()
	s.slots[sl.id] = sl
	s.mu.Unlock()
}

func (s *Sink) unregister(sl *slot) {
	s.mu.Lock()
	if s.slots[sl.id] == sl {
		delete(s.slots, sl.id)
	}
	s.mu.Unlock()
}

func (s *Sink) lookup(id string) *slot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slots[id]
}

func (s *Sink) reserve(id string, c connector.Committable) {
	s.mu.Lock()
	s.reserved[id] = c
	s.mu.Unlock()
}

// nextIndex returns one more than the highest slot index of task among
// the restored committables (0 when there is none).
func (s *Sink) nextIndex(task int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := 0
	for id := range s.reserved {
		if t, sl, ok := ParseID(s.cfg.Prefix, id); ok && t == task && sl >= next {
			next = sl + 1
		}
	}
	return next
}

// isReserved reports whether id holds a restored committable whose commit
// is not yet durably acknowledged (by ack, the asking writer's tracker).
func (s *Sink) isReserved(id string, ack AckTracker) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.reserved[id]
	if !ok {
		return false
	}
	if ack.IsDurablyCommitted(c) {
		delete(s.reserved, id)
		return false
	}
	return true
}
