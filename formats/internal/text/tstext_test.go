package text

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestTimestampTextAgrees checks TimestampText.Append against
// AppendTimestamp over runs of timestamps in one second, across second,
// day and year boundaries, before 1970 and at the int64 extremes, with
// and without nanoseconds, for both separators and with and without the
// zone, the memo carried from one to the next.
func TestTimestampTextAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	bases := []int64{0, -1, 999, 1000, -1000, -1001, 86_399_999, 86_400_000, -86_400_000, 1_436_918_400_000,
		-62_135_596_800_000, 253_402_300_799_999, math.MaxInt64, math.MinInt64, 1 << 62, -1 << 62, 1<<62 + 1, -1<<62 - 1}
	var m TimestampText
	for i := 0; i < 200_000; i++ {
		ms := bases[r.IntN(len(bases))]
		if r.IntN(2) == 0 {
			ms += r.Int64N(3000) - 1500
		}
		if r.IntN(3) == 0 {
			ms = r.Int64N(1<<50) - 1<<49
		}
		ts := types.Timestamp{Millis: ms}
		switch r.IntN(4) {
		case 0:
			ts.NanoOfMilli = int32(r.IntN(1e6))
		case 1:
			ts.NanoOfMilli = int32(r.IntN(10)) * 100_000
		}
		sep := []byte{' ', 'T'}[r.IntN(2)]
		zone := r.IntN(4) == 0
		for range 1 + r.IntN(4) {
			want := AppendTimestamp([]byte("x"), ts, sep, zone)
			got := m.Append([]byte("x"), ts, sep, zone)
			if string(got) != string(want) {
				t.Fatalf("%+v sep %q zone %v: %q, want %q", ts, sep, zone, got, want)
			}
			// The next: in the same second mostly.
			ts.Millis += r.Int64N(300)
			if ts.Millis < 0 && ts.Millis > math.MinInt64+1000 && r.IntN(2) == 0 {
				ts.Millis -= 600
			}
		}
	}
}
