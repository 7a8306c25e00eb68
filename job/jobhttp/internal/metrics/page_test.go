package metrics

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/runtime"
)

// lagged is sample with a Kafka source's partitions (one end unknown yet)
// and a recent warning.
func lagged() runtime.Status {
	st := sample
	st.Tasks = append([]runtime.TaskStatus(nil), sample.Tasks...)
	st.Tasks[0].Partitions = []connector.PartitionLag{
		{Topic: "orders", Partition: 0, Position: 40, HighWatermark: 52, LastStableOffset: 50, Lag: 10},
		{Topic: "orders", Partition: 3, Position: 7, HighWatermark: -1, LastStableOffset: -1, Lag: -1},
	}
	st.Recent = []runtime.LogEntry{{Time: time.Unix(1700000001, 0), Level: slog.LevelWarn, Message: "kafka source: slow", Attrs: "task=0"}}
	return st
}

func TestStatusAssignmentPipelinesAndRecent(t *testing.T) {
	st := fixed(lagged())
	_, body := get(t, Handler(&st), "/status")
	var got Status
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("%v %s", err, body)
	}
	wantAssign := []Partition{
		{Source: "p/src", Task: 0, Topic: "orders", Partition: 0, Position: 40, HighWatermark: 52, LastStableOffset: 50, Lag: 10},
		{Source: "p/src", Task: 0, Topic: "orders", Partition: 3, Position: 7, HighWatermark: -1, LastStableOffset: -1, Lag: -1},
	}
	if !reflect.DeepEqual(got.Assignment, wantAssign) {
		t.Errorf("assignment %+v, want %+v", got.Assignment, wantAssign)
	}
	if want := []Pipeline{{Name: "p", Sources: []string{"src"}, Sinks: []string{"out"}}}; !reflect.DeepEqual(got.Pipelines, want) {
		t.Errorf("pipelines %+v, want %+v", got.Pipelines, want)
	}
	if want := []LogEntry{{Time: "2023-11-14T22:13:21Z", Level: "WARN", Message: "kafka source: slow", Attrs: "task=0"}}; !reflect.DeepEqual(got.Recent, want) {
		t.Errorf("recent %+v, want %+v", got.Recent, want)
	}
	// Empty lists are [] for the page's script, never null.
	empty := fixed(runtime.Status{Job: "j"})
	_, body = get(t, Handler(&empty), "/status")
	for _, k := range []string{`"pipelines": []`, `"assignment": []`, `"recent": []`} {
		if !strings.Contains(body, k) {
			t.Errorf("/status of a job without tasks lacks %s:\n%s", k, body)
		}
	}
}

func TestConsumerLagGauge(t *testing.T) {
	st := fixed(lagged())
	_, body := get(t, Handler(&st), "/metrics")
	want := `streamsql_consumer_lag{job="orders",partition="0",table="p/src",topic="orders"} 10` + "\n"
	if !strings.Contains(body, want) {
		t.Errorf("/metrics lacks %q:\n%s", want, body)
	}
	if strings.Contains(body, `partition="3"`) {
		t.Errorf("/metrics has a lag for a partition whose end is unknown:\n%s", body)
	}
}

func TestPageServed(t *testing.T) {
	st := fixed(sample)
	h := Handler(&st)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	body := rec.Body.String()
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(body, `<script src="page.js">`) || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("/: %d %v\n%s", rec.Code, rec.Header(), body)
	}
	// Nothing from elsewhere: every src and href is relative.
	for _, attr := range []string{`src="`, `href="`} {
		for _, part := range strings.Split(body, attr)[1:] {
			if strings.Contains(part[:strings.IndexByte(part, '"')], ":") {
				t.Errorf("/ loads %s%s", attr, part[:strings.IndexByte(part, '"')])
			}
		}
	}
	code, js := get(t, h, "/page.js")
	if code != 200 || !strings.Contains(js, `fetch("status"`) {
		t.Errorf("/page.js: %d %.200s", code, js)
	}
	if code, _ := get(t, h, "/index.html"); code != 404 {
		t.Errorf("/index.html: %d", code)
	}
}

func TestStatusScaleOut(t *testing.T) {
	st := lagged()
	f := fixed(st)
	_, body := get(t, Handler(&f), "/status")
	if strings.Contains(body, "scale_out") {
		t.Errorf("/status of a job that is not scaled out has scale_out:\n%s", body)
	}
	st.Reassignments = 2
	st.Assignment = map[string][]string{"p/src": {"orders:0", "orders:3"}, "p/other": {}}
	f = fixed(st)
	_, body = get(t, Handler(&f), "/status")
	var got Status
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	want := &ScaleOut{Reassignments: 2, Assignment: map[string][]string{"p/src": {"orders:0", "orders:3"}, "p/other": {}}}
	if !reflect.DeepEqual(got.ScaleOut, want) {
		t.Errorf("scale_out %+v, want %+v", got.ScaleOut, want)
	}
}

func TestStatusGraph(t *testing.T) {
	m := &moving{start: time.Now(), rate: 1}
	_, body := get(t, Handler(m), "/status")
	var got Status
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("%v %s", err, body)
	}
	want := &Graph{
		Vertices: []Vertex{
			{Kind: "source", ID: "p/bids", Name: "bids", Parallelism: 2},
			{Kind: "operator", ID: "p/agg", Name: "GroupAggregate(keys=[bidder])", Parallelism: 1, Stateful: true},
			{Kind: "sink", ID: "p/out", Name: "out", Parallelism: 1},
		},
		Edges: []Edge{{From: 0, To: 1, Exchange: "hash"}, {From: 1, To: 2, Exchange: "forward", Fused: true}},
	}
	if !reflect.DeepEqual(got.Graph, want) {
		t.Errorf("graph %+v, want %+v", got.Graph, want)
	}
	if want := []Pipeline{{Name: "p", Sources: []string{"bids"}, Sinks: []string{"out"}}}; !reflect.DeepEqual(got.Pipelines, want) {
		t.Errorf("pipelines %+v, want %+v", got.Pipelines, want)
	}
	st := fixed(sample)
	if _, body := get(t, Handler(&st), "/status"); strings.Contains(body, `"graph"`) {
		t.Errorf("/status of a job without a graph (not run yet) has one:\n%s", body)
	}
}
