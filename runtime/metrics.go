package runtime

import (
	"slices"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connector"
)

// Metrics is what the CLI serves (for example as Prometheus gauges and
// counters, read at scrape time). *Job implements it.
type Metrics interface {
	// Status returns a consistent-enough snapshot of the job's numbers;
	// it is safe to call at any time from any goroutine.
	Status() Status
}

// State is a job's lifecycle state.
type State string

// The job states.
const (
	StateCreated    State = "CREATED"
	StateRestoring  State = "RESTORING"
	StateRunning    State = "RUNNING"
	StateRestarting State = "RESTARTING"
	StateFinished   State = "FINISHED"
	StateStopped    State = "STOPPED"
	StateFailed     State = "FAILED"
)

// Status is a snapshot of a job's state and metrics.
type Status struct {
	// Job is the job's name.
	Job string
	// State is the job's lifecycle state.
	State State
	// Run identifies the current run (attempt); empty before the first.
	Run string
	// Restarts counts restarts after failures.
	Restarts int64
	// Reassignments counts runs that stopped, with a final checkpoint,
	// because a source's splits were reassigned (a consumer group
	// rebalance of a scaled-out job; connector.Reassigning).
	Reassignments int64 `json:",omitempty"`
	// Assignment lists, for each source whose splits are assigned from
	// outside the job (connector.Reassigning), the split ids the current
	// run reads (for Kafka "<topic>:<partition>").
	Assignment map[string][]string `json:",omitempty"`
	// Tasks lists the current run's tasks.
	Tasks []TaskStatus
	// Checkpoints summarizes checkpointing.
	Checkpoints CheckpointStatus
	// PendingCommits counts committables not yet committed (in completed
	// checkpoints, or carried from failed ones).
	PendingCommits int
	// OldestPendingCommitAge is the age of the oldest pending committable
	// (0 when none).
	OldestPendingCommitAge time.Duration
	// TriggeringPaused is true while commits lag so much that no new
	// checkpoint is triggered.
	TriggeringPaused bool
	// GroupCommitFailures counts failed commits of consumer group
	// positions (connector.GroupPositionReader and GroupPositionWriter);
	// each is also a warning in the log, and the job goes on.
	GroupCommitFailures int64
	// Recent lists the latest warnings and errors the job logged (its
	// runtime and connectors), oldest first, at most RecentLogSize.
	Recent []LogEntry
	// Degraded lists the sinks that cannot deliver now, with what their
	// connector reports (the job is RUNNING, but its output waits).
	Degraded []Degradation `json:",omitempty"`
	// Graph is the dataflow the latest run runs (nil before the first):
	// its vertices, whose tasks are Tasks (by Kind and Name), and edges.
	Graph *GraphStatus `json:",omitempty"`
}

// GraphStatus describes a run's dataflow for the status page: the job's
// Graph as it runs, a pipeline's lowered transform shown as part of its
// source (as in Tasks) and each source's own dead-letter sink as a vertex
// of its own.
type GraphStatus struct {
	Vertices []VertexStatus
	Edges    []EdgeStatus
}

// VertexStatus is a vertex of a GraphStatus.
type VertexStatus struct {
	// Kind and ID are those of the vertex's tasks in Status.Tasks (Kind,
	// Name); Name is the vertex's description (Vertex.Name).
	Kind TaskKind
	ID   string
	Name string
	// Parallelism is the number of the vertex's tasks.
	Parallelism int
	// Stateful is set for an operator with keyed state.
	Stateful bool `json:",omitempty"`
}

// EdgeStatus is an edge of a GraphStatus: every row vertex From emits
// travels on each of its edges.
type EdgeStatus struct {
	// From and To index GraphStatus.Vertices; Input is the input of To
	// the edge feeds.
	From, To, Input int
	// Exchange is the edge's exchange (ExchangeKind.String), or
	// "dead-letter" for a source's rows set aside for its dead-letter sink.
	Exchange string
	// Fused is set when the edge's ends run in the same tasks (chained),
	// with no channel between them.
	Fused bool `json:",omitempty"`
}

// TaskKind says whether a task reads a source, runs an operator or writes
// a sink.
type TaskKind string

// The task kinds.
const (
	SourceTask   TaskKind = "source"
	OperatorTask TaskKind = "operator"
	SinkTask     TaskKind = "sink"
)

