package filesystem

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestDatePartitionValue pins how a DATE partition directory is read: an
// ISO date, as the sink writes it; anything else is an error, not a
// wrong date.
func TestDatePartitionValue(t *testing.T) {
	v, err := parsePartitionValue("2024-01-05", types.Date())
	if err != nil || v.Date() != 19727 {
		t.Fatalf("2024-01-05 = %v, %v; want day 19727", v, err)
	}
	for _, bad := range []string{"2024-13-01", "2024-02-30", "2024-1-5", "2024-01-05x", "x"} {
		if v, err := parsePartitionValue(bad, types.Date()); err == nil {
			t.Errorf("partition value %q read as %v, want an error", bad, v)
		}
	}
}
