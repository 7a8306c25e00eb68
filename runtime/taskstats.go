package runtime

import (
	"sync"
)

// taskKey identifies a task across runs.
type taskKey struct {
	kind  TaskKind
	name  string
	index int
}

// carriedStats keeps the counters of the job's ended runs, so that a
// restart (or a reassignment) does not set the counters Status reports,
// and Prometheus scrapes as counters, back to zero: a task's figures are
// those of the current run plus those of its task in every ended one.
type carriedStats struct {
	mu    sync.Mutex
	tasks map[taskKey]TaskStatus
	order []taskKey // first-seen order, for tasks no current run has
}

// add adds the counters of st's tasks.
func (c *carriedStats) add(tasks []TaskStatus) {
	if c.tasks == nil {
		c.tasks = map[taskKey]TaskStatus{}
	}
	for _, t := range tasks {
		k := taskKey{t.Kind, t.Name, t.Index}
		old, ok := c.tasks[k]
		if !ok {
			c.order = append(c.order, k)
		}
		c.tasks[k] = sumCounters(old, t)
	}
}

// sumCounters returns t with the counters of old added; the fields that
// are no counters (partitions, chaining) are t's.
func sumCounters(old, t TaskStatus) TaskStatus {
	t.RecordsIn += old.RecordsIn
	t.RecordsOut += old.RecordsOut
	t.BytesIn += old.BytesIn
	t.BytesOut += old.BytesOut
	t.Dropped += old.Dropped
	t.BadSkipped += old.BadSkipped
	t.DeadLettered += old.DeadLettered
	t.Backpressure += old.Backpressure
	t.LateRecords += old.LateRecords
	return t
}

// merge returns the current run's tasks with the carried counters added,
// then the carried tasks the current run does not have (all of them
// between runs).
func (c *carriedStats) merge(current []TaskStatus) []TaskStatus {
	if len(c.tasks) == 0 {
		return current
	}
	seen := make(map[taskKey]bool, len(current))
	for i, t := range current {
		k := taskKey{t.Kind, t.Name, t.Index}
		seen[k] = true
		if old, ok := c.tasks[k]; ok {
			current[i] = sumCounters(old, t)
		}
	}
	for _, k := range c.order {
		if !seen[k] {
			t := c.tasks[k]
			t.Partitions = nil // positions of a run that ended
			current = append(current, t)
		}
	}
	return current
}

// endRun moves the counters of run a, which ended, into the carried ones,
// and forgets a as the current run: Status then counts them once.
func (j *Job) endRun(a *attempt) {
	if a == nil {
		return
	}
	j.carried.mu.Lock()
	defer j.carried.mu.Unlock()
	if !j.cur.CompareAndSwap(a, nil) {
		return
	}
	j.carried.add(a.taskStatus())
	j.stats.setDegraded(nil)
}
