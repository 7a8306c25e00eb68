package runtime

import "github.com/streamsql/streamsql/runtime/checkpoint"

// SetStorage replaces the job's checkpoint storage (tests of storage
// faults).
func (j *Job) SetStorage(s checkpoint.Storage) { j.store = s }
