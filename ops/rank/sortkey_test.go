package rank_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/streamsql/streamsql/ops/rank"
	"github.com/streamsql/streamsql/types"
)

// TestAppendSortKeyOrder: the bytes of two rows' sort keys compare as
// their ORDER BY does, for every direction and NULL order, over strings
// (prefixes of each other included), integers and doubles.
func TestAppendSortKeyOrder(t *testing.T) {
	ts := []types.Type{types.String(), types.BigInt(), types.Double()}
	strs := []string{"", "a", "ab", "abc", "b", "a\x00", "a\x00b", "\xff"}
	rnd := rand.New(rand.NewPCG(1, 2))
	value := func(c int) types.Value {
		if rnd.IntN(5) == 0 {
			return types.Value{}
		}
		switch c {
		case 0:
			return types.Str(strs[rnd.IntN(len(strs))])
		case 1:
			return types.Int64(rnd.Int64N(600) - 300)
		}
		return types.Float64(rnd.Float64()*10 - 5)
	}
	cmps := make([]func(a, b types.Value) int, len(ts))
	for i, tp := range ts {
		cmps[i] = types.Comparator(tp)
	}
	for range 3000 {
		var keys []rank.SortKey
		for _, c := range rnd.Perm(3)[:1+rnd.IntN(3)] {
			keys = append(keys, rank.SortKey{Col: c, Desc: rnd.IntN(2) == 0, NullsLast: rnd.IntN(2) == 0})
		}
		a := []types.Value{value(0), value(1), value(2)}
		b := []types.Value{value(0), value(1), value(2)}
		if rnd.IntN(3) == 0 {
			b[keys[0].Col] = a[keys[0].Col]
		}
		want := 0
		for _, k := range keys {
			x, y := a[k.Col], b[k.Col]
			var c int
			switch {
			case x.IsNull() && y.IsNull():
			case x.IsNull() != y.IsNull():
				c = -1 // x before y when NULLs come first
				if y.IsNull() {
					c = 1
				}
				if k.NullsLast {
					c = -c
				}
			default:
				c = cmps[k.Col](x, y)
				if k.Desc {
					c = -c
				}
			}
			if c != 0 {
				want = c
				break
			}
		}
		got := bytes.Compare(rank.AppendSortKey(nil, a, keys, ts), rank.AppendSortKey(nil, b, keys, ts))
		if got != want {
			t.Fatalf("keys %v: %v vs %v: bytes compare %d, ORDER BY %d", keys, a, b, got, want)
		}
	}
}
