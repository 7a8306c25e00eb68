package runtime

import (
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/connector"
)

// ErrRecordKeepsFailing is wrapped by the error that fails a job because
// the same input record failed restart-strategy.max-failures-per-record
// runs in a row (see sameRecord). errors.As finds the record's
// *connector.BadRecordError in it too.
var ErrRecordKeepsFailing = errors.New("the same record keeps failing the job")

// sameRecord counts the failed runs in a row caused by one input record
// (connector.BadRecordError): restarting cannot get past a record whose
// bytes never decode, so after MaxFailuresPerRecord such runs the job
// fails, whatever the restart strategy, instead of restarting for ever.
// A failure of another kind, or on another record, starts the count
// afresh. Only Job.Run's goroutine uses it.
type sameRecord struct {
	record string
	runs   int
}

// failed records a failed run's err and returns the error that fails the
// job when the record of err failed limit runs in a row (limit 0: never);
// nil otherwise.
func (s *sameRecord) failed(err error, limit int) error {
	var be *connector.BadRecordError
	if !errors.As(err, &be) || be.Record == "" {
		s.record, s.runs = "", 0
		return nil
	}
	if be.Record != s.record {
		s.record, s.runs = be.Record, 0
	}
	s.runs++
	if limit <= 0 || s.runs < limit {
		return nil
	}
	return fmt.Errorf("%w: %s failed %d runs in a row (restart-strategy.max-failures-per-record = %d), and restarting cannot get past it: %w",
		ErrRecordKeepsFailing, be.Record, s.runs, limit, err)
}

// rowError is the error of a pipeline's transform about row i of a
// reader's last batch: a *connector.BadRecordError naming the row's source
// position when the reader knows it (rp, its connector.RowPositioner, or
// nil), since the same row fails the same way after a restart.
func rowError(pipe string, err error, rp connector.RowPositioner, i int) error {
	pos := ""
	if rp != nil {
		pos = rp.RowPosition(i)
	}
	if pos == "" {
		return fmt.Errorf("pipeline %q: %w", pipe, err)
	}
	return &connector.BadRecordError{Record: pos, Err: fmt.Errorf("pipeline %q: %w (row from %s)", pipe, err, pos)}
}
