package produce

import "context"

// Warmable is what a warm-up needs of a producing client; *kgo.Client has
// it (test fakes need not).
type Warmable interface {
	ProducerID(ctx context.Context) (int64, int16, error)
	EnsureProduceConnectionIsOpen(ctx context.Context, brokers ...int32) error
}

// Warming prepares a producing client for its first record while the job
// is still starting, in a goroutine of its own: it makes the client (that
// may send requests of its own, such as reading the cluster's transaction
// version), loads its producer id (InitProducerId, for an idempotent or
// transactional client) and opens a produce connection to every broker.
// franz-go does the last two only when the first record is produced, which
// on a starting job is when its sources already read and decode at full
// speed, and these round trips then wait for the CPU: on the benchmark
// they were most of the time from start to the first output record
// (BENCHMARKS.md, "Record-path changes").
//
// A warm-up never fails anything: an error (a broker down, a missing ACL)
// is met again by the first produce, which reports it as before; franz-go
// discards a producer-id load that failed or was cancelled, so the first
// produce loads it again.
type Warming[C any] struct {
	cancel context.CancelFunc
	ready  chan struct{} // closed once newClient returned
	done   chan struct{} // closed when the goroutine ends
	cl     C
	err    error
}

// Warm starts warming the client newClient returns. The goroutine ends
// when ctx does, or at Stop, which the writer calls before it closes the
// client.
func Warm[C any](ctx context.Context, newClient func(ctx context.Context) (C, error)) *Warming[C] {
	ctx, cancel := context.WithCancel(ctx)
	w := &Warming[C]{cancel: cancel, ready: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.cl, w.err = newClient(ctx)
		close(w.ready)
		if w.err != nil {
			return
		}
		if c, ok := any(w.cl).(Warmable); ok {
			if _, _, err := c.ProducerID(ctx); err == nil {
				_ = c.EnsureProduceConnectionIsOpen(ctx)
			}
		}
	}()
	return w
}

// Ready is closed once the client is made (or failed to be): Client may
// be called then.
func (w *Warming[C]) Ready() <-chan struct{} { return w.ready }

// Client returns the client newClient returned, or its error; call it
// after Ready is closed.
func (w *Warming[C]) Client() (C, error) { return w.cl, w.err }

// Done is closed when the warm-up's goroutine has ended.
func (w *Warming[C]) Done() <-chan struct{} { return w.done }

// Stop cancels the warm-up and waits for its goroutine to end. The client
// stays open: closing it is the caller's.
func (w *Warming[C]) Stop() {
	w.cancel()
	<-w.done
}
