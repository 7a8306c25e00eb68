package rank

import (
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/types"
)

// AppendSortKey appends the encoding of row's ORDER BY key to dst: bytes
// whose order (bytes.Compare) is the ORDER BY's, so that a map table whose
// sub-keys they are returns a partition's rows in rank order, and equal
// keys encode alike. ts are the row's column types.
//
// Each column is package state's key encoding of its value, which is
// order-preserving and self-delimiting (no value's encoding is a prefix of
// another's); a DESC column has its bytes complemented, which reverses
// the order of self-delimiting encodings. NULL is 0x00, below every value,
// so ASC puts NULL first and DESC (0xff) last, Flink's default; a column
// that asks for the other NULL order gets a marker byte first.
func AppendSortKey(dst []byte, row []types.Value, keys []SortKey, ts []types.Type) []byte {
	for _, k := range keys {
		v := row[k.Col]
		if k.NullsLast != k.Desc {
			// ASC NULLS LAST or DESC NULLS FIRST: a marker byte first,
			// 0x00 for the group that sorts first.
			if v.IsNull() == k.NullsLast {
				dst = append(dst, 0x01)
			} else {
				dst = append(dst, 0x00)
			}
			if v.IsNull() {
				continue
			}
		}
		start := len(dst)
		dst = state.AppendKeyValue(dst, v, ts[k.Col])
		if k.Desc {
			for i := start; i < len(dst); i++ {
				dst[i] = ^dst[i]
			}
		}
	}
	return dst
}

// A list of rows, the value of a sort key in a partition's map: the
// number of rows, then each row's length and its value encoding
// (state.AppendRow), in arrival order. Rows of the updatable Top-N also
// carry their unique key's encoding first.

// rowList is a decoded list: the rows' encodings, which alias the bytes
// they were read from until copied.
type rowList struct {
	rows [][]byte
	keys [][]byte // the unique keys (Updatable only)
}

func appendList(dst []byte, l *rowList, withKeys bool) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(l.rows)))
	for i, r := range l.rows {
		if withKeys {
			dst = binary.AppendUvarint(dst, uint64(len(l.keys[i])))
			dst = append(dst, l.keys[i]...)
		}
		dst = binary.AppendUvarint(dst, uint64(len(r)))
		dst = append(dst, r...)
	}
	return dst
}

// readList decodes an encoded list into l (reusing its slices); the rows
// alias one copy of v, so that the list outlives the table call that
// returned v. The copy is appended to *scratch when scratch is not nil (a
// buffer the caller reuses once it no longer needs the lists it read into
// it: no allocation per list read), else it is a new allocation.
func readList(v []byte, l *rowList, withKeys bool, scratch *[]byte) error {
	n, used := binary.Uvarint(v)
	if used <= 0 {
		return fmt.Errorf("%w: a rank list's length", state.ErrCorrupt)
	}
	if scratch != nil {
		at := len(*scratch)
		*scratch = append(*scratch, v[used:]...)
		v = (*scratch)[at:len(*scratch):len(*scratch)]
	} else {
		v = append([]byte(nil), v[used:]...)
	}
	l.rows, l.keys = l.rows[:0], l.keys[:0]
	next := func() ([]byte, error) {
		m, used := binary.Uvarint(v)
		if used <= 0 || uint64(len(v)-used) < m {
			return nil, fmt.Errorf("%w: a rank list's row", state.ErrCorrupt)
		}
		b := v[used : used+int(m) : used+int(m)]
		v = v[used+int(m):]
		return b, nil
	}
	for range n {
		if withKeys {
			k, err := next()
			if err != nil {
				return err
			}
			l.keys = append(l.keys, k)
		}
		r, err := next()
		if err != nil {
			return err
		}
		l.rows = append(l.rows, r)
	}
	if len(v) != 0 {
		return fmt.Errorf("%w: trailing bytes after a rank list", state.ErrCorrupt)
	}
	return nil
}
