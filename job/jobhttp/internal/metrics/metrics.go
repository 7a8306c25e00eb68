// Package metrics serves a running job's numbers over HTTP for `streamsql
// run --http ADDR`:
//
//   - /metrics in the Prometheus text format (client_golang), read from
//     runtime.Metrics at scrape time;
//   - /healthz: 200 "ok" while the job is not failed, 503 otherwise;
//   - /status: the job's status as JSON (state, pipelines, the operator
//     graph, tasks, the partitions this instance reads with their lag,
//     checkpoints, pending commits and the oldest one's age, recent
//     warnings and errors);
//   - /: a status page for people (page/index.html and page/page.js,
//     embedded) that polls /status and draws the operator graph live.
//
// Only names (job, source and sink ids, topics), counters, offsets, times
// and the job's own log lines are exposed: no option value of any table,
// so secrets cannot leak through it.
package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/streamsql/streamsql/runtime"
)

// Server serves a job's metrics and status over HTTP.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Serve starts serving src's metrics and status on addr ("host:port";
// port 0 picks a free one). Close stops it.
func Serve(addr string, src runtime.Metrics) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	s := &Server{ln: ln, done: make(chan error, 1)}
	s.srv = &http.Server{Handler: Handler(src), ReadHeaderTimeout: 10 * time.Second}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, waiting up to a few seconds for requests in
// flight, and returns when its goroutine has ended.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.srv.Close())
	}
	if serr := <-s.done; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// Handler returns the HTTP handler of /metrics, /healthz and /status.
func Handler(src runtime.Metrics) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(src))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if src.Status().State == runtime.StateFailed {
			http.Error(w, "failed", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /{$}", servePage)
	mux.HandleFunc("GET /page.js", servePage)
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(StatusOf(src.Status(), time.Now()))
	})
	return mux
}

// Status is the JSON document of /status.
type Status struct {
	Job              string      `json:"job"`
	State            string      `json:"state"`
	Run              string      `json:"run,omitempty"`
	Restarts         int64       `json:"restarts"`
	Tasks            []Task      `json:"tasks"`
	Checkpoints      Checkpoints `json:"checkpoints"`
	PendingCommits   Pending     `json:"pending_commits"`
	TriggeringPaused bool        `json:"triggering_paused"`
	// GroupCommitFailures counts failed commits of consumer group offsets
	// (each also a warning; the job goes on).
	GroupCommitFailures int64 `json:"group_commit_failures"`
	// Time is when the status was taken (RFC 3339, UTC), for rates.
	Time string `json:"time"`
	// Pipelines lists each pipeline's sources and sinks.
	Pipelines []Pipeline `json:"pipelines"`
	// Assignment lists the source partitions this instance reads, with
	// their position, end offsets and lag.
	Assignment []Partition `json:"assignment"`
	// Recent lists the job's latest warnings and errors, oldest first.
	Recent []LogEntry `json:"recent"`
	// Degraded lists the sinks that cannot deliver now (the job is
	// RUNNING, but their output waits), with what their connector
	// reports; empty when all deliver.
	Degraded []Degraded `json:"degraded"`
	// Graph is the dataflow of the job's latest run (absent before the
	// first): the status page draws it, with each vertex's tasks in Tasks
	// (by kind and name = the vertex's id).
	Graph *Graph `json:"graph,omitempty"`
	// ScaleOut is set for a job scaled out over several instances
	// (pipeline.scale-out): the splits the group assigned to this
	// instance per source, and how many runs ended in a reassignment.
	ScaleOut *ScaleOut `json:"scale_out,omitempty"`
}

// Graph is the job's dataflow in /status (runtime.GraphStatus): a
// pipeline's transform is part of its source.
type Graph struct {
	Vertices []Vertex `json:"vertices"`
	Edges    []Edge   `json:"edges"`
}

// Vertex is a source, operator or sink of the graph in /status.
type Vertex struct {
	Kind        string `json:"kind"`
	ID          string `json:"id"`
	Name        string `json:"name"`
	Parallelism int    `json:"parallelism"`
	Stateful    bool   `json:"stateful"`
}

// Edge joins two vertices of the graph in /status (indexes into
// vertices); every row from emits travels on each of its edges.
type Edge struct {
	From     int    `json:"from"`
	To       int    `json:"to"`
	Input    int    `json:"input"`
	Exchange string `json:"exchange"`
	// Fused is true when both ends run in the same tasks (chained).
	Fused bool `json:"fused"`
}

