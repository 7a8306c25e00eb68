package txn

import (
	"context"
)

// warmer is what a warm-up needs of a producing client; *kgo.Client has it
// (test fakes need not).
type warmer interface {
	ProducerID(ctx context.Context) (int64, int16, error)
	EnsureProduceConnectionIsOpen(ctx context.Context, brokers ...int32) error
}

// warmedClient is the client Warm made for transactional id id, pinned to
// transaction version tv.
type warmedClient struct {
	id string
	cl Client
	tv int16
}

// Warm prepares the client of the transaction the first Write begins,
// while the job is still starting: it reads the cluster's transaction
// version and creates the client of the transactional id that transaction
// will take (the one a new writer's first slot gets: the lowest index, or
// the next one under INCREMENTING, that holds no restored committable),
// then, in a goroutine Close stops, loads its producer id (FindCoordinator,
// InitProducerId) and opens its produce connections. franz-go would do all
// of it only at the first record, when the job's sources already read at
// full speed and these round trips wait for the CPU.
//
// The first transaction takes that client when its slot has that id;
// otherwise (a restored committable became durable in between, and a lower
// id is free again) the client is closed and the slot gets a new one, as
// without Warm. Ids holding restored committables are never warmed: an
// InitProducerId on them would bump the epoch that a repeated commit of
// the restored transaction needs.
//
// Call it once, right after NewWriter, from the task's goroutine, after
// the sink's recovery: the InitProducerId that fences earlier producers of
// the id then comes after recovery ended their transactions, as at a first
// Write. It never fails: on an error it warms nothing and the first Write
// meets the error again (franz-go discards a producer-id load that failed
// or was cancelled).
func (w *Writer) Warm(ctx context.Context) {
	if w.cur != nil || len(w.slots) > 0 || w.warmed != nil || w.failed != nil {
		return
	}
	tv, err := transactionVersion(ctx, w.meta)
	if err != nil {
		return
	}
	idx := 0
	if w.sink.cfg.Incrementing {
		idx = w.nextSeq
	}
	for w.sink.isReserved(ID(w.sink.cfg.Prefix, w.task.Index, idx), w.ack) {
		idx++
	}
	id := ID(w.sink.cfg.Prefix, w.task.Index, idx)
	cl, err := w.sink.cfg.Dialer.Transactional(w.task, id, w.sink.cfg.Timeout, VersionsFor(tv))
	if err != nil {
		return
	}
	w.warmed = &warmedClient{id: id, cl: cl, tv: tv}
	wm, ok := cl.(warmer)
	if !ok {
		return
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	w.stopWarm = func() {
		cancel()
		<-done
	}
	go func() {
		defer close(done)
		if _, _, err := wm.ProducerID(wctx); err != nil {
			return
		}
		_ = wm.EnsureProduceConnectionIsOpen(wctx)
	}()
}

// adoptWarmed gives sl (locked, without a client) the warmed client when it
// was made for sl's id, and drops the warmed client otherwise: only the
// first transaction may use it.
func (w *Writer) adoptWarmed(sl *slot) {
	wc := w.warmed
	if wc == nil {
		return
	}
	if wc.id != sl.id {
		w.dropWarmed()
		return
	}
	w.warmed = nil
	sl.client, sl.tv, sl.used = wc.cl, wc.tv, false
}

// dropWarmed stops the warm-up and closes the warmed client if no slot
// took it.
func (w *Writer) dropWarmed() {
	if w.stopWarm != nil {
		w.stopWarm()
		w.stopWarm = nil
	}
	if w.warmed != nil {
		w.warmed.cl.Close()
		w.warmed = nil
	}
}
