package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/browsertest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// dumpDOM loads url in a headless chromium, lets the page's script run
// for a few seconds of virtual time (two polls of /status at least) and
// returns the DOM as it then is.
func dumpDOM(t *testing.T, browser, url string) string {
	t.Helper()
	return browsertest.DumpDOM(t, browser, url, 5*time.Second)
}

// TestStatusPageInBrowser runs a job (datagen → blackhole, and a Kafka
// topic → blackhole on the shared broker) whose file declares a table with
// a password (a SASL_SSL Kafka table cannot run against the plaintext
// broker, so it is declared but not used, as in TestSecretsNeverShown),
// loads its status page in a real headless browser twice, and checks that
// the page's script filled in the live figures — the records count grows
// between the two loads, the Kafka partition shows its end offset and lag
// — and that no secret is on the page.
func TestStatusPageInBrowser(t *testing.T) {
	browser := browsertest.Browser(t)
	b := kafkatest.Require(t)
	topic := b.Topic(t, 1)
	cl := b.Client(t, kgo.DefaultProduceTopic(topic))
	var recs []*kgo.Record
	for i := range 25 {
		recs = append(recs, kgo.StringRecord("v"+strconv.Itoa(i)))
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SECRET", secret)
	job := writeJob(t, fmt.Sprintf(`SET 'execution.checkpointing.interval' = '300ms';
CREATE TABLE secure (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't',
  'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json',
  'properties.security.protocol' = 'SASL_SSL', 'properties.sasl.mechanism' = 'SCRAM-SHA-512',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="${SECRET}";');
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '200', 'seed' = '3');
CREATE TABLE hole (id BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE k (v STRING) WITH ('connector' = 'kafka', 'topic' = '%s', 'format' = 'raw',
  'properties.bootstrap.servers' = '%s', 'scan.startup.mode' = 'earliest-offset',
  'properties.isolation.level' = 'read_committed');
CREATE TABLE hole2 (v STRING) WITH ('connector' = 'blackhole');
INSERT INTO hole SELECT id FROM gen;
INSERT INTO hole2 SELECT v FROM k;
`, topic, b.Addr))
	bg := startCLI(t, "run", "--http", "127.0.0.1:0", "--set", "execution.checkpointing.dir="+t.TempDir(), "--job-name", "pagejob", job)
	var addr string
	waitFor(t, "the HTTP address and a checkpoint", func() bool {
		if strings.Contains(bg.stderr.String(), "ERROR") || strings.Contains(bg.stderr.String(), "error:") {
			t.Fatalf("the job failed:\n%s", bg.stderr)
		}
		m := addrRE.FindStringSubmatch(bg.stderr.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil && strings.Contains(bg.stderr.String(), "checkpoint completed")
	})
	recordsRE := regexp.MustCompile(`id="records">([0-9,]+)<`)
	records := func(dom string) int {
		m := recordsRE.FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("the page shows no records count (did its script run?):\n%s", dom)
		}
		n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		return n
	}
	first := dumpDOM(t, browser, "http://"+addr+"/")
	n1 := records(first)
	var second string
	waitFor(t, "a larger records count on the page", func() bool {
		second = dumpDOM(t, browser, "http://"+addr+"/")
		return records(second) > n1
	})
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`<h1 id="job">pagejob</h1>`),
		regexp.MustCompile(`id="state" class="state RUNNING">RUNNING<`),
		regexp.MustCompile(`id="rate">[0-9,]+<`),                           // a rate: two polls ran
		regexp.MustCompile(`id="ckpt">#[0-9]+<`),                           // the last checkpoint
		regexp.MustCompile(`id="ckptnote">(just now|[0-9]+ s ago) · took`), // and its age
		regexp.MustCompile(`id="pending">[0-9]+<`),
		regexp.MustCompile(`<td>hole</td>`), // a pipeline's sink
		// The Kafka partition: topic, partition 0, position, high
		// watermark and last stable offset 25, lag 0.
		regexp.MustCompile(`<td>` + regexp.QuoteMeta(topic) + `</td><td class="n">0</td><td class="n">25</td><td class="n">25</td><td class="n">25</td><td class="n">0</td>`),
	} {
		if !want.MatchString(second) {
			t.Errorf("the page lacks %s:\n%s", want, second)
		}
	}
	for i, dom := range []string{first, second} {
		if strings.Contains(dom, secret) {
			t.Errorf("load %d shows the secret:\n%s", i, dom)
		}
	}
	if os.Getenv("STREAMSQL_STATUSPAGE_PNG") != "" { // a look at the page: go test -run TestStatusPageInBrowser with it set
		png := filepath.Join(os.Getenv("STREAMSQL_STATUSPAGE_PNG"))
		cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir="+t.TempDir(),
			"--virtual-time-budget=5000", "--window-size=1280,1000", "--screenshot="+png, "http://"+addr+"/")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("screenshot: %v\n%s", err, out)
		}
	}
	if code := bg.stop(t); code != 0 {
		t.Fatalf("exit %d: %s", code, bg.stderr)
	}
}