// Degraded is a sink that cannot deliver, in /status.
type Degraded struct {
	Sink string `json:"sink"`
	// Task is the sink task whose writer reports it; -1: the sink's
	// committer.
	Task    int     `json:"task"`
	Problem string  `json:"problem"`
	Since   string  `json:"since"`
	Seconds float64 `json:"for_seconds"`
}

// ScaleOut is the group membership part of /status.
type ScaleOut struct {
	Reassignments int64 `json:"reassignments"`
	// Assignment maps each source id to the split ids ("<topic>:<partition>")
	// the group assigned to this instance; empty when it owns none.
	Assignment map[string][]string `json:"assignment"`
}

// Pipeline is one pipeline in /status: the names of its sources and
// sinks (tables), taken from the task names "<pipeline>/<table>".
type Pipeline struct {
	Name    string   `json:"name"`
	Sources []string `json:"sources"`
	Sinks   []string `json:"sinks"`
}

// Partition is one source partition this instance reads. Offsets not
// known yet (no fetch response seen) are -1, and so is the lag then.
type Partition struct {
	Source           string `json:"source"`
	Task             int    `json:"task"`
	Topic            string `json:"topic"`
	Partition        int32  `json:"partition"`
	Position         int64  `json:"position"`
	HighWatermark    int64  `json:"high_watermark"`
	LastStableOffset int64  `json:"last_stable_offset"`
	Lag              int64  `json:"lag"`
}

// LogEntry is one recent warning or error in /status.
type LogEntry struct {
	Time    string `json:"time"`
	Level   string `json:"level"`
	Message string `json:"message"`
	Attrs   string `json:"attrs,omitempty"`
}

// Task is one task's counters in /status.
type Task struct {
	Kind                string  `json:"kind"`
	Name                string  `json:"name"`
	Index               int     `json:"index"`
	RecordsIn           int64   `json:"records_in"`
	RecordsOut          int64   `json:"records_out"`
	Dropped             int64   `json:"records_dropped"`
	BytesIn             int64   `json:"bytes_in"`
	BytesOut            int64   `json:"bytes_out"`
	BackpressureSeconds float64 `json:"backpressure_seconds"`
	// Chained is true for a source task that runs its one sink task's
	// writer in its own loop, and for that sink task (runtime.TaskStatus).
	Chained bool `json:"chained"`
	// Watermark is a source or operator task's event-time watermark in
	// milliseconds since the epoch (absent before the first).
	Watermark *int64 `json:"watermark_ms,omitempty"`
	// StateBytes, StateEntries and LateRecords are an operator task's
	// (runtime.TaskStatus).
	StateBytes   int64 `json:"state_bytes,omitempty"`
	StateEntries int64 `json:"state_entries,omitempty"`
	LateRecords  int64 `json:"late_records,omitempty"`
}

// Checkpoints summarizes checkpointing in /status.
type Checkpoints struct {
	Completed           int64   `json:"completed"`
	Failed              int64   `json:"failed"`
	LastID              int64   `json:"last_id,omitempty"`
	LastDurationSeconds float64 `json:"last_duration_seconds,omitempty"`
	LastSizeBytes       int64   `json:"last_size_bytes,omitempty"`
	// LastStateBytes is the size of the operator state files the last
	// checkpoint references; LastStateWrittenBytes the part it wrote
	// (the rest is shared with the checkpoint before it).
	LastStateBytes        int64   `json:"last_state_bytes,omitempty"`
	LastStateWrittenBytes int64   `json:"last_state_written_bytes,omitempty"`
	LastCompleted         string  `json:"last_completed,omitempty"`
	LastAgeSeconds        float64 `json:"last_age_seconds,omitempty"`
	TotalDurationSeconds  float64 `json:"total_duration_seconds"`
}

// Pending describes the pending commits in /status.
type Pending struct {
	Count            int     `json:"count"`
	OldestAgeSeconds float64 `json:"oldest_age_seconds"`
}

