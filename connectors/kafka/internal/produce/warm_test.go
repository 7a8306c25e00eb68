package produce

import (
	"context"
	"errors"
	"testing"
	"time"
)

// blockingClient is a Warmable whose ProducerID waits for its context.
type blockingClient struct{ loads chan struct{} }

func (c *blockingClient) ProducerID(ctx context.Context) (int64, int16, error) {
	close(c.loads)
	<-ctx.Done()
	return 0, 0, ctx.Err()
}

func (c *blockingClient) EnsureProduceConnectionIsOpen(context.Context, ...int32) error {
	return errors.New("not reached: ProducerID failed")
}

// TestWarmEndsWithItsContext: a warm-up waiting on the brokers ends when
// the context it was started with ends, without Stop, and hands out the
// client it made.
func TestWarmEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cl := &blockingClient{loads: make(chan struct{})}
	w := Warm(ctx, func(context.Context) (*blockingClient, error) { return cl, nil })
	select {
	case <-cl.loads:
	case <-time.After(waitLong):
		t.Fatal("the warm-up never loaded the producer id")
	}
	<-w.Ready()
	if got, err := w.Client(); got != cl || err != nil {
		t.Fatalf("Client() = %p, %v; want the client made, no error", got, err)
	}
	cancel()
	select {
	case <-w.Done():
	case <-time.After(waitLong):
		t.Fatal("the warm-up still runs after its context ended")
	}
	w.Stop() // after the end: returns at once
}

// TestWarmStopEndsIt: Stop cancels a warm-up whose context lives on and
// returns once its goroutine has ended; a client that failed to be made
// is reported by Client.
func TestWarmStopEndsIt(t *testing.T) {
	cl := &blockingClient{loads: make(chan struct{})}
	w := Warm(context.Background(), func(context.Context) (*blockingClient, error) { return cl, nil })
	<-cl.loads
	w.Stop()
	select {
	case <-w.Done():
	default:
		t.Fatal("Stop returned before the warm-up's goroutine ended")
	}
	failed := errors.New("no client")
	w2 := Warm(context.Background(), func(context.Context) (*blockingClient, error) { return nil, failed })
	<-w2.Ready()
	if _, err := w2.Client(); !errors.Is(err, failed) {
		t.Fatalf("Client() error = %v, want %v", err, failed)
	}
	w2.Stop()
}
