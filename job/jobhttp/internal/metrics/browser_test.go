package metrics

import (
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/internal/testrig/browsertest"
	"github.com/streamsql/streamsql/runtime"
)

// TestPageRendersStatus loads the page in headless chromium against a
// fixed status and checks what its script made of it: a partition whose
// end is unknown, the recent warning, and a log message full of markup
// shown as text, never run or parsed as HTML. (cmd/streamsql's
// TestStatusPageInBrowser does the same against a running job.)
func TestPageRendersStatus(t *testing.T) {
	browser := browsertest.Browser(t)
	st := lagged()
	st.Reassignments = 1
	st.Assignment = map[string][]string{"p/src": {"orders:0", "orders:3"}, "p/other": {}}
	st.Recent = append(st.Recent, runtime.LogEntry{Time: time.Unix(1700000002, 0), Level: slog.LevelError,
		Message: `<img src=x onerror="document.body.dataset.pwned=1"><b>bold</b>`})
	f := fixed(st)
	srv := httptest.NewServer(Handler(&f))
	defer srv.Close()
	dom := browsertest.DumpDOM(t, browser, srv.URL+"/", 3*time.Second)
	for _, want := range []string{
		`<h1 id="job">orders</h1>`,
		`id="lag">10<`, `1 of 2 partitions known`,
		`<td>orders</td><td class="n">0</td><td class="n">40</td><td class="n">52</td><td class="n">50</td><td class="n lagged">10</td>`,
		`<td>orders</td><td class="n">3</td><td class="n">7</td><td class="n">–</td><td class="n">–</td><td class="n">unknown</td>`,
		`<td class="WARN">WARN</td><td>kafka source: slow <span class="attrs">task=0</span></td>`,
		`<td class="nowrap">2023-11-14 22:13:21</td>`,
		`&lt;img src=x onerror="document.body.dataset.pwned=1"&gt;&lt;b&gt;bold&lt;/b&gt;`,
		`id="pending">3<`, `id="ckpt">#5<`,
		`<p id="scaleout" class="muted">Scaled out: the consumer group assigned p/other → nothing; p/src → orders:0, orders:3 · 1 reassignment so far</p>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %s:\n%s", want, dom)
		}
	}
	if strings.Contains(dom, "pwned") && !strings.Contains(dom, "&lt;img") || strings.Contains(dom, `data-pwned`) || strings.Contains(dom, "<b>bold</b>") {
		t.Errorf("a log message was parsed as HTML:\n%s", dom)
	}
}

// moving is a job whose counters grow with real time: a source reading
// about rate rows a second into a stateful operator whose state grows too,
// then a sink; and a Kafka partition whose lag it reports.
type moving struct {
	start time.Time
	rate  float64
}

func (m *moving) Status() runtime.Status {
	n := int64(time.Since(m.start).Seconds() * m.rate)
	st := runtime.Status{Job: "agg", State: runtime.StateRunning, Run: "r1",
		Graph: &runtime.GraphStatus{
			Vertices: []runtime.VertexStatus{
				{Kind: runtime.SourceTask, ID: "p/bids", Name: "bids", Parallelism: 2},
				{Kind: runtime.OperatorTask, ID: "p/agg", Name: "GroupAggregate(keys=[bidder])", Parallelism: 1, Stateful: true},
				{Kind: runtime.SinkTask, ID: "p/out", Name: "out", Parallelism: 1},
			},
			Edges: []runtime.EdgeStatus{{From: 0, To: 1, Exchange: "hash"}, {From: 1, To: 2, Exchange: "forward", Fused: true}},
		},
		Checkpoints: runtime.CheckpointStatus{Completed: 3, LastID: 3, LastDuration: 40 * time.Millisecond, LastCompleted: time.Now(),
			LastStateSize: 3 << 20, LastStateWritten: 512 << 10},
		Tasks: []runtime.TaskStatus{
			{Kind: runtime.SourceTask, Name: "p/bids", Index: 0, RecordsIn: n, RecordsOut: n, Watermark: 1700000000000,
				Partitions: []connector.PartitionLag{{Topic: "bids", Partition: 0, Position: n, HighWatermark: 2 * n, LastStableOffset: 2 * n, Lag: n}}},
			{Kind: runtime.SourceTask, Name: "p/bids", Index: 1, RecordsIn: n, RecordsOut: n, Watermark: 1700000000500},
			{Kind: runtime.OperatorTask, Name: "p/agg", Index: 0, RecordsIn: 2 * n, RecordsOut: n, StateBytes: 5 << 20, StateEntries: 1234,
				LateRecords: 7, Watermark: 1700000000000},
			{Kind: runtime.SinkTask, Name: "p/out", Index: 0, RecordsIn: n, RecordsOut: n, Chained: true},
		}}
	return st
}

// TestPageDrawsGraph loads the page in headless chromium against a job
// whose counters move and checks the operator graph it drew: a box per
// vertex with its tasks, rates, state, watermark and late rows, an edge per
// edge with its exchange and a rate, and the two charts with points.
func TestPageDrawsGraph(t *testing.T) {
	browser := browsertest.Browser(t)
	m := &moving{start: time.Now().Add(-time.Minute), rate: 1e6}
	srv := httptest.NewServer(Handler(m))
	defer srv.Close()
	dom := browsertest.DumpDOM(t, browser, srv.URL+"/", 7*time.Second)
	for _, want := range []string{
		`<text class="title" x="10" y="19">bids</text><text class="sub" x="10" y="36">source · 2 tasks</text>`,
		`<text class="title" x="10" y="19">GroupAggregate(keys=[bidder])</text><text class="sub" x="10" y="36">operator · keyed state · 1 task</text>`,
		`<text class="state" x="10" y="70">state 5.0 MiB · 1,234 entries</text>`,
		// A vertex's watermark is its tasks' smallest.
		`watermark 2023-11-14 22:13:20.000</text>`,
		`<text class="late" x="10" y="104">7 late rows dropped</text>`,
		`<text class="sub" x="10" y="36">sink · 1 task</text>`,
		`<path class="edge" id="edge0"`, `<path class="edge fused" id="edge1"`,
		`>hash</text>`, `>forward · chained</text>`,
		// The pipelines table lists an operator neither as a source nor as
		// a sink.
		`<tbody id="pipelines"><tr><td>p</td><td>bids</td><td>out</td></tr></tbody>`,
		// The tasks table: the operator's state, late rows and watermark.
		`<td class="n">5.0 MiB</td><td class="n">7</td><td>2023-11-14 22:13:20.000</td>`,
		// The last checkpoint's state: referenced, and written by it.
		` · took 40 ms · state 3.0 MiB (512 KiB written) · 3 done, 0 failed<`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %s:\n%s", want, dom)
		}
	}
	// Rates need two polls: the source reads 2×10^6 rows/s, the operator
	// emits 10^6 (the clock the page divides by is the server's, so the
	// figures are near, not equal).
	for _, c := range []struct {
		re       string
		min, max float64
	}{
		{`id="edgerate0"[^>]*>([0-9,]+)/s<`, 1.5e6, 2.5e6},
		{`id="edgerate1"[^>]*>([0-9,]+)/s<`, 0.7e6, 1.3e6},
		{`id="rate">([0-9,]+)<`, 1.5e6, 2.5e6},
	} {
		m := regexp.MustCompile(c.re).FindStringSubmatch(dom)
		if m == nil {
			t.Errorf("the page lacks %s:\n%s", c.re, dom)
			continue
		}
		v, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if v < c.min || v > c.max {
			t.Errorf("%s: %v, want %v to %v", c.re, v, c.min, c.max)
		}
	}
	for _, id := range []string{"ratechart", "lagchart"} {
		if !regexp.MustCompile(`id="` + id + `"[^>]*>(<line[^>]*></line>){3}<polyline points="[0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+`).MatchString(dom) {
			t.Errorf("chart %s has no line of at least two points:\n%s", id, dom)
		}
	}
}