// StatusOf converts a runtime status to the /status document at now.
func StatusOf(st runtime.Status, now time.Time) Status {
	out := Status{Job: st.Job, State: string(st.State), Run: st.Run, Restarts: st.Restarts,
		Tasks: make([]Task, 0, len(st.Tasks)), TriggeringPaused: st.TriggeringPaused, GroupCommitFailures: st.GroupCommitFailures,
		PendingCommits: Pending{Count: st.PendingCommits, OldestAgeSeconds: st.OldestPendingCommitAge.Seconds()}}
	out.Time = now.UTC().Format(time.RFC3339Nano)
	if g := st.Graph; g != nil {
		out.Graph = &Graph{Vertices: make([]Vertex, 0, len(g.Vertices)), Edges: make([]Edge, 0, len(g.Edges))}
		for _, v := range g.Vertices {
			out.Graph.Vertices = append(out.Graph.Vertices, Vertex{Kind: string(v.Kind), ID: v.ID, Name: v.Name, Parallelism: v.Parallelism, Stateful: v.Stateful})
		}
		for _, e := range g.Edges {
			out.Graph.Edges = append(out.Graph.Edges, Edge{From: e.From, To: e.To, Input: e.Input, Exchange: e.Exchange, Fused: e.Fused})
		}
	}
	if st.Assignment != nil {
		out.ScaleOut = &ScaleOut{Reassignments: st.Reassignments, Assignment: st.Assignment}
	}
	out.Pipelines, out.Assignment, out.Recent = []Pipeline{}, []Partition{}, make([]LogEntry, 0, len(st.Recent))
	out.Degraded = make([]Degraded, 0, len(st.Degraded))
	for _, d := range st.Degraded {
		out.Degraded = append(out.Degraded, Degraded{Sink: d.Sink, Task: d.Task, Problem: d.Problem,
			Since: d.Since.UTC().Format(time.RFC3339Nano), Seconds: now.Sub(d.Since).Seconds()})
	}
	pipes := map[string]int{}
	for _, t := range st.Tasks {
		pn, table, ok := strings.Cut(t.Name, "/")
		if !ok {
			pn, table = "", t.Name
		}
		i, seen := pipes[pn]
		if !seen {
			i = len(out.Pipelines)
			pipes[pn] = i
			out.Pipelines = append(out.Pipelines, Pipeline{Name: pn, Sources: []string{}, Sinks: []string{}})
		}
		p := &out.Pipelines[i]
		if t.Kind == runtime.SourceTask {
			if !slices.Contains(p.Sources, table) {
				p.Sources = append(p.Sources, table)
			}
		} else if t.Kind == runtime.SinkTask && !slices.Contains(p.Sinks, table) {
			p.Sinks = append(p.Sinks, table)
		}
		for _, l := range t.Partitions {
			out.Assignment = append(out.Assignment, Partition{Source: t.Name, Task: t.Index, Topic: l.Topic, Partition: l.Partition,
				Position: l.Position, HighWatermark: l.HighWatermark, LastStableOffset: l.LastStableOffset, Lag: l.Lag})
		}
	}
	for _, e := range st.Recent {
		out.Recent = append(out.Recent, LogEntry{Time: e.Time.UTC().Format(time.RFC3339Nano), Level: e.Level.String(),
			Message: e.Message, Attrs: e.Attrs})
	}
	for _, t := range st.Tasks {
		task := Task{Kind: string(t.Kind), Name: t.Name, Index: t.Index,
			RecordsIn: t.RecordsIn, RecordsOut: t.RecordsOut, Dropped: t.Dropped, BytesIn: t.BytesIn, BytesOut: t.BytesOut,
			BackpressureSeconds: t.Backpressure.Seconds(), Chained: t.Chained,
			StateBytes: t.StateBytes, StateEntries: t.StateEntries, LateRecords: t.LateRecords}
		if t.Watermark != math.MinInt64 && t.Watermark != 0 {
			task.Watermark = &t.Watermark
		}
		out.Tasks = append(out.Tasks, task)
	}
	c := st.Checkpoints
	out.Checkpoints = Checkpoints{Completed: c.Completed, Failed: c.Failed, LastID: c.LastID,
		LastDurationSeconds: c.LastDuration.Seconds(), LastSizeBytes: c.LastSize,
		LastStateBytes: c.LastStateSize, LastStateWrittenBytes: c.LastStateWritten,
		TotalDurationSeconds: c.TotalDuration.Seconds(), LastAgeSeconds: c.LastAge(now).Seconds()}
	if !c.LastCompleted.IsZero() {
		out.Checkpoints.LastCompleted = c.LastCompleted.UTC().Format(time.RFC3339Nano)
	}
	return out
}

// Collector is a prometheus.Collector that reads a job's status at each
// scrape.
type Collector struct {
	src runtime.Metrics

	recordsIn, recordsOut, bytesIn, bytesOut, backpressure          *prometheus.Desc
	dropped, badSkipped, deadLettered                               *prometheus.Desc
	ckptCompleted, ckptFailed, ckptLastID, ckptLastDuration         *prometheus.Desc
	ckptLastSize, ckptLastTime, ckptTotalDuration                   *prometheus.Desc
	ckptLastState, ckptLastStateWritten                             *prometheus.Desc
	pending, pendingAge, restarts, state, triggeringPaused, running *prometheus.Desc
	groupCommitFailures, lag, degraded                              *prometheus.Desc
	stateBytes, stateEntries, lateRecords, watermark                *prometheus.Desc
}

