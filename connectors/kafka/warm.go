package kafka

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"
)

// warmUp prepares a producing client for its first record while the job
// is still starting: it loads the producer id (InitProducerId, for an
// idempotent or transactional client) and opens a produce connection to
// every broker. franz-go does both only when the first record is
// produced, which on a starting job is when its sources already read and
// decode at full speed, and the start-up round trips then wait for the
// CPU: on the benchmark they were most of the time from start to the
// first output record (BENCHMARKS.md, "Record-path changes").
//
// It runs in a goroutine of its own and never fails anything: an error
// here (a broker down, a missing ACL) is met again by the first produce,
// which reports it as before. franz-go discards a producer-id load that
// failed or was cancelled, so the first produce loads it again.
type warmUp struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startWarmUp starts warming cl. Stop it before closing cl.
func startWarmUp(cl *kgo.Client) *warmUp {
	ctx, cancel := context.WithCancel(context.Background())
	w := &warmUp{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		if _, _, err := cl.ProducerID(ctx); err != nil {
			return
		}
		_ = cl.EnsureProduceConnectionIsOpen(ctx)
	}()
	return w
}

// stop cancels the warm-up and waits for its goroutine to end.
func (w *warmUp) stop() {
	w.cancel()
	<-w.done
}
