package exactlyonce

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// The end-of-input test (the final watermark against the final checkpoint).
// A bounded job reads a Kafka topic whose rows span 3.5 seconds of event
// time and counts them per key in 1-second tumbling windows into the
// exactly-once Kafka sink (json) and the filesystem sink, and in sessions
// (gap 150 ms, partitioned by key) into the exactly-once Kafka sink. The
// watermark is each partition's largest timestamp, so the windows
// [0 s, 1 s) to [2 s, 3 s) fire while the input is read and the last one,
// [3 s, 4 s), only when end of input sends the maximum watermark; so do
// the sessions still open at the end (with 6 keys, rows of a key are rarely
// 150 ms apart: most keys have one session, which only the end closes).
// The checkpoint interval is an hour: the only checkpoint is the final
// one, checkpoint 1, which the fault rules (@1) kill the job in. Each point
// runs on one of the state backends, in turn (on both with
// STREAMSQL_SOAK=1).
//
// Pass: after the kill, nothing is committed yet unless the final
// checkpoint was complete, and FINISHED.json does not exist; the restarted
// job finishes; each sink then holds every window exactly once, those the
// end closes included; FINISHED.json exists; a third run does nothing.

// windowEndPoints are the fault points of a final checkpoint, in protocol
// order ("during-recovery": of the restored final checkpoint). The final
// checkpoint of an ended input writes no operator state under the default
// retention (docs/runtime.md), so it has no state-write points; the
// runtime's TestWatermarkEndOfInput kills those with retained checkpoints.
var windowEndPoints = []string{
	"before-pre-commit", "after-pre-commit",
	"before-checkpoint-write", "after-checkpoint-written", "between-sink-commits", "commit-delay",
	"after-commit", "during-recovery",
}

// windowEndComplete is the index of the first point of windowEndPoints at
// which the final checkpoint is complete.
const windowEndComplete = 3

// windowEndJob is the job of one case.
type windowEndJob struct {
	b                  kafkatest.Broker
	backend            string
	dir, name, in, out string
	session            string // the session sink's topic
	files              string // the filesystem sink's path
	per                int
}