// TaskStatus holds one task's counters.
type TaskStatus struct {
	// Kind is source, operator or sink; Name the vertex's id (a source's
	// or sink's "<pipeline>/<table>"); Index the task's index among the
	// vertex's tasks.
	Kind  TaskKind
	Name  string
	Index int
	// RecordsIn counts rows read (source) or received (operator, sink);
	// RecordsOut rows sent downstream (a source's after its transform;
	// an operator's emitted rows), or a sink's records the external
	// system acknowledged (connector.DeliveryCounter; for a writer that
	// does not count them, the rows written before its last successful
	// pre-commit).
	RecordsIn, RecordsOut int64
	// BytesIn and BytesOut are reported by readers and writers that
	// implement connector.ByteCounter (0 otherwise).
	BytesIn, BytesOut int64
	// Dropped counts rows a source task's transform dropped on purpose
	// (connector.ErrDropRow: a NULL for a NOT NULL sink column under
	// table.exec.sink.not-null-enforcer = DROP).
	Dropped int64
	// BadSkipped and DeadLettered count the records (or rows the pipeline
	// rejected) that a source task's bad-record policy skipped or set
	// aside as dead letters, for readers that implement
	// connector.BadRecordCounter ('scan.bad-record.policy' of Kafka
	// tables).
	BadSkipped, DeadLettered int64
	// Backpressure is the total time the task was blocked on full
	// channels. A source task chained with its sink task has no channel to
	// it (see Chained): a slow writer slows its loop instead.
	Backpressure time.Duration
	// Chained is true for a task of a vertex that runs in one goroutine
	// with tasks of other vertices (fused: a source task that runs its
	// one sink task's writer in its own loop, and that sink task; the
	// package doc, "Execution"; Config.DisableChaining).
	Chained bool
	// StateBytes and StateEntries describe the keyed state of a task of a
	// stateful operator (state.Stats: the memory or disk it takes, its
	// live entries); 0 for other tasks.
	StateBytes, StateEntries int64 `json:",omitempty"`
	// LateRecords counts the rows an operator task dropped because they
	// arrived behind the watermark (stream.Metrics.LateRows).
	LateRecords int64 `json:",omitempty"`
	// Watermark is the event-time watermark of a source or operator task
	// (milliseconds since the epoch): stream.MinWatermark before the
	// first, stream.MaxWatermark once its input ended.
	Watermark int64 `json:",omitempty"`
	// Partitions lists the position, end offsets and lag of each
	// partition a source task reads, for readers that implement
	// connector.LagReporter (nil otherwise).
	Partitions []connector.PartitionLag
}

// CheckpointStatus summarizes checkpointing.
type CheckpointStatus struct {
	// Completed and Failed count checkpoints since the job started.
	Completed, Failed int64
	// LastID, LastDuration and LastSize describe the latest completed
	// checkpoint; LastCompleted is when it completed (zero: none yet).
	LastID        int64
	LastDuration  time.Duration
	LastSize      int64
	LastCompleted time.Time
	// LastStateSize is the size of the operator state files the latest
	// completed checkpoint references: its keyed state, kept beside its
	// file (LastSize). LastStateWritten is the part of them that this
	// checkpoint wrote; the rest it shares with the checkpoint before it
	// (the on-disk backend's incremental checkpoints).
	LastStateSize, LastStateWritten int64
	// TotalDuration sums the durations of completed checkpoints.
	TotalDuration time.Duration
}

// LastAge returns the age of the last completed checkpoint at now, 0 when
// there is none.
func (c CheckpointStatus) LastAge(now time.Time) time.Duration {
	if c.LastCompleted.IsZero() {
		return 0
	}
	return now.Sub(c.LastCompleted)
}

// statsState holds the job-level numbers the coordinator updates.
type statsState struct {
	mu      sync.Mutex
	ckpt    CheckpointStatus
	pending int
	oldest  time.Time
	paused  bool
	// groupFailures counts failed commits of group positions.
	groupFailures int64
	// degraded are the sinks that cannot deliver now (health.go).
	degraded []Degradation
}

func (s *statsState) groupCommitFailed() {
	s.mu.Lock()
	s.groupFailures++
	s.mu.Unlock()
}

func (s *statsState) completed(id int64, d time.Duration, size, stateSize, stateWritten int64, at time.Time) {
	s.mu.Lock()
	s.ckpt.Completed++
	s.ckpt.TotalDuration += d
	s.ckpt.LastID, s.ckpt.LastDuration, s.ckpt.LastSize, s.ckpt.LastCompleted = id, d, size, at
	s.ckpt.LastStateSize, s.ckpt.LastStateWritten = stateSize, stateWritten
	s.mu.Unlock()
}

func (s *statsState) failed() {
	s.mu.Lock()
	s.ckpt.Failed++
	s.mu.Unlock()
}

func (s *statsState) setPending(n int, oldest time.Time) {
	s.mu.Lock()
	s.pending, s.oldest = n, oldest
	s.mu.Unlock()
}

func (s *statsState) setPaused(p bool) {
	s.mu.Lock()
	s.paused = p
	s.mu.Unlock()
}

