package rowlist

import (
	"bytes"
	"errors"
	"testing"

	"github.com/streamsql/streamsql/state"
)

// TestTimesSortAndRowsRoundTrip: time sub-keys sort as their times
// (negative ones too) and read back; a list gives back its rows in order,
// and a truncated one is corrupt.
func TestTimesSortAndRowsRoundTrip(t *testing.T) {
	times := []int64{-5, -1, 0, 1, 255, 256, 1 << 40}
	for i := 1; i < len(times); i++ {
		a, b := AppendTime(nil, times[i-1]), AppendTime(nil, times[i])
		if bytes.Compare(a, b) >= 0 {
			t.Errorf("the sub-key of %d does not sort before %d's", times[i-1], times[i])
		}
		if got := Time(append(b, 0x07)); got != times[i] {
			t.Errorf("Time = %d, want %d", got, times[i])
		}
	}
	var l []byte
	rows := [][]byte{[]byte("a"), {}, bytes.Repeat([]byte("x"), 300)}
	for _, r := range rows {
		l = Append(l, r)
	}
	got, err := Rows(l, nil)
	if err != nil || len(got) != len(rows) {
		t.Fatalf("Rows = %d rows, %v; want %d", len(got), err, len(rows))
	}
	for i := range rows {
		if !bytes.Equal(got[i], rows[i]) {
			t.Errorf("row %d = %q, want %q", i, got[i], rows[i])
		}
	}
	if _, err := Rows(l[:len(l)-1], nil); !errors.Is(err, state.ErrCorrupt) {
		t.Errorf("a truncated list: %v, want state.ErrCorrupt", err)
	}
}
