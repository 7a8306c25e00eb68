package txn

import (
	"context"

	"github.com/twmb/franz-go/pkg/kadm"
)

// OpenListing is a listing of the cluster's open transactions
// (ListTransactions in state Ongoing) taken in a goroutine of its own while
// the sink starts. A fresh run's recovery (Committer.Recover with nothing
// pending) needs nothing else from the brokers: taken beside the sink's
// own start-up requests (the connection and ACL check, the brokers'
// transaction.max.timeout.ms) instead of after them, it no longer adds
// its round trips to the job's start. Recover then aborts the lingering
// transactions of that listing exactly as it does those of its own.
type OpenListing struct {
	cancel context.CancelFunc
	done   chan struct{}
	listed kadm.ListedTransactions
	err    error
}

// ListOpen starts listing the open transactions through a client of d,
// closed when the listing ends. Stop it (Committer.Close does, once it was
// handed over with Committer.ListedEarly) before it is dropped.
func ListOpen(ctx context.Context, d Dialer) *OpenListing {
	ctx, cancel := context.WithCancel(ctx)
	l := &OpenListing{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		cl, err := d.Client(nil)
		if err != nil {
			l.err = err
			return
		}
		defer cl.Close()
		l.listed, l.err = d.Admin(cl).ListTransactions(ctx, nil, []string{"Ongoing"})
	}()
	return l
}

// wait returns the listing once it has ended, or ctx's error first.
func (l *OpenListing) wait(ctx context.Context) (kadm.ListedTransactions, error) {
	select {
	case <-l.done:
		return l.listed, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Stop cancels the listing if it still runs and waits for its goroutine.
func (l *OpenListing) Stop() {
	l.cancel()
	<-l.done
}