func (j windowEndJob) file() jobFile {
	text := `CREATE TABLE src (k BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'kafka', 'topic' = '` + j.in + `', 'properties.bootstrap.servers' = '` + j.b.Addr + `',
  'properties.isolation.level' = 'read_committed', 'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset', 'format' = 'json', 'scan.parallelism' = '2');
CREATE TABLE win_kafka (` + windowSinkColumns + `) WITH ('connector' = 'kafka', 'topic' = '` + j.out + `',
  'properties.bootstrap.servers' = '` + j.b.Addr + `', 'format' = 'json', 'sink.parallelism' = '2',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + j.name + `');
CREATE TABLE win_files (` + windowSinkColumns + `) WITH ('connector' = 'filesystem', 'path' = '` + j.files + `',
  'format' = 'json', 'sink.parallelism' = '2');
CREATE TABLE win_session (` + windowSinkColumns + `) WITH ('connector' = 'kafka', 'topic' = '` + j.session + `',
  'properties.bootstrap.servers' = '` + j.b.Addr + `', 'format' = 'json', 'sink.parallelism' = '2',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + j.name + `-session');
EXECUTE STATEMENT SET BEGIN
INSERT INTO win_kafka ` + tumbleWindow.query() + `;
INSERT INTO win_files ` + tumbleWindow.query() + `;
INSERT INTO win_session ` + sessionWindow.query() + `;
END;
`
	return jobFile{name: j.name, dir: j.dir, text: text, set: map[string]string{
		"execution.checkpointing.interval": "1h",
		"execution.checkpointing.dir":      filepath.Join(j.dir, "checkpoints"),
		"parallelism.default":              "2",
		"state.backend.type":               j.backend,
		"restart-strategy.type":            "none",
	}}
}

// finished reports whether the job's FINISHED.json exists.
func (j windowEndJob) finished(t *testing.T) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(j.dir, "checkpoints", j.name, "FINISHED.json"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

// sinkRows are the committed rows of the job's three sinks.
type sinkRows struct{ kafka, session, files []row }

// output returns the committed rows of the sinks; with now, without
// waiting for open transactions to end (a killed run's stay open until
// the next run's recovery).
func (j windowEndJob) output(t *testing.T, now bool) sinkRows {
	t.Helper()
	read := committed
	if now {
		read = committedNow
	}
	var out sinkRows
	var err error
	if out.kafka, err = rowsOf(read(t, j.b, j.out), windowCols); err != nil {
		t.Fatal(err)
	}
	if out.session, err = rowsOf(read(t, j.b, j.session), windowCols); err != nil {
		t.Fatal(err)
	}
	if out.files, _, err = committedFiles(j.files, windowCols); err != nil {
		t.Fatal(err)
	}
	return out
}

// n is the number of rows in all sinks.
func (s sinkRows) n() int { return len(s.kafka) + len(s.session) + len(s.files) }

// closedByEnd returns how many of the windows rows end after the largest
// time of the input: only the end of the input closes them.
func closedByEnd(rows []row, in []aggIn) int {
	var maxTS time.Time
	for _, r := range in {
		if r.ts.After(maxTS) {
			maxTS = r.ts
		}
	}
	n := 0
	for _, r := range rows {
		end, err := time.Parse(tsLayout, strings.Split(r, "|")[2])
		if err != nil {
			panic(err) // the oracle wrote it
		}
		if end.After(maxTS) {
			n++
		}
	}
	return n
}

// TestLastWindowAtEndOfInput kills the bounded window job at each fault
// point of its final checkpoint (against both brokers: every point on the
// default one, those of the Kafka commit on the other; each on one state
// backend, in turn), restarts it, and checks that every window, those end
// of input closes included, is committed exactly once, and that
// FINISHED.json comes only with it. With STREAMSQL_SOAK=1 every point runs
// on both brokers and both backends.
func TestLastWindowAtEndOfInput(t *testing.T) {
	rng := crashtest.Rand(t, 4)
	brokers := kafkatest.RequireAll(t)
	backends := []string{"hashmap", "rocksdb"}
	turn := 0
	for _, b := range brokers {
		points := windowEndPoints
		if b.Name != "tv2" && !soak() {
			points = []string{"after-pre-commit", "after-checkpoint-written", "after-commit"}
		}
		for _, point := range points {
			on := []string{backends[turn%2]}
			turn++
			if soak() {
				on = backends
			}
			for _, backend := range on {
				seed := rng.Uint64()
				t.Run(b.Name+"/"+point+"/"+backend, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(seed, 4))
					dir := t.TempDir()
					j := windowEndJob{b: b, backend: backend, dir: dir, name: kafkatest.UniqueName(t), in: b.Topic(t, aggParts),
						out: b.Topic(t, 2), session: b.Topic(t, 2), files: filepath.Join(dir, "files"), per: 350}
					in, all := aggInput(j.in, rng, j.per, 6)
					in.produce(t, b, j.per, 0)()
					want := tumbleWindow.oracle(all)
					wantSessions := sessionWindow.oracle(all)
					lastWindows, lastSessions := closedByEnd(want, all), closedByEnd(wantSessions, all)
					if lastWindows == 0 || lastSessions == 0 {
						t.Fatalf("the input leaves %d windows and %d sessions to the end of the input; want some of each", lastWindows, lastSessions)
					}
					jf := j.file()
					rule := point + "@1:kill"
					if point == "during-recovery" {
						if !jf.run(t, "after-checkpoint-written@1:kill", 0) {
							t.Fatal("the job finished before after-checkpoint-written@1")
						}
					}
					if !jf.run(t, rule, 0) {
						t.Fatalf("the job finished before %s", rule)
					}
					if j.finished(t) {
						t.Fatalf("FINISHED.json exists after a kill at %s, before the job finished", rule)
					}
					if n := j.output(t, true).n(); n > 0 && !slices.Contains(windowEndPoints[windowEndComplete:], point) {
						t.Fatalf("killed at %s, before the final checkpoint was complete, yet %d rows are committed", rule, n)
					}
					jf.finish(t)
					if !j.finished(t) {
						t.Fatal("the job finished without FINISHED.json")
					}
					got := j.output(t, false)
					for _, s := range []struct {
						name      string
						got, want []row
					}{{"win_kafka", got.kafka, want}, {"win_files", got.files, want}, {"win_session", got.session, wantSessions}} {
						if d := multisetDiff(s.got, s.want); d != "" {
							t.Errorf("%s: %s", s.name, d)
						}
					}
					// A run after the end does nothing.
					jf.finish(t)
					if again := j.output(t, false); again.n() != got.n() {
						t.Errorf("a run after FINISHED.json wrote again: %d rows, then %d", got.n(), again.n())
					}
					t.Logf("killed at %s; %d windows and %d sessions (%d and %d of them closed by end of input) committed once in each sink",
						rule, len(want), len(wantSessions), lastWindows, lastSessions)
				})
			}
		}
	}
}
