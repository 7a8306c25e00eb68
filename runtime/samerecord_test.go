package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
)

// TestSameRecord: the failed runs caused by one record are counted in a
// row; another record or another kind of failure starts afresh; the
// limit's run fails the job, wrapping the record's error; 0 never does.
func TestSameRecord(t *testing.T) {
	rec := func(where string) error {
		return &connector.BadRecordError{Record: where, Policy: "p", Err: errors.New("bad bytes at " + where)}
	}
	var s sameRecord
	steps := []struct {
		err  error
		stop bool
	}{
		{rec("a"), false}, {rec("a"), false}, {rec("b"), false}, {rec("b"), false},
		{errors.New("broker down"), false}, {rec("b"), false}, {rec("b"), false}, {rec("b"), true},
	}
	for i, st := range steps {
		err := s.failed(st.err, 3)
		if (err != nil) != st.stop {
			t.Fatalf("step %d: %v, want stop %v", i, err, st.stop)
		}
		if err != nil && (!errors.Is(err, ErrRecordKeepsFailing) || !strings.Contains(err.Error(), "b failed 3 runs in a row") ||
			!errors.As(err, new(*connector.BadRecordError))) {
			t.Errorf("step %d: %v", i, err)
		}
	}
	var u sameRecord
	for range 10 {
		if err := u.failed(rec("a"), 0); err != nil {
			t.Fatalf("limit 0: %v", err)
		}
	}
}