// TestStatusPageDrawsGraph runs a stateful job (datagen → GROUP BY, and a
// TUMBLE window over event time, each into a blackhole) and loads its
// status page in a real headless browser: the page draws the operator
// graph live — each aggregation a box with its keyed state and entries,
// the window's watermark, the hash exchanges into them with a rate.
func TestStatusPageDrawsGraph(t *testing.T) {
	browser := browsertest.Browser(t)
	job := writeJob(t, `SET 'execution.checkpointing.interval' = '300ms';
CREATE TABLE gen (id BIGINT, k INT, ts AS LOCALTIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '500', 'seed' = '3', 'fields.k.min' = '1', 'fields.k.max' = '50');
CREATE TABLE counts (k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole');
CREATE TABLE wins (k INT, ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO counts SELECT k, COUNT(*) FROM gen GROUP BY k;
INSERT INTO wins SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '1' SECOND))
  GROUP BY k, window_start, window_end;
`)
	bg := startCLI(t, "run", "--http", "127.0.0.1:0", "--set", "execution.checkpointing.dir="+t.TempDir(), "--job-name", "graphjob", job)
	var addr string
	waitFor(t, "the HTTP address", func() bool {
		if strings.Contains(bg.stderr.String(), "ERROR") || strings.Contains(bg.stderr.String(), "error:") {
			t.Fatalf("the job failed:\n%s", bg.stderr)
		}
		m := addrRE.FindStringSubmatch(bg.stderr.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	// Wait until both aggregations hold state and the window's operator
	// has a watermark, as /status says.
	waitFor(t, "state in both aggregations and a window watermark", func() bool {
		resp, err := http.Get("http://" + addr + "/status")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var st struct {
			Tasks []struct {
				Kind      string `json:"kind"`
				Name      string `json:"name"`
				Entries   int64  `json:"state_entries"`
				Watermark *int64 `json:"watermark_ms"`
			} `json:"tasks"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			return false
		}
		withState, withWM := 0, 0
		for _, x := range st.Tasks {
			if x.Kind == "operator" && x.Entries > 0 {
				withState++
				if x.Watermark != nil {
					withWM++
				}
			}
		}
		return withState >= 2 && withWM >= 1
	})
	dom := dumpDOM(t, browser, "http://"+addr+"/")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`<text class="title" x="10" y="19">GroupAggregate\(keys=\[k\][^<]*</text><text class="sub" x="10" y="36">operator · keyed state · 1 task</text>`),
		regexp.MustCompile(`<text class="title" x="10" y="19">WindowAggregate[^<]*</text><text class="sub" x="10" y="36">operator · keyed state · 1 task</text>`),
		regexp.MustCompile(`<text class="state" x="10" y="70">state [0-9.]+ (B|KiB|MiB) · [1-9][0-9]* entries</text>`),
		regexp.MustCompile(`<text class="wm" x="10" y="87">watermark 20[0-9]{2}-[0-9]{2}-[0-9]{2} [0-9:.]+</text>`),
		regexp.MustCompile(`<text class="sub" x="10" y="36">source · 1 task</text>`),
		regexp.MustCompile(`<text class="title" x="10" y="19">counts</text><text class="sub" x="10" y="36">sink · 1 task</text>`),
		regexp.MustCompile(`>hash</text><text class="erate" id="edgerate[0-9]+" [^>]*>[0-9,]+/s</text>`), // a rate: two polls ran
		regexp.MustCompile(`<polyline points="[0-9.]+,[0-9.]+ `),                                         // the rate chart
	} {
		if !want.MatchString(dom) {
			t.Errorf("the page lacks %s:\n%s", want, dom)
		}
	}
	if os.Getenv("STREAMSQL_STATUSPAGE_PNG") != "" { // a look at the page
		cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir="+t.TempDir(),
			"--virtual-time-budget=5000", "--window-size=1280,1000", "--screenshot="+os.Getenv("STREAMSQL_STATUSPAGE_PNG"), "http://"+addr+"/")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("screenshot: %v\n%s", err, out)
		}
	}
	if code := bg.stop(t); code != 0 {
		t.Fatalf("exit %d: %s", code, bg.stderr)
	}
}
