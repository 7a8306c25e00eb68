package txn

import (
	"context"
	"fmt"
	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
)

// warming is the warm-up Warm started for transactional id id.
type warming struct {
	id    string
	w     *produce.Warming[Client]
	tv    int16 // transaction version the client is pinned to, set before w is ready
	taken bool  // a slot took the client (task goroutine only)
}

// Warm prepares the client of the transaction the first Write begins,
// while the job is still starting. It picks the transactional id that
// transaction will take (the one a new writer's first slot gets: the
// lowest index, or the next one under INCREMENTING, that holds no restored
// committable), then, in a goroutine Close stops, reads the cluster's
// transaction version, creates that id's client, loads its producer id
// (FindCoordinator, InitProducerId) and opens its produce connections.
// franz-go would do all of it only at the first record, when the job's
// sources already read at full speed and these round trips wait for the
// CPU; Warm itself sends nothing, so that opening the writer (which a
// chained source task waits for) costs no round trip.
//
// The first transaction takes that client when its slot has that id,
// waiting for the goroutine to have made it; otherwise (a restored
// committable became durable in between, and a lower id is free again) the
// warm-up is stopped, its client closed, and the slot gets a new one, as
// without Warm. Ids holding restored committables are never warmed: an
// InitProducerId on them would bump the epoch that a repeated commit of
// the restored transaction needs.
//
// ctx is the context of the sink's Open: the warm-up ends with it, or at
// Close. Call it once, right after NewWriter, from the task's goroutine, after
// the sink's recovery: the InitProducerId that fences earlier producers of
// the id then comes after recovery ended their transactions, as at a first
// Write. It never fails: on an error it warms nothing and the first Write
// meets the error again (franz-go discards a producer-id load that failed
// or was cancelled).
func (w *Writer) Warm(ctx context.Context) {
	if w.cur != nil || len(w.slots) > 0 || w.warm != nil || w.failed != nil {
		return
	}
	idx := 0
	if w.sink.cfg.Incrementing {
		idx = w.nextSeq
	}
	for w.sink.isReserved(ID(w.sink.cfg.Prefix, w.task.Index, idx), w.ack) {
		idx++
	}
	wm := &warming{id: ID(w.sink.cfg.Prefix, w.task.Index, idx)}
	wm.w = produce.Warm(ctx, func(ctx context.Context) (Client, error) {
		cl, tv, err := w.newClient(ctx, wm.id)
		wm.tv = tv
		return cl, err
	})
	w.warm = wm
}

// newClient returns a new client of transactional id id, pinned to the
// cluster's transaction version, which it also returns.
func (w *Writer) newClient(ctx context.Context, id string) (Client, int16, error) {
	tv, err := transactionVersion(ctx, w.meta)
	if err != nil {
		return nil, 0, fmt.Errorf("kafka sink: %w", err)
	}
	cl, err := w.sink.cfg.Dialer.Transactional(w.task, id, w.sink.cfg.Timeout, VersionsFor(tv))
	if err != nil {
		return nil, 0, fmt.Errorf("kafka sink: creating the client of transactional id %q: %w", id, err)
	}
	return cl, tv, nil
}

// adoptWarmed gives sl (locked, without a client) the warmed client when it
// was made for sl's id, once the warm-up has made it, and drops the warm-up
// otherwise: only the first transaction may use it.
func (w *Writer) adoptWarmed(ctx context.Context, sl *slot) {
	wm := w.warm
	if wm == nil || wm.taken {
		return
	}
	if wm.id != sl.id {
		w.dropWarmed()
		return
	}
	select {
	case <-wm.w.Ready():
	case <-ctx.Done():
		w.dropWarmed()
		return
	}
	wm.taken = true
	if cl, err := wm.w.Client(); err == nil {
		sl.client, sl.tv, sl.used = cl, wm.tv, false
	}
}

// dropWarmed stops the warm-up's goroutine and closes its client if no
// slot took it.
func (w *Writer) dropWarmed() {
	wm := w.warm
	if wm == nil {
		return
	}
	w.warm = nil
	wm.w.Stop()
	if cl, err := wm.w.Client(); !wm.taken && err == nil {
		cl.Close()
	}
}
