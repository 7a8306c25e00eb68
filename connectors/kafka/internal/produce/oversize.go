package produce

import (
	"encoding/binary"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Oversize decides what becomes of a record larger than its topic
// accepts, before the client has it: a record the brokers refuse with
// MESSAGE_TOO_LARGE would fail the transaction (and every retry of it).
type Oversize interface {
	// Limit returns the largest record batch topic accepts, in bytes.
	Limit(topic string) int
	// TooLarge is called for a record whose batch would be size bytes,
	// above limit. It returns OversizeFail with the error that fails the
	// write, OversizeSkip to drop the record, or OversizeProduce after
	// rewriting r (for another topic: a dead letter), which is measured
	// again against its new topic.
	TooLarge(r *kgo.Record, size, limit int) (OversizeAction, error)
}

// OversizeAction is what Oversize.TooLarge decided.
type OversizeAction uint8

// The actions.
const (
	OversizeFail OversizeAction = iota
	OversizeSkip
	OversizeProduce
)

// Compressor compresses src, appending to dst, as the client's codec
// compresses a batch's records (nil: the batches are not compressed).
type Compressor func(dst, src []byte) []byte

// SetOversize makes Produce measure each record and hand those too large
// for their topic to o; compress, when not nil, is the client's codec: a
// record larger than its limit uncompressed is compressed once to
// measure it as the broker will. Call it before the first Produce.
func (p *Producer) SetOversize(o Oversize, compress Compressor) { p.over, p.compress = o, compress }

// measure applies p.over to r: skip reports a record to drop.
func (p *Producer) measure(r *kgo.Record) (skip bool, err error) {
	for range 2 { // a rewritten record is measured once more
		size, limit := BatchSize(r), p.over.Limit(r.Topic)
		if limit <= 0 || size <= limit {
			return false, nil
		}
		if p.compress != nil {
			// Rare: only records too large uncompressed are compressed
			// here, to be measured as the broker measures them.
			p.scratch = appendRecord(p.scratch[:0], r)
			p.zipped = p.compress(p.zipped[:0], p.scratch)
			if size = recordBatchOverhead + len(p.zipped); size <= limit {
				return false, nil
			}
		}
		act, err := p.over.TooLarge(r, size, limit)
		switch act {
		case OversizeSkip:
			return true, nil
		case OversizeProduce:
			continue
		}
		return false, err
	}
	return false, nil
}

// appendRecord appends r encoded as the only record of a batch (record
// format v2; timestamp and offset deltas 0), length prefix included.
func appendRecord(dst []byte, r *kgo.Record) []byte {
	body := make([]byte, 0, 16+len(r.Key)+len(r.Value))
	body = append(body, 0)              // attributes
	body = binary.AppendVarint(body, 0) // timestamp delta
	body = binary.AppendVarint(body, 0) // offset delta
	body = appendBytes(body, r.Key)     // key
	body = appendBytes(body, r.Value)   // value
	body = binary.AppendVarint(body, int64(len(r.Headers)))
	for _, h := range r.Headers {
		body = binary.AppendVarint(body, int64(len(h.Key)))
		body = append(body, h.Key...)
		body = appendBytes(body, h.Value)
	}
	dst = binary.AppendVarint(dst, int64(len(body)))
	return append(dst, body...)
}

func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.AppendVarint(dst, -1)
	}
	dst = binary.AppendVarint(dst, int64(len(b)))
	return append(dst, b...)
}

// recordBatchOverhead is the size of a record batch's header (magic v2).
const recordBatchOverhead = 61

// BatchSize returns the size of a record batch that holds r alone,
// uncompressed, as a broker measures it against max.message.bytes: the
// batch header and the record with its length prefix. The timestamp and
// offset deltas of a batch's first record are 0, one byte each.
func BatchSize(r *kgo.Record) int {
	body := 1 + 1 + 1 + bytesLen(r.Key) + bytesLen(r.Value) + varintLen(int64(len(r.Headers)))
	for _, h := range r.Headers {
		body += varintLen(int64(len(h.Key))) + len(h.Key) + bytesLen(h.Value)
	}
	return recordBatchOverhead + varintLen(int64(body)) + body
}

// bytesLen is the encoded size of a nullable byte string: its length as a
// varint (-1 for null), then the bytes.
func bytesLen(b []byte) int {
	if b == nil {
		return varintLen(-1)
	}
	return varintLen(int64(len(b))) + len(b)
}

// varintLen is the size of v as a zig-zag varint.
func varintLen(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}
