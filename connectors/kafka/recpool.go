package kafka

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// recordPool is the kgo.PoolRecords of a reader's fetching client: the
// slices of kgo.Record structs the client decodes each record batch into
// come back here once the reader has recycled every record of the batch
// (kgo.Record.Recycle), instead of a new slice per batch for the collector
// to clear and free. On uncompressed Nexmark events those slices were a
// quarter of the bytes a job allocated (BENCHMARKS.md, "The Kafka fetch").
//
// Only the Record structs are pooled, never the bytes their Key, Value and
// headers point into (the fetch response, or a batch's decompressed
// bytes, which the client allocates anew for each): rows may view those
// bytes for as long as they like. What a pooled Record must outlive is
// the reader's own use of it: the reader recycles a record only when the
// next batch is taken (reader.recycleUsed), after the runtime has asked
// for the last batch's positions (RowPosition, RejectRow).
//
// The client gets and puts from its fetch goroutines and the reader's;
// the pool is safe for concurrent use. It keeps at most
// recordPoolMaxRecords records' worth of slices.
type recordPool struct {
	mu   sync.Mutex
	free [][]kgo.Record
	held int // records of capacity in free
	// reused counts the slices GetRecords took from free (for tests).
	reused int
}

// recordPoolMaxRecords bounds what a pool keeps: 8,192 records, about
// 1.3 MB of Record structs, two batches of a producer's default 1 MB
// batches of small records. A slice waits in the pool only between the
// reader recycling a batch's last record and the client decoding the next
// fetch; what it keeps is live to the collector, and raises the heap goal
// by twice as much.
const recordPoolMaxRecords = 1 << 13

// recordPoolRound rounds a new slice's capacity up, so that batches of
// slightly different record counts reuse one another's slices.
const recordPoolRound = 256

// GetRecords implements kgo.PoolRecords: a slice of capacity at least n,
// from the pool when it holds one large enough.
func (p *recordPool) GetRecords(n int) []kgo.Record {
	p.mu.Lock()
	for i := len(p.free) - 1; i >= 0; i-- {
		if s := p.free[i]; cap(s) >= n {
			last := len(p.free) - 1
			p.free[i], p.free[last] = p.free[last], nil
			p.free = p.free[:last]
			p.held -= cap(s)
			p.reused++
			p.mu.Unlock()
			return s[:0]
		}
	}
	p.mu.Unlock()
	return make([]kgo.Record, 0, (n+recordPoolRound-1)/recordPoolRound*recordPoolRound)
}

// PutRecords implements kgo.PoolRecords. The slice is cleared first: the
// client zeroes the records it handed out as they are recycled, but not
// those of the batch it dropped (below the fetch offset, or aborted), whose
// Key and Value would otherwise keep an old fetch's bytes alive.
func (p *recordPool) PutRecords(s []kgo.Record) {
	s = s[:cap(s)]
	clear(s)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held+cap(s) > recordPoolMaxRecords {
		return
	}
	p.free = append(p.free, s)
	p.held += cap(s)
}
