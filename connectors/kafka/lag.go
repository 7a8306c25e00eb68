package kafka

import (
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connector"
)

// partLag is a partition's position and end offsets as the reader
// publishes them for PartitionLags, which runs on other goroutines. The
// read goroutine stores them once per partition per fetch and per batch,
// never per record.
type partLag struct {
	topic     string
	partition int32
	// pos is the next offset; hwm and lso the latest fetch response's
	// high watermark and last stable offset; end the bounded end offset
	// (-1: unbounded); each -1 until known.
	pos, hwm, lso, end atomic.Int64
}

// lagTable lists the partLag of each partition the reader has.
type lagTable struct {
	mu    sync.Mutex
	parts []*partLag
}

// publishPos publishes st's position (read goroutine only).
func (r *reader) publishPos(st *partState) {
	if st.lag == nil {
		l := &partLag{topic: st.tp.topic, partition: st.tp.partition}
		l.hwm.Store(-1)
		l.lso.Store(-1)
		r.lag.mu.Lock()
		r.lag.parts = append(r.lag.parts, l)
		r.lag.mu.Unlock()
		st.lag = l
	}
	st.lag.end.Store(st.end)
	if st.done && st.end >= 0 {
		st.lag.pos.Store(st.end)
		return
	}
	st.lag.pos.Store(st.next)
}

// noteFetched publishes the end offsets a fetch response reported for one
// partition, and the partition's position (read goroutine only).
func (r *reader) noteFetched(p *kgo.FetchTopicPartition) {
	st := r.parts[topicPartition{p.Topic, p.Partition}]
	if st == nil {
		return
	}
	r.publishPos(st)
	st.lag.hwm.Store(p.HighWatermark)
	st.lag.lso.Store(p.LastStableOffset)
}

// PartitionLags appends the position, end offsets and lag of each
// partition of the reader to dst (connector.LagReporter). The end a lag
// is measured to is the last stable offset under read_committed, else the
// high watermark, and the bounded end offset when that is lower; a lag
// whose end is unknown yet is -1. It is safe for concurrent use.
func (r *reader) PartitionLags(dst []connector.PartitionLag) []connector.PartitionLag {
	committed := r.src.settings.readCommitted
	r.lag.mu.Lock()
	defer r.lag.mu.Unlock()
	for _, l := range r.lag.parts {
		pl := connector.PartitionLag{Topic: l.topic, Partition: l.partition, Position: l.pos.Load(),
			HighWatermark: l.hwm.Load(), LastStableOffset: l.lso.Load(), Lag: -1}
		end := pl.HighWatermark
		if committed {
			end = pl.LastStableOffset
		}
		if e := l.end.Load(); e >= 0 && (end < 0 || e < end) {
			end = e
		}
		if end >= 0 && pl.Position >= 0 {
			pl.Lag = max(end-pl.Position, 0)
		}
		dst = append(dst, pl)
	}
	return dst
}
