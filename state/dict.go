package state

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strings"
	"unsafe"

	"github.com/streamsql/streamsql/types"
)

// StringDict keeps the CHAR and VARCHAR values that recur in the rows an
// operator keeps in memory once, so that a row refers to such a value by a
// number instead of holding its bytes (Nexmark's bids: half of them carry
// one of four channels and URLs, the rest one of 10,000).
//
// Its row form (AppendRow, ReadRow) is the value encoding of AppendRow
// with each top-level CHAR or VARCHAR field's length prefix n replaced by
// uvarint(n<<2), the n bytes following (inline), by uvarint(id<<2|1), a
// reference to the dictionary's value id, or by uvarint(n<<2|2) and the n
// bytes packed in six bits each (pack6.go: a string of packMinLen bytes or
// more that is not in the dictionary and whose bytes are ASCII within 64
// values of its smallest, such as Nexmark's `extra` text: 68 bytes in 52).
// It is a form in memory only:
// the dictionary is not part of the state, so a table that holds such rows
// writes them into snapshots as AppendRow does (ExpandRow, through a
// Recoder's ValueCodec), and a restored row is compacted again
// (CompactRow).
//
// A value enters the dictionary when it is seen for the third time while
// its hash is still in a fixed table of values seen before (the second
// would let in a tenth as many values again that never recur after,
// Nexmark q19's random text: 2.7 MB at 2·10⁶ events), and only while
// the dictionary has room (dictMaxEntries values, dictMaxBytes bytes): a
// column of values that never recur (free text) costs a hash per row and
// no memory. Values are never removed; the dictionary lives as long as
// its operator. The zero StringDict is not usable: use NewStringDict.
type StringDict struct {
	seed   maphash.Seed
	chunks []*[dictChunk]string // values by id
	n      uint32
	bytes  int
	index  []uint64 // open addressing: the hash's high 32 bits | id+1, 0 empty; len a power of 2
	// seen holds the values seen but not yet admitted: by the hash's low
	// bits, its high bits but the last two, which count the sightings.
	seen []uint32
}

const (
	dictChunkBits  = 10
	dictChunk      = 1 << dictChunkBits
	dictMaxEntries = 1 << 17
	dictMaxBytes   = 8 << 20
	dictMinLen     = 4   // shorter values stay inline (a reference takes 1–3 bytes)
	dictMaxLen     = 256 // longer ones too
	dictSeenBits   = 18  // the table of values seen but not admitted: 1 MiB
	dictSightings  = 3   // a value is admitted at its third sighting
)

// NewStringDict returns an empty dictionary.
func NewStringDict() *StringDict {
	return &StringDict{seed: maphash.MakeSeed()}
}

// Len returns the number of values in the dictionary.
func (d *StringDict) Len() int { return int(d.n) }

// value returns the value of id (id < d.n).
func (d *StringDict) value(id uint32) string {
	return d.chunks[id>>dictChunkBits][id&(dictChunk-1)]
}

// ref returns the id of s, adding s when it is seen for the third time.
func (d *StringDict) ref(s string) (uint32, bool) {
	if len(s) < dictMinLen || len(s) > dictMaxLen {
		return 0, false
	}
	h := maphash.String(d.seed, s)
	if len(d.index) > 0 {
		mask := uint64(len(d.index) - 1)
		hi := h >> 32 << 32
		for i := h & mask; ; i = (i + 1) & mask {
			slot := d.index[i]
			if slot == 0 {
				break
			}
			// The hash's high bits first: no load of the value of
			// another hash.
			if slot>>32<<32 == hi && d.value(uint32(slot)-1) == s {
				return uint32(slot) - 1, true
			}
		}
	}
	if d.n >= dictMaxEntries || d.bytes+len(s) > dictMaxBytes {
		return 0, false
	}
	if d.seen == nil {
		d.seen = make([]uint32, 1<<dictSeenBits)
	}
	fp := uint32(h>>32) &^ 3
	at := h & (1<<dictSeenBits - 1)
	if d.seen[at]&^3 != fp || d.seen[at] == 0 {
		d.seen[at] = fp | 1
		return 0, false
	}
	if d.seen[at]&3 < dictSightings-1 {
		d.seen[at]++
		return 0, false
	}
	d.seen[at] = 0
	return d.add(strings.Clone(s), h), true
}

