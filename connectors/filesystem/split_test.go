package filesystem

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/types"
)

// TestSplitAgreesWithPlain checks split (the last directory's values
// remembered, a trailing partition columns' data taken as the row's
// first columns) against the directory and data columns computed from
// scratch for every row, over random rows whose partition values mostly
// repeat the previous row's, for partition keys that trail (in and out of
// order), that do not, and that include a DOUBLE (not remembered). The
// rows' strings live in one buffer overwritten after each row, as a
// reader's reused memory is: a remembered value must be a copy.
func TestSplitAgreesWithPlain(t *testing.T) {
	cols := []types.Field{{Name: "v", Type: types.BigInt()}, {Name: "s", Type: types.String()},
		{Name: "n", Type: types.Int()}, {Name: "d", Type: types.Double()}, {Name: "dt", Type: types.String()}, {Name: "hm", Type: types.String()}}
	plain := func(keys []int, row []types.Value) (string, []types.Value) {
		var parts []string
		for _, k := range keys {
			v := ""
			if !row[k].IsNull() {
				var b strings.Builder
				javafmt.AppendValue(&b, row[k], cols[k].Type)
				v = string(appendEscapedPartitionValue(nil, b.String()))
			}
			if v == "" {
				v = "__DEFAULT_PARTITION__"
			}
			parts = append(parts, cols[k].Name+"="+v)
		}
		var data []types.Value
	next:
		for i, v := range row {
			for _, k := range keys {
				if k == i {
					continue next
				}
			}
			data = append(data, v)
		}
		return strings.Join(parts, "/"), data
	}
	strs := []string{"2015-07-15", "2015-07-16", "10:05", "10:06", "", "a/b", "é"}
	r := rand.New(rand.NewPCG(7, 10))
	for _, keys := range [][]int{{4, 5}, {5, 4}, {1, 2, 3, 4, 5}, {1, 2}, {2, 5}, {0}, {5}, {1, 4}, {3, 5}} {
		s, err := NewSink(Config{Path: t.TempDir(), PartitionKeys: keys, Table: "t", DefaultPartitionName: "__DEFAULT_PARTITION__"}, cols, csvFormat(t))
		if err != nil {
			t.Fatal(err)
		}
		w := &writer{sink: s}
		buf := make([]byte, 0, 256)
		var prev []types.Value
		for i := range 3000 {
			buf = buf[:0]
			str := func() types.Value {
				if r.IntN(10) == 0 {
					return types.Value{}
				}
				x := strs[r.IntN(len(strs))]
				start := len(buf)
				buf = append(buf, x...)
				return types.Str(unsafe.String(unsafe.SliceData(buf[start:]), len(x)))
			}
			row := []types.Value{types.Int64(int64(i)), str(), types.Int64(int64(r.IntN(3) - 1)), types.Float64(float64(r.IntN(2)) / 2), str(), str()}
			if r.IntN(3) == 0 {
				row[2] = types.Value{}
			}
			if prev != nil && r.IntN(4) > 0 {
				// The previous row's partition values (its strings
				// copied into this row's buffer: the previous row's
				// were overwritten).
				for _, k := range keys {
					if k != 0 {
						v := prev[k]
						if cols[k].Type.IsString() && !v.IsNull() {
							start := len(buf)
							buf = append(buf, v.Str()...)
							v = types.Str(unsafe.String(unsafe.SliceData(buf[start:]), len(v.Str())))
						}
						row[k] = v
					}
				}
				if r.IntN(4) == 0 {
					// One value changes.
					switch k := keys[r.IntN(len(keys))]; cols[k].Type.Kind {
					case types.KindVarChar:
						row[k] = str()
					case types.KindDouble:
						row[k] = types.Float64(float64(r.IntN(3)) / 4)
					default:
						row[k] = types.Int64(int64(r.IntN(4)))
					}
				}
			}
			wantDir, wantData := plain(keys, row)
			dir, data := w.split(row)
			if dir != wantDir {
				t.Fatalf("keys %v row %d %v: directory %q, want %q", keys, i, row, dir, wantDir)
			}
			if fmt.Sprint(data) != fmt.Sprint(wantData) {
				t.Fatalf("keys %v row %d: data %v, want %v", keys, i, data, wantData)
			}
			prev = make([]types.Value, len(row))
			for j, v := range row {
				if cols[j].Type.IsString() && !v.IsNull() {
					v = types.Str(strings.Clone(v.Str()))
				}
				prev[j] = v
			}
			// The reader reuses its memory: the row's strings change.
			for j := range buf {
				buf[j] = strconv.Itoa(i)[0]
			}
		}
	}
}
