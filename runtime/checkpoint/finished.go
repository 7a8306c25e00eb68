package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// FinishedFileName is the name of the finished record in a job's
// checkpoint folder. Clear keeps it: it is not a checkpoint.
const FinishedFileName = "FINISHED.json"

// FinishedVersion is the version of the finished record's format.
const FinishedVersion = 1

// Finished records that a bounded job ran to the end of its input and
// committed everything, so its checkpoints were deleted: a later run of
// the job (a crash restart after the deletion, as far as the process can
// tell) must not process the input again. It holds no secrets.
type Finished struct {
	// Version is FinishedVersion.
	Version int `json:"version"`
	// Job is the job's name.
	Job string `json:"job"`
	// Time is when the job finished.
	Time time.Time `json:"time"`
	// LastCheckpoint is the id of the job's last completed checkpoint
	// (0 when it completed none), for the operator.
	LastCheckpoint int64 `json:"last_checkpoint"`
}

// FinishedPath returns the path of the job's finished record.
func (d *Dir) FinishedPath() string { return filepath.Join(d.path, FinishedFileName) }

// MarkFinished writes the finished record durably and atomically
// (temporary file, fsync, rename, fsync of the folder). Write it before
// the checkpoints are deleted.
func (d *Dir) MarkFinished(f Finished) error {
	f.Version, f.Job = FinishedVersion, d.job
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encode finished record: %w", err)
	}
	if err := d.writeFile(d.FinishedPath(), FinishedFileName, data); err != nil {
		return fmt.Errorf("write finished record %s: %w", d.FinishedPath(), err)
	}
	return nil
}

// Finished returns the job's finished record, or nil when there is none.
func (d *Dir) Finished() (*Finished, error) {
	p := d.FinishedPath()
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read finished record: %w", err)
	}
	return DecodeFinished(data, p, d.job)
}

// DecodeFinished decodes a finished record (path names it in errors,
// which wrap ErrCorrupt); it must belong to job.
func DecodeFinished(data []byte, path, job string) (*Finished, error) {
	var f Finished
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if f.Version != FinishedVersion {
		return nil, fmt.Errorf("%w: %s: format version %d, want %d", ErrCorrupt, path, f.Version, FinishedVersion)
	}
	if f.Job != job {
		return nil, fmt.Errorf("%w: %s belongs to job %q, not %q", ErrCorrupt, path, f.Job, job)
	}
	return &f, nil
}

// DropFinished deletes the finished record, so that the next run
// processes the job's input again from the start. Checkpoints left by a
// finish interrupted between the record and their deletion are deleted
// first (the finish would have deleted them). It reports whether there
// was a record.
func (d *Dir) DropFinished() (bool, error) {
	if f, err := d.Finished(); err == nil && f != nil {
		if err := d.Clear(); err != nil {
			return false, fmt.Errorf("delete the checkpoints of the finished job: %w", err)
		}
	}
	err := os.Remove(d.FinishedPath())
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete finished record: %w", err)
	}
	return true, SyncDir(d.path)
}