// add appends s (not in the dictionary) and returns its id.
func (d *StringDict) add(s string, h uint64) uint32 {
	id := d.n
	if id&(dictChunk-1) == 0 {
		d.chunks = append(d.chunks, new([dictChunk]string))
	}
	d.chunks[id>>dictChunkBits][id&(dictChunk-1)] = s
	d.n++
	d.bytes += len(s)
	if int(d.n)*2 > len(d.index) {
		d.rehash(max(64, len(d.index)*2))
	} else {
		d.insert(id, h)
	}
	return id
}

func (d *StringDict) insert(id uint32, h uint64) {
	mask := uint64(len(d.index) - 1)
	i := h & mask
	for d.index[i] != 0 {
		i = (i + 1) & mask
	}
	d.index[i] = h>>32<<32 | uint64(id+1)
}

func (d *StringDict) rehash(size int) {
	d.index = make([]uint64, size)
	for id := range d.n {
		d.insert(id, maphash.String(d.seed, d.value(id)))
	}
}

// AppendRow appends the dictionary's form of row, of types typs, to dst
// (see StringDict).
func (d *StringDict) AppendRow(dst []byte, row []types.Value, typs []types.Type) []byte {
	start := len(dst)
	for range (len(typs) + 7) / 8 {
		dst = append(dst, 0)
	}
	for i, t := range typs {
		if row[i].IsNull() {
			dst[start+i/8] |= 1 << (i % 8)
			continue
		}
		if isText(t) {
			dst = d.appendString(dst, row[i].Str())
			continue
		}
		dst = appendValueBody(dst, row[i], t)
	}
	return dst
}

func (d *StringDict) appendString(dst []byte, s string) []byte {
	if id, ok := d.ref(s); ok {
		return binary.AppendUvarint(dst, uint64(id)<<2|1)
	}
	if len(s) >= packMinLen {
		if base, ok := packBase(s); ok {
			dst = append(binary.AppendUvarint(dst, uint64(len(s))<<2|2), base)
			return appendPacked(dst, s, base)
		}
	}
	return append(binary.AppendUvarint(dst, uint64(len(s))<<2), s...)
}

func isText(t types.Type) bool { return t.Kind == types.KindChar || t.Kind == types.KindVarChar }

// ReadRow decodes a row in the dictionary's form from src, appends its
// values to dst and returns it with the rest of src. A value of the
// dictionary is its string (never changed, never freed); an inline one is
// cut from rr's chunks (a copy of its own when rr is nil).
func (d *StringDict) ReadRow(rr *RowReader, src []byte, typs []types.Type, dst []types.Value) ([]types.Value, []byte, error) {
	nulls, src, err := rowNulls(src, typs)
	if err != nil {
		return dst, nil, err
	}
	for i, t := range typs {
		if nulls[i/8]&(1<<(i%8)) != 0 {
			dst = append(dst, types.Value{})
			continue
		}
		if isText(t) {
			x, rest, err := readUvarint(src)
			if err != nil {
				return dst, nil, err
			}
			n := x >> 2
			switch x & 3 {
			case 1:
				if n >= uint64(d.n) {
					return dst, nil, fmt.Errorf("%w: a reference to string %d of a dictionary of %d", ErrCorrupt, n, d.n)
				}
				dst = append(dst, types.Str(d.value(uint32(n))))
				src = rest
				continue
			case 2:
				base, packed, rest, err := readPacked(rest, n)
				if err != nil {
					return dst, nil, err
				}
				var b []byte
				if rr != nil {
					b = rr.reserve(int(n))
				}
				if b == nil {
					b = make([]byte, 0, n)
				}
				b = unpack(b, packed, int(n), base)
				dst = append(dst, types.Str(unsafe.String(unsafe.SliceData(b), len(b))))
				src = rest
				continue
			case 3:
				return dst, nil, fmt.Errorf("%w: a string of kind 3", ErrCorrupt)
			}
			if n > uint64(len(rest)) {
				return dst, nil, errTruncated
			}
			var s string
			if rr != nil {
				s = rr.keep(rest[:n])
			} else {
				s = string(rest[:n])
			}
			dst = append(dst, types.Str(s))
			src = rest[n:]
			continue
		}
		v, rest, err := readValueBody(src, t)
		if err != nil {
			return dst, nil, err
		}
		dst = append(dst, v)
		src = rest
	}
	return dst, src, nil
}