// NewCollector returns a collector of src's metrics. Every metric has the
// label job; task metrics also kind (source, operator, sink), name and
// index.
func NewCollector(src runtime.Metrics) *Collector {
	task := []string{"job", "kind", "name", "index"}
	job := []string{"job"}
	d := func(name, help string, labels []string) *prometheus.Desc {
		return prometheus.NewDesc("streamsql_"+name, help, labels, nil)
	}
	return &Collector{src: src,
		recordsIn:  d("task_records_in_total", "Rows read (source task) or received (sink task).", task),
		recordsOut: d("task_records_out_total", "Rows a source task sent downstream after its filter and projection; records a sink task delivered (acknowledged by the external system, where its connector counts them; else written before its last pre-commit).", task),
		dropped:    d("task_records_dropped_total", "Rows a source task dropped because a NOT NULL sink column got NULL (table.exec.sink.not-null-enforcer = DROP).", task),
		badSkipped: d("task_bad_records_skipped_total",
			"Records a source task could not decode, or whose rows a NOT NULL sink column rejected, that its table's 'scan.bad-record.policy' = 'skip' skipped.", task),
		deadLettered: d("task_dead_letters_total",
			"Records a source task could not decode, or whose rows a NOT NULL sink column rejected, that its table's 'scan.bad-record.policy' = 'dead-letter' set aside for its dead-letter topic.", task),
		bytesIn:          d("task_bytes_in_total", "Bytes read by a source task (connectors that count them).", task),
		bytesOut:         d("task_bytes_out_total", "Bytes written by a sink task (connectors that count them).", task),
		backpressure:     d("task_backpressure_seconds_total", "Time a task was blocked on full channels.", task),
		ckptCompleted:    d("checkpoints_completed_total", "Checkpoints completed since the job started.", job),
		ckptFailed:       d("checkpoints_failed_total", "Checkpoints failed since the job started.", job),
		ckptLastID:       d("checkpoint_last_id", "Id of the latest completed checkpoint.", job),
		ckptLastDuration: d("checkpoint_last_duration_seconds", "Duration of the latest completed checkpoint.", job),
		ckptLastSize:     d("checkpoint_last_size_bytes", "Size of the latest completed checkpoint's file.", job),
		ckptLastState:    d("checkpoint_last_state_bytes", "Size of the operator state files the latest completed checkpoint references (its keyed state).", job),
		ckptLastStateWritten: d("checkpoint_last_state_written_bytes",
			"Bytes of operator state files the latest completed checkpoint wrote; the rest of its state it shares with the checkpoint before it (incremental checkpoints).", job),
		ckptLastTime:      d("checkpoint_last_completion_timestamp_seconds", "When the latest checkpoint completed (Unix time; 0: none yet).", job),
		ckptTotalDuration: d("checkpoint_duration_seconds_total", "Sum of the durations of completed checkpoints.", job),
		pending:           d("pending_commits", "Committables not yet committed.", job),
		pendingAge:        d("pending_commit_oldest_age_seconds", "Age of the oldest pending committable (0: none).", job),
		restarts:          d("restarts_total", "Restarts after failures.", job),
		state:             d("job_state", "1 for the job's current state, 0 for the others.", []string{"job", "state"}),
		triggeringPaused:  d("checkpoint_triggering_paused", "1 while commits lag so much that no checkpoint is triggered.", job),
		running:           d("job_running", "1 while the job is running.", job),
		groupCommitFailures: d("group_commit_failures_total",
			"Failed commits of consumer group offsets (each also a warning; the job goes on).", job),
		degraded: d("sink_degraded", "1 for each sink that cannot deliver now (what its connector reports, such as brokers that cannot be reached, is in /status); absent while all deliver.",
			[]string{"job", "sink"}),
		stateBytes:   d("operator_state_bytes", "Memory (in-memory backend) or disk (on-disk backend) the keyed state of a stateful operator's task takes.", task),
		stateEntries: d("operator_state_entries", "Live entries of the keyed state of a stateful operator's task.", task),
		lateRecords: d("operator_late_records_total",
			"Rows an operator task dropped because their event time was behind its watermark when they arrived (their window had fired).", task),
		watermark: d("task_watermark_ms", "A source or operator task's event-time watermark, milliseconds since the epoch; absent before its first watermark and for tasks without event time.", task),
		lag: d("consumer_lag", "Records between a source partition's position and its end (last stable offset under read_committed, else high watermark); absent until a fetch reported the end. Label table is the source id <pipeline>/<table>.",
			[]string{"job", "table", "topic", "partition"}),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.recordsIn, c.recordsOut, c.dropped, c.badSkipped, c.deadLettered, c.bytesIn, c.bytesOut, c.backpressure,
		c.ckptCompleted, c.ckptFailed, c.ckptLastID, c.ckptLastDuration, c.ckptLastSize, c.ckptLastTime, c.ckptLastState, c.ckptLastStateWritten,
		c.ckptTotalDuration, c.pending, c.pendingAge, c.restarts, c.state, c.triggeringPaused, c.running, c.groupCommitFailures, c.lag, c.degraded,
		c.stateBytes, c.stateEntries, c.lateRecords, c.watermark} {
		ch <- d
	}
}

