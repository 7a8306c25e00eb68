// Package rowlist holds the byte forms in which the operators that keep
// rows until their time comes (ops/over, ops/timesort) store them under a
// state sub-key: time sub-keys, the order-preserving key encoding of a
// BIGINT, so that a map table's RangeKey returns them oldest first; and
// lists of encoded rows, each row's length then its bytes, in arrival
// order.
package rowlist

import (
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// AppendTime appends the sub-key of time ts (milliseconds) to dst.
func AppendTime(dst []byte, ts int64) []byte {
	return state.AppendKeyValue(dst, types.Int64(ts), types.BigInt())
}

// Time returns the time a sub-key starts with (AppendTime); 0 when it
// starts with none.
func Time(sub []byte) int64 {
	v, _, err := state.ReadKeyValue(sub, types.BigInt())
	if err != nil {
		return 0
	}
	return v.Int64()
}

// Append appends one encoded row to the list dst.
func Append(dst, row []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(row)))
	return append(dst, row...)
}

// Rows appends the rows of the list v to dst; they alias v.
func Rows(v []byte, dst [][]byte) ([][]byte, error) {
	for len(v) > 0 {
		n, used := binary.Uvarint(v)
		if used <= 0 || uint64(len(v)-used) < n {
			return dst, fmt.Errorf("%w: a row list", state.ErrCorrupt)
		}
		dst = append(dst, v[used:used+int(n)])
		v = v[used+int(n):]
	}
	return dst, nil
}
