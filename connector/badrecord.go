package connector

import (
	"context"
	"errors"

	"github.com/streamsql/streamsql/types"
)

// Bad records: a source table may have a policy for records it cannot turn
// into rows, and for rows of its records that the pipeline rejects because
// of their data (a NULL for a NOT NULL sink column): fail the job (the
// default), skip them (counted and logged), or set them aside as dead
// letters that a sink of the source's own writes, committed with the
// checkpoints like any sink's output — or, when the pipeline's sink is
// exactly-once and can (DeadLetterWriter), that the pipeline's sink writes
// inside the transactions of its own output. The interfaces below are how a
// reader tells the runtime about them; the Kafka connector implements
// them ('scan.bad-record.policy').

// ErrBadRow is matched (errors.Is) by a pipeline transform's error for a row
// it rejects because of the row's data — a NULL for a NOT NULL sink column
// under table.exec.sink.not-null-enforcer = ERROR — so that the row's reader
// may handle it by its bad-record policy (BadRowHandler) instead of the job
// failing.
var ErrBadRow = errors.New("row rejected by the pipeline")

// BadRowHandler is implemented by readers with a bad-record policy. The
// runtime calls RejectRow for row i of the batch Read returned last, which
// the pipeline rejected with err (matching ErrBadRow or ErrDropRow), from
// the reading goroutine, before the next Read. handled reports that the
// reader took care of the row by its policy: skipped and counted it, or set
// its record aside as a dead letter (DeadLetterReader). When handled is
// false the runtime goes on as for a reader without a policy: it fails the
// job, or for ErrDropRow drops the row and counts it.
type BadRowHandler interface {
	RejectRow(i int, err error) (handled bool)
}

// DeadLetterReader is implemented by readers that set records aside as
// dead letters. DeadLetters returns the dead letters set aside since its
// last call (by Read or RejectRow) and forgets them; the rows belong to the
// caller. The runtime calls it after each Read and its transform, and
// sends the rows to the source's dead-letter sink (DeadLetterSource), or
// to the pipeline's sink writer (DeadLetterWriter), before the reader's
// next checkpoint barrier: the checkpoint that stores
// a position past a bad record is the one that commits its dead letter.
type DeadLetterReader interface {
	DeadLetters() []types.Row
}

// DeadLetterSource is implemented by sources that may set records aside as
// dead letters. DeadLetterSink returns the sink that writes them, or nil
// when the source's table has no dead letters. The runtime runs it as a
// sink of the source's pipeline that receives only the dead letters of
// that source: each source task feeds one task of it, which pre-commits on
// every barrier, and a TwoPhaseSink's committables are committed by the
// same checkpoints as the pipeline's other sinks.
type DeadLetterSource interface {
	Source
	DeadLetterSink(cfg DeadLetterConfig) (Sink, error)
}

// DeadLetterWriter is implemented by writers of exactly-once sinks that
// can write a source's dead letters inside their own transactions, so that
// a dead letter commits atomically with the output of the same checkpoint
// interval (and with the source positions the writer commits in its
// transaction, GroupPositionWriter): a crash neither loses nor duplicates
// it, also where no checkpoint file lets a restarted process finish a
// separate sink's transactions.
//
// When a source's dead letters are routed to its pipeline's sink
// (runtime.SourceSpec.DeadLettersInSink), the runtime sends them to the
// sink task that receives the source task's rows, on the same channel and
// ahead of the barrier that follows their records, and that task calls
// WriteDeadLetters from its goroutine, between its Writes. The dead letters
// then belong to the transaction the writer's next PreCommit (or
// PreCommitWithPositions) hands out: the checkpoint whose source snapshot
// is past their records, never an earlier or later one.
type DeadLetterWriter interface {
	Writer
	// WriteDeadLetters writes rows, dead letters a reader set aside
	// (DeadLetterReader), in the writer's open transaction (beginning one
	// when none is open), as dl — the source's dead-letter sink
	// (DeadLetterSource.DeadLetterSink), which the runtime never opens in
	// this mode — would write them. It fails when the writer cannot write
	// dl's records in its transactions (dl belongs to another connector
	// or system).
	WriteDeadLetters(ctx context.Context, dl Sink, rows []types.Row) error
}

// DeadLetterConfig is what the job tells a source about its dead-letter
// sink.
type DeadLetterConfig struct {
	// Name identifies the source within the job, stable across restarts
	// and unique among its sources ("<pipeline>/<table>"): a sink that
	// derives names of external resources from it (Kafka transactional
	// ids) derives the same ones in every run.
	Name string
	// Job is the job's name (TaskInfo.Job), when known.
	Job string
	// ExactlyOnce asks for a TwoPhaseSink whose dead letters become
	// visible exactly when the checkpoint that read past their records
	// commits: the pipeline's output is exactly-once. Otherwise the sink
	// flushes at each checkpoint (at least once).
	ExactlyOnce bool
}

// BadRecordCounter is implemented by readers that count the records their
// bad-record policy skipped or set aside as dead letters, for metrics. It
// must be safe for concurrent use.
type BadRecordCounter interface {
	BadRecords() (skipped, deadLettered int64)
}

// BadRecordError is the error of a reader, or of a pipeline's transform
// about a row, that fails the job because of one input record: its bytes
// do not decode, or its row is rejected, under a policy that fails (or
// without one). Restarting cannot get past such a record, so the runtime
// counts the failed runs caused by the same Record in a row and, past
// restart-strategy.max-failures-per-record, fails the job whatever the
// restart strategy. Policy says how the table lets the job go past such
// records, for the person who reads the error.
type BadRecordError struct {
	// Record says where the record is, the same in every run: for Kafka
	// "topic 'orders' partition 0 offset 42".
	Record string
	// Policy names the table option that decides what happens to such
	// records, its value, and what each value does; "" when no option
	// can let the job go past them.
	Policy string
	// Err is the failure.
	Err error
}

func (e *BadRecordError) Error() string {
	if e.Policy == "" {
		return e.Err.Error()
	}
	return e.Err.Error() + "; " + e.Policy
}

// Unwrap returns Err.
func (e *BadRecordError) Unwrap() error { return e.Err }
