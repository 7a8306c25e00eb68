package metrics

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/streamsql/streamsql/runtime"
)

type fixed runtime.Status

func (f *fixed) Status() runtime.Status { return runtime.Status(*f) }

var sample = runtime.Status{Job: "orders", State: runtime.StateRunning, Run: "r1", Restarts: 2,
	Tasks: []runtime.TaskStatus{
		{Kind: runtime.SourceTask, Name: "p/src", Index: 0, RecordsIn: 10, RecordsOut: 7, BytesIn: 100, Backpressure: 1500 * time.Millisecond},
		{Kind: runtime.SinkTask, Name: "p/out", Index: 1, RecordsIn: 7, BytesOut: 70, Chained: true},
	},
	Checkpoints: runtime.CheckpointStatus{Completed: 4, Failed: 1, LastID: 5, LastDuration: 20 * time.Millisecond,
		LastSize: 300, LastCompleted: time.Unix(1700000000, 0), TotalDuration: 80 * time.Millisecond,
		LastStateSize: 4096, LastStateWritten: 1024},
	PendingCommits: 3, OldestPendingCommitAge: 2 * time.Second, TriggeringPaused: true, GroupCommitFailures: 6}

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body)
}

func TestMetrics(t *testing.T) {
	st := fixed(sample)
	code, body := get(t, Handler(&st), "/metrics")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	for _, want := range []string{
		`streamsql_task_records_in_total{index="0",job="orders",kind="source",name="p/src"} 10`,
		`streamsql_task_records_out_total{index="0",job="orders",kind="source",name="p/src"} 7`,
		`streamsql_task_bytes_out_total{index="1",job="orders",kind="sink",name="p/out"} 70`,
		`streamsql_task_backpressure_seconds_total{index="0",job="orders",kind="source",name="p/src"} 1.5`,
		`streamsql_checkpoints_completed_total{job="orders"} 4`,
		`streamsql_checkpoints_failed_total{job="orders"} 1`,
		`streamsql_checkpoint_last_id{job="orders"} 5`,
		`streamsql_checkpoint_last_state_bytes{job="orders"} 4096`,
		`streamsql_checkpoint_last_state_written_bytes{job="orders"} 1024`,
		`streamsql_checkpoint_last_completion_timestamp_seconds{job="orders"} 1.7e+09`,
		`streamsql_pending_commits{job="orders"} 3`,
		`streamsql_pending_commit_oldest_age_seconds{job="orders"} 2`,
		`streamsql_restarts_total{job="orders"} 2`,
		`streamsql_job_state{job="orders",state="RUNNING"} 1`,
		`streamsql_job_state{job="orders",state="FAILED"} 0`,
		`streamsql_checkpoint_triggering_paused{job="orders"} 1`,
		`streamsql_group_commit_failures_total{job="orders"} 6`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
}

func TestStatusAndHealth(t *testing.T) {
	st := fixed(sample)
	h := Handler(&st)
	code, body := get(t, h, "/status")
	var got Status
	if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
		t.Fatalf("%d %v %s", code, err, body)
	}
	if got.Job != "orders" || got.State != "RUNNING" || len(got.Tasks) != 2 || got.Tasks[1].BytesOut != 70 ||
		got.Checkpoints.LastID != 5 || got.Checkpoints.LastStateBytes != 4096 || got.Checkpoints.LastStateWrittenBytes != 1024 || got.Checkpoints.LastCompleted != "2023-11-14T22:13:20Z" ||
		got.PendingCommits.Count != 3 || got.PendingCommits.OldestAgeSeconds != 2 || !got.TriggeringPaused ||
		got.GroupCommitFailures != 6 || got.Tasks[0].Chained || !got.Tasks[1].Chained {
		t.Errorf("/status: %+v", got)
	}
	if code, body := get(t, h, "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	st.State = runtime.StateFailed
	if code, _ := get(t, h, "/healthz"); code != http.StatusServiceUnavailable {
		t.Errorf("/healthz of a failed job: %d", code)
	}
	if code, _ := get(t, h, "/nope"); code != 404 {
		t.Errorf("/nope: %d", code)
	}
}

func TestServeAndClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	st := fixed(sample)
	s, err := Serve("127.0.0.1:0", &st)
	if err != nil {
		t.Fatal(err)
	}
	cl := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := cl.Get("http://" + s.Addr() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Get("http://" + s.Addr() + "/healthz"); err == nil {
		t.Error("still serving after Close")
	}
	if _, err := Serve(s.Addr()+"x", &st); err == nil {
		t.Error("a bad address was accepted")
	}
}

// TestOperatorMetrics: an operator task's state size, late rows and
// watermark are on /metrics and /status; a task without event time has
// no watermark there.
func TestOperatorMetrics(t *testing.T) {
	st := fixed(runtime.Status{Job: "agg", State: runtime.StateRunning, Tasks: []runtime.TaskStatus{
		{Kind: runtime.SourceTask, Name: "p/src", Watermark: math.MinInt64},
		{Kind: runtime.OperatorTask, Name: "p/window", Index: 1, RecordsIn: 9, RecordsOut: 2, StateBytes: 4096, StateEntries: 12,
			LateRecords: 3, Watermark: 1700000000000},
	}})
	_, body := get(t, Handler(&st), "/metrics")
	for _, want := range []string{
		`streamsql_operator_state_bytes{index="1",job="agg",kind="operator",name="p/window"} 4096`,
		`streamsql_operator_state_entries{index="1",job="agg",kind="operator",name="p/window"} 12`,
		`streamsql_operator_late_records_total{index="1",job="agg",kind="operator",name="p/window"} 3`,
		`streamsql_task_watermark_ms{index="1",job="agg",kind="operator",name="p/window"} 1.7e+12`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, `streamsql_task_watermark_ms{index="0",job="agg",kind="source"`) {
		t.Errorf("/metrics has a watermark for a task without one:\n%s", body)
	}
	_, body = get(t, Handler(&st), "/status")
	var got Status
	if err := json.Unmarshal([]byte(body), &got); err != nil || len(got.Tasks) != 2 || got.Tasks[0].Watermark != nil ||
		got.Tasks[1].Watermark == nil || *got.Tasks[1].Watermark != 1700000000000 || got.Tasks[1].StateBytes != 4096 || got.Tasks[1].LateRecords != 3 {
		t.Fatalf("/status: %v %+v", err, got)
	}
}