var states = []runtime.State{runtime.StateCreated, runtime.StateRestoring, runtime.StateRunning,
	runtime.StateRestarting, runtime.StateFinished, runtime.StateStopped, runtime.StateFailed}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.Status()
	job := st.Job
	counter := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, l...)
	}
	gauge := func(d *prometheus.Desc, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
	}
	for _, t := range st.Tasks {
		l := []string{job, string(t.Kind), t.Name, strconv.Itoa(t.Index)}
		counter(c.recordsIn, float64(t.RecordsIn), l...)
		counter(c.recordsOut, float64(t.RecordsOut), l...)
		if t.Kind == runtime.SourceTask {
			counter(c.dropped, float64(t.Dropped), l...)
			counter(c.badSkipped, float64(t.BadSkipped), l...)
			counter(c.deadLettered, float64(t.DeadLettered), l...)
			counter(c.bytesIn, float64(t.BytesIn), l...)
		} else {
			counter(c.bytesOut, float64(t.BytesOut), l...)
		}
		counter(c.backpressure, t.Backpressure.Seconds(), l...)
		if t.Kind == runtime.OperatorTask {
			gauge(c.stateBytes, float64(t.StateBytes), l...)
			gauge(c.stateEntries, float64(t.StateEntries), l...)
			counter(c.lateRecords, float64(t.LateRecords), l...)
		}
		if t.Kind != runtime.SinkTask && t.Watermark != math.MinInt64 && t.Watermark != 0 {
			gauge(c.watermark, float64(t.Watermark), l...)
		}
		for _, p := range t.Partitions {
			if p.Lag >= 0 {
				gauge(c.lag, float64(p.Lag), job, t.Name, p.Topic, strconv.Itoa(int(p.Partition)))
			}
		}
	}
	cp := st.Checkpoints
	counter(c.ckptCompleted, float64(cp.Completed), job)
	counter(c.ckptFailed, float64(cp.Failed), job)
	gauge(c.ckptLastID, float64(cp.LastID), job)
	gauge(c.ckptLastDuration, cp.LastDuration.Seconds(), job)
	gauge(c.ckptLastSize, float64(cp.LastSize), job)
	gauge(c.ckptLastState, float64(cp.LastStateSize), job)
	gauge(c.ckptLastStateWritten, float64(cp.LastStateWritten), job)
	last := 0.0
	if !cp.LastCompleted.IsZero() {
		last = float64(cp.LastCompleted.UnixNano()) / 1e9
	}
	gauge(c.ckptLastTime, last, job)
	counter(c.ckptTotalDuration, cp.TotalDuration.Seconds(), job)
	gauge(c.pending, float64(st.PendingCommits), job)
	gauge(c.pendingAge, st.OldestPendingCommitAge.Seconds(), job)
	counter(c.restarts, float64(st.Restarts), job)
	for _, s := range states {
		v := 0.0
		if s == st.State {
			v = 1
		}
		gauge(c.state, v, job, string(s))
	}
	gauge(c.triggeringPaused, b2f(st.TriggeringPaused), job)
	counter(c.groupCommitFailures, float64(st.GroupCommitFailures), job)
	gauge(c.running, b2f(st.State == runtime.StateRunning), job)
	seen := map[string]bool{}
	for _, d := range st.Degraded {
		if !seen[d.Sink] {
			seen[d.Sink] = true
			gauge(c.degraded, 1, job, d.Sink)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
