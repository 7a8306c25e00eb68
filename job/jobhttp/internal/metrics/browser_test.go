package metrics

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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