// rowNulls splits a row's NULL bitmap off src.
func rowNulls(src []byte, typs []types.Type) (nulls, rest []byte, err error) {
	nb := (len(typs) + 7) / 8
	if len(src) < nb {
		return nil, nil, errTruncated
	}
	nulls = src[:nb]
	if r := len(typs) % 8; r != 0 && nulls[nb-1]>>r != 0 {
		return nil, nil, fmt.Errorf("%w: NULL bits past the last field", ErrCorrupt)
	}
	return nulls, src[nb:], nil
}

// CompactRow appends the dictionary's form of the row that AppendRow
// wrote at the start of src to dst, and returns it with the rest of src
// (a restored row enters the dictionary's form so).
func (d *StringDict) CompactRow(dst, src []byte, typs []types.Type) ([]byte, []byte, error) {
	nulls, body, err := rowNulls(src, typs)
	if err != nil {
		return dst, nil, err
	}
	dst = append(dst, nulls...)
	for i, t := range typs {
		if nulls[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		if isText(t) {
			n, rest, err := readUvarint(body)
			if err != nil {
				return dst, nil, err
			}
			if n > uint64(len(rest)) {
				return dst, nil, errTruncated
			}
			var str string
			if n > 0 {
				// ref copies what it keeps.
				str = unsafe.String(&rest[0], int(n))
			}
			dst = d.appendString(dst, str)
			body = rest[n:]
			continue
		}
		_, rest, err := readValueBody(body, t)
		if err != nil {
			return dst, nil, err
		}
		dst = append(dst, body[:len(body)-len(rest)]...)
		body = rest
	}
	return dst, body, nil
}

// DictCut is a dictionary's values as they were at a cut (StringDict.Cut):
// it expands the rows written before the cut, and may be used on another
// goroutine than the dictionary's while the dictionary grows.
type DictCut struct {
	chunks []*[dictChunk]string
	n      uint32
}

// Cut returns the dictionary as it is now. Values are only ever added, at
// ids past the cut's, so the cut reads what no later call changes.
func (d *StringDict) Cut() DictCut { return DictCut{chunks: d.chunks, n: d.n} }

// ExpandRow is the dictionary's Cut's ExpandRow, without keeping a cut.
func (d *StringDict) ExpandRow(dst, src []byte, typs []types.Type) ([]byte, []byte, error) {
	return d.Cut().ExpandRow(dst, src, typs)
}

// ExpandRow appends the row in the dictionary's form at the start of src,
// written before the cut, to dst as AppendRow writes it, and returns it
// with the rest of src.
func (c DictCut) ExpandRow(dst, src []byte, typs []types.Type) ([]byte, []byte, error) {
	nulls, body, err := rowNulls(src, typs)
	if err != nil {
		return dst, nil, err
	}
	dst = append(dst, nulls...)
	for i, t := range typs {
		if nulls[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		if isText(t) {
			x, rest, err := readUvarint(body)
			if err != nil {
				return dst, nil, err
			}
			n := x >> 2
			switch x & 3 {
			case 1:
				if n >= uint64(c.n) {
					return dst, nil, fmt.Errorf("%w: a reference to string %d of a dictionary of %d", ErrCorrupt, n, c.n)
				}
				s := c.chunks[n>>dictChunkBits][n&(dictChunk-1)]
				dst = append(binary.AppendUvarint(dst, uint64(len(s))), s...)
				body = rest
				continue
			case 2:
				base, packed, rest, err := readPacked(rest, n)
				if err != nil {
					return dst, nil, err
				}
				dst = unpack(binary.AppendUvarint(dst, n), packed, int(n), base)
				body = rest
				continue
			case 3:
				return dst, nil, fmt.Errorf("%w: a string of kind 3", ErrCorrupt)
			}
			if n > uint64(len(rest)) {
				return dst, nil, errTruncated
			}
			dst = append(binary.AppendUvarint(dst, n), rest[:n]...)
			body = rest[n:]
			continue
		}
		_, rest, err := readValueBody(body, t)
		if err != nil {
			return dst, nil, err
		}
		dst = append(dst, body[:len(body)-len(rest)]...)
		body = rest
	}
	return dst, body, nil
}