// Status implements Metrics.
func (j *Job) Status() Status {
	st := Status{Job: j.spec.Name, Restarts: j.restarts.Load(), Reassignments: j.reassignments.Load(), State: StateCreated}
	if s, ok := j.state.Load().(State); ok {
		st.State = s
	}
	j.stats.mu.Lock()
	st.Checkpoints = j.stats.ckpt
	st.PendingCommits = j.stats.pending
	if !j.stats.oldest.IsZero() {
		st.OldestPendingCommitAge = time.Since(j.stats.oldest)
	}
	st.TriggeringPaused = j.stats.paused
	st.GroupCommitFailures = j.stats.groupFailures
	st.Degraded = slices.Clone(j.stats.degraded)
	j.stats.mu.Unlock()
	st.Recent = j.recent.entries()
	st.Graph = j.graphStatus.Load()
	// The carried counters and the current run are read under one lock:
	// a run that ends moves its counters to the carried ones and stops
	// being current at once (Job.endRun), so they are counted once.
	j.carried.mu.Lock()
	defer j.carried.mu.Unlock()
	a := j.cur.Load()
	if a == nil {
		st.Tasks = j.carried.merge(nil)
		return st
	}
	st.Run = a.run
	for _, rd := range a.readers {
		if _, ok := rd.src.v.Source.(connector.Reassigning); ok {
			if st.Assignment == nil {
				st.Assignment = map[string][]string{}
			}
			ids := st.Assignment[rd.src.id]
			if ids == nil {
				ids = []string{} // an instance may own none
			}
			for _, sp := range rd.splits {
				ids = append(ids, sp.ID)
			}
			st.Assignment[rd.src.id] = ids
		}
	}
	st.Tasks = j.carried.merge(a.taskStatus())
	return st
}

// taskStatus returns the counters of the run's tasks.
func (a *attempt) taskStatus() []TaskStatus {
	var out []TaskStatus
	for _, rd := range a.readers {
		m := rd.m
		ts := TaskStatus{Kind: SourceTask, Name: rd.src.id, Index: rd.index, RecordsIn: m.recordsIn.Load(),
			RecordsOut: m.recordsOut.Load(), Dropped: m.dropped.Load(), Backpressure: m.t.backpressureNow(),
			Chained: m.t.chained(), Watermark: m.t.wmPub.Load()}
		if !m.t.transformed() {
			ts.RecordsOut = ts.RecordsIn // no transform: every row read goes on
		}
		rd.mu.Lock()
		if rd.bytes != nil {
			ts.BytesIn = rd.bytes.Bytes()
		}
		if rd.lags != nil {
			ts.Partitions = rd.lags.PartitionLags(nil)
		}
		if rd.badRecords != nil {
			ts.BadSkipped, ts.DeadLettered = rd.badRecords.BadRecords()
		}
		rd.mu.Unlock()
		out = append(out, ts)
	}
	for _, vr := range a.vertices {
		if vr.v == nil || vr.v.Operator == nil || vr.v.transform != nil {
			continue
		}
		for _, m := range vr.members {
			ts := TaskStatus{Kind: OperatorTask, Name: vr.id, Index: m.index,
				RecordsIn: m.recordsIn.Load(), RecordsOut: m.recordsOut.Load(), Backpressure: m.t.backpressureNow(),
				Chained: m.t.chained(), Watermark: m.t.wmPub.Load()}
			if be := m.backend.Load(); be != nil {
				s := (*be).Stats()
				ts.StateBytes, ts.StateEntries = s.Bytes, s.Entries
			}
			if om := m.metrics.Load(); om != nil {
				ts.LateRecords = om.LateRows.Load()
			}
			out = append(out, ts)
		}
	}
	for _, w := range a.writers() {
		ts := TaskStatus{Kind: SinkTask, Name: w.sink.id, Index: w.index, RecordsIn: w.m.recordsIn.Load(),
			RecordsOut: w.preCommitted.Load(), Chained: w.m.t.chained()}
		w.mu.Lock()
		if w.bytes != nil {
			ts.BytesOut = w.bytes.Bytes()
		}
		if w.delivered != nil {
			ts.RecordsOut = w.delivered.Delivered()
		}
		w.mu.Unlock()
		out = append(out, ts)
	}
	return out
}

// writers returns the run's writer tails, sink by sink.
func (a *attempt) writers() []*writerTail {
	var ws []*writerTail
	for _, s := range a.sinks {
		ws = append(ws, s.tasks...)
	}
	return ws
}

// transformed reports whether the task's reader is followed by a
// pipeline's transform, or its rows leave through edges' transforms.
func (t *task) transformed() bool {
	if len(t.members) == 1 && len(t.outs) > 0 && t.outs[0].tf != nil {
		return true // the edges' transforms count (Edge.Transform)
	}
	return len(t.members) > 1 && t.members[1].v.v != nil && t.members[1].v.v.transform != nil
}

// chained reports whether the task runs more than one vertex (a source's
// transform counts as part of the source).
func (t *task) chained() bool {
	n := 0
	for _, m := range t.members {
		if m.v.v == nil || m.v.v.transform == nil {
			n++
		}
	}
	return n > 1
}
