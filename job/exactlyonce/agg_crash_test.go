package exactlyonce

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/internal/testrig/crashtest"
	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// The aggregation crash test (a snapshot cut while rows keep flowing,
// written asynchronously, acknowledged, pruned). One job file reads a Kafka
// topic of (k, v, ts) rows, produced while the job runs, and writes, in one
// statement set:
//
//	agg_cdc     GROUP BY k: COUNT(*), SUM(v)           exactly-once kafka, debezium-json
//	agg_upsert  the same                               upsert-kafka, exactly-once
//	agg_files   the same                               filesystem, debezium-json
//	agg_distinct GROUP BY k: COUNT(DISTINCT v),        upsert-kafka, exactly-once
//	            COUNT(DISTINCT v) FILTER (WHERE v > 0),
//	            SUM(DISTINCT v) (three calls sharing
//	            one map of value counts)
//	win_json    TUMBLE 1 s by k: COUNT(*), SUM(v)      exactly-once kafka, json
//	win_upsert  the same                               upsert-kafka keyed by (k, window_start)
//	win_files   the same                               filesystem (json)
//	win_hop     HOP 2 s every 500 ms, the same         exactly-once kafka, json
//	win_cum     CUMULATE to 2 s by 500 ms, the same    exactly-once kafka, json
//	win_session SESSION (gap 150 ms) by k, the same    exactly-once kafka, json
//	win_join    win_hop's query joined with itself on  exactly-once kafka, json
//	            k and the window (a window join)
//	win_distinct HOP as win_hop: COUNT(DISTINCT v),    exactly-once kafka, json
//	            SUM(DISTINCT v)
//	win_pairs   TUMBLE 1 s of src joined with itself   exactly-once kafka, json
//	            on k and the window (a window join of
//	            window table functions, whose rows wait
//	            for the window's end), then COUNT(*) and
//	            SUM(a.v) per key and window
//
// It runs in a child process at 'parallelism.default' 1 and 4 (the
// sources and sinks too), on the 'hashmap' and the 'rocksdb' backend,
// against both brokers, and is SIGKILLed at random moments and at the
// runtime's fault points, the state's among them, then run to its end.
// Each sink's committed output, read by this package's read_committed
// reader or from the visible files, must then equal the batch oracle over
// the input: the debezium changelog applied to an empty table gives the
// oracle's table and is well-formed (no retraction of a row the table does
// not hold, no insert of a key it holds); the upsert topic ends as the
// oracle's table and deletes nothing it does not hold; the files'
// changelog nets to the oracle's table (each row retracted as often as it
// is inserted, but the table's rows once more: files of two runs have no
// order); each window sink holds every window of its kind exactly once
// (the event time of each partition only grows, so no row is late; the
// last windows close only at the end of the input); no in-progress file
// is left.

// aggParts is the number of partitions of the input topic.
const aggParts = 4

// aggInput generates the input: per partitions rows (k, v, ts) with keys
// among keys, v in [-50, 50], and ts increasing by 10 ms within each
// partition (so that no row is late for a watermark of each partition's
// largest timestamp).
func aggInput(topic string, rng *rand.Rand, per, keys int) (input, []aggIn) {
	in := input{topic: topic, parts: make([][]inRecord, aggParts)}
	var all []aggIn
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for p := range aggParts {
		for i := range per {
			r := aggIn{k: int64(rng.IntN(keys)), v: int64(rng.IntN(101) - 50),
				ts: base.Add(time.Duration(i*10+p) * time.Millisecond)}
			all = append(all, r)
			in.parts[p] = append(in.parts[p], inRecord{
				key:   fmt.Appendf(nil, `{"k":%d}`, r.k),
				value: fmt.Appendf(nil, `{"k":%d,"v":%d,"ts":"%s"}`, r.k, r.v, r.ts.Format(tsLayout))})
		}
	}
	return in, all
}

// aggIn is one input row.
type aggIn struct {
	k, v int64
	ts   time.Time
}

// groupByOracle is the table of SELECT k, COUNT(*), SUM(v) FROM in GROUP
// BY k, keyed by k.
func groupByOracle(in []aggIn) table {
	type acc struct{ n, sum int64 }
	accs := map[int64]*acc{}
	for _, r := range in {
		a := accs[r.k]
		if a == nil {
			a = &acc{}
			accs[r.k] = a
		}
		a.n++
		a.sum += r.v
	}
	out := table{}
	for k, a := range accs {
		out[strconv.FormatInt(k, 10)] = fmt.Sprintf("%d|%d|%d", k, a.n, a.sum)
	}
	return out
}

// distinctOracle is the table of agg_distinct's query over in, keyed by k.
func distinctOracle(in []aggIn) table {
	seen := map[int64]map[int64]bool{}
	for _, r := range in {
		if seen[r.k] == nil {
			seen[r.k] = map[int64]bool{}
		}
		seen[r.k][r.v] = true
	}
	out := table{}
	for k, vs := range seen {
		var pos, sum int64
		for v := range vs {
			if v > 0 {
				pos++
			}
			sum += v
		}
		out[strconv.FormatInt(k, 10)] = fmt.Sprintf("%d|%d|%d|%d", k, len(vs), pos, sum)
	}
	return out
}

var distinctCols = []string{"k", "dv", "dpos", "dsum"}

// aggJob is one configuration of the aggregation job.
type aggJob struct {
	b             kafkatest.Broker
	par           int
	backend       string
	dir, name, in string
	per           int // input rows per partition
	cdc, upsert   string
	files         string // agg_files' folder
	distinct      string // agg_distinct's topic
	// The window sinks' topics and folder.
	winJSON, winUpsert, winFiles string
	winHop, winCum, winSession   string
	winJoin, winPairs            string
	winDistinct                  string
}

var aggCols = []string{"k", "cnt", "total"}

// file returns the job file.
func (j aggJob) file(in input) jobFile {
	sink := func(name, topic string) string {
		return `'topic' = '` + topic + `', 'properties.bootstrap.servers' = '` + j.b.Addr + `',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '` + j.name + `-` + name + `',
  'sink.parallelism' = '` + strconv.Itoa(j.par) + `'`
	}
	text := `CREATE TABLE src (k BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'kafka', 'topic' = '` + j.in + `', 'properties.bootstrap.servers' = '` + j.b.Addr + `',
  'properties.isolation.level' = 'read_committed', 'properties.max.poll.records' = '64',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'specific-offsets',
  'scan.bounded.specific-offsets' = '` + in.specificOffsets() + `',
  'format' = 'json', 'scan.parallelism' = '` + strconv.Itoa(j.par) + `');
CREATE TABLE agg_cdc (k BIGINT, cnt BIGINT, total BIGINT) WITH ('connector' = 'kafka',
  'key.format' = 'json', 'key.fields' = 'k', 'value.format' = 'debezium-json', ` + sink("cdc", j.cdc) + `);
CREATE TABLE agg_upsert (k BIGINT, cnt BIGINT, total BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'key.format' = 'json', 'value.format' = 'json', ` + sink("upsert", j.upsert) + `);
CREATE TABLE agg_files (k BIGINT, cnt BIGINT, total BIGINT) WITH ('connector' = 'filesystem', 'path' = '` + j.files + `',
  'format' = 'debezium-json', 'sink.rolling-policy.file-size' = '4kb', 'sink.parallelism' = '` + strconv.Itoa(j.par) + `');
CREATE TABLE agg_distinct (k BIGINT, dv BIGINT, dpos BIGINT, dsum BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'key.format' = 'json', 'value.format' = 'json', ` + sink("distinct", j.distinct) + `);
CREATE TABLE win_json (` + windowSinkColumns + `) WITH ('connector' = 'kafka', 'format' = 'json', ` + sink("win-json", j.winJSON) + `);
CREATE TABLE win_upsert (` + windowSinkColumns + `, PRIMARY KEY (k, window_start) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'key.format' = 'json', 'value.format' = 'json', ` + sink("win-upsert", j.winUpsert) + `);
CREATE TABLE win_files (` + windowSinkColumns + `) WITH ('connector' = 'filesystem', 'path' = '` + j.winFiles + `',
  'format' = 'json', 'sink.rolling-policy.file-size' = '4kb', 'sink.parallelism' = '` + strconv.Itoa(j.par) + `');
CREATE TABLE win_hop (` + windowSinkColumns + `) WITH ('connector' = 'kafka', 'format' = 'json', ` + sink("win-hop", j.winHop) + `);
CREATE TABLE win_cum (` + windowSinkColumns + `) WITH ('connector' = 'kafka', 'format' = 'json', ` + sink("win-cum", j.winCum) + `);
CREATE TABLE win_session (` + windowSinkColumns + `) WITH ('connector' = 'kafka', 'format' = 'json', ` + sink("win-session", j.winSession) + `);
CREATE TABLE win_join (` + windowSinkColumns + `) WITH ('connector' = 'kafka', 'format' = 'json', ` + sink("win-join", j.winJoin) + `);
CREATE TABLE win_pairs (` + windowSinkColumns + `) WITH ('connector' = 'kafka', 'format' = 'json', ` + sink("win-pairs", j.winPairs) + `);
CREATE TABLE win_distinct (` + windowSinkColumns + `) WITH ('connector' = 'kafka', 'format' = 'json', ` + sink("win-distinct", j.winDistinct) + `);
EXECUTE STATEMENT SET BEGIN
INSERT INTO agg_cdc SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;
INSERT INTO agg_upsert SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;
INSERT INTO agg_files SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;
INSERT INTO agg_distinct SELECT k, COUNT(DISTINCT v), COUNT(DISTINCT v) FILTER (WHERE v > 0), SUM(DISTINCT v) FROM src GROUP BY k;
INSERT INTO win_json ` + tumbleWindow.query() + `;
INSERT INTO win_upsert ` + tumbleWindow.query() + `;
INSERT INTO win_files ` + tumbleWindow.query() + `;
INSERT INTO win_hop ` + hopWindow.query() + `;
INSERT INTO win_cum ` + cumulateWindow.query() + `;
INSERT INTO win_session ` + sessionWindow.query() + `;
INSERT INTO win_distinct ` + hopWindow.distinctQuery() + `;
INSERT INTO win_join SELECT a.k, a.window_start, a.window_end, a.cnt, b.total
FROM (` + hopWindow.query() + `) a JOIN (` + hopWindow.query() + `) b
ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end;
INSERT INTO win_pairs SELECT k, window_start, window_end, COUNT(*), SUM(av) FROM (
  SELECT a.k, a.v AS av, a.window_start, a.window_end
  FROM TABLE(` + tumbleWindow.tvf + `) a JOIN TABLE(` + tumbleWindow.tvf + `) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end)
GROUP BY k, window_start, window_end;
END;
`
	return stateJobFile(j.name, j.dir, text, j.par, j.backend)
}

// verify checks every sink's committed output against the oracle.
func (j aggJob) verify(t *testing.T, all []aggIn) {
	t.Helper()
	want := groupByOracle(all)
	got, err := applyDebezium(committed(t, j.b, j.cdc), aggCols, 1)
	checkTable(t, "agg_cdc (debezium-json changelog)", got, err, want)
	got, err = applyUpsert(committed(t, j.b, j.upsert), aggCols, 1, false)
	checkTable(t, "agg_upsert (upsert-kafka)", got, err, want)
	lines, hidden, err := committedLines(j.files)
	if err == nil {
		got, err = netDebezium(lines, aggCols, 1)
		if err == nil && len(hidden) > 0 {
			err = fmt.Errorf("in-progress files left after the job finished: %q", hidden)
		}
	}
	checkTable(t, "agg_files (filesystem, debezium-json)", got, err, want)
	got, err = applyUpsert(committed(t, j.b, j.distinct), distinctCols, 1, false)
	checkTable(t, "agg_distinct (DISTINCT aggregates, upsert-kafka)", got, err, distinctOracle(all))

	windows, hops, cums, sessions := tumbleWindow.oracle(all), hopWindow.oracle(all), cumulateWindow.oracle(all), sessionWindow.oracle(all)
	t.Logf("%d keys; oracle: %d TUMBLE, %d HOP, %d CUMULATE, %d SESSION windows", len(want), len(windows), len(hops), len(cums), len(sessions))
	checkWindows(t, "win_json (TUMBLE, exactly-once kafka, json)", j.b, j.winJSON, windows)
	checkWindows(t, "win_hop (HOP, exactly-once kafka, json)", j.b, j.winHop, hops)
	checkWindows(t, "win_cum (CUMULATE, exactly-once kafka, json)", j.b, j.winCum, cums)
	checkWindows(t, "win_session (SESSION, exactly-once kafka, json)", j.b, j.winSession, sessions)
	checkWindows(t, "win_join (a window join of HOP aggregations, exactly-once kafka, json)", j.b, j.winJoin, hops)
	checkWindows(t, "win_pairs (a window join of TUMBLE windows, aggregated, exactly-once kafka, json)", j.b, j.winPairs, pairsOracle(windows))
	checkWindows(t, "win_distinct (HOP, DISTINCT aggregates, exactly-once kafka, json)", j.b, j.winDistinct, hopWindow.distinctOracle(all))
	got, err = applyUpsert(committed(t, j.b, j.winUpsert), windowCols, 2, true)
	checkTable(t, "win_upsert (upsert-kafka)", got, err, windowTable(windows))
	rows, hidden, err := committedFiles(j.winFiles, windowCols)
	if err == nil {
		if d := multisetDiff(rows, windows); d != "" {
			err = fmt.Errorf("%s", d)
		} else if len(hidden) > 0 {
			err = fmt.Errorf("in-progress files left after the job finished: %q", hidden)
		}
	}
	if err != nil {
		t.Errorf("win_files (filesystem): %v", err)
	}
}

// faultPoints are the runtime's fault points a SIGKILL is tried at: those
// of the two-phase commit and those of operator state.
var faultPoints = []string{
	"before-pre-commit", "after-pre-commit", "after-checkpoint-written", "between-sink-commits",
	"after-commit", "during-recovery", "commit-delay",
	"during-state-write", "after-state-write", "before-checkpoint-write", "during-prune",
}

// killAtFaults SIGKILLs the job at each of points in turn, at a random
// hit from 1 to 4. The first point must be reached (the input is still
// being produced); a later one may find the job done, and the sequence
// ends there.
// crashConfig is one configuration a crash test runs: a broker, a
// parallelism and a state backend.
type crashConfig struct {
	b       kafkatest.Broker
	par     int
	backend string
}

// parBackend is a parallelism and a state backend.
type parBackend struct {
	par     int
	backend string
}

// crashConfigs returns, for the default broker (every broker with
// STREAMSQL_SOAK=1), a configuration of each of always, then, with
// STREAMSQL_SOAK=1, of each of soakOnly.
func crashConfigs(t *testing.T, always, soakOnly []parBackend) []crashConfig {
	t.Helper()
	brokers := kafkatest.RequireAll(t)
	if !soak() {
		brokers = brokers[:1]
	}
	var configs []crashConfig
	for _, b := range brokers {
		for _, pb := range always {
			configs = append(configs, crashConfig{b, pb.par, pb.backend})
		}
		if soak() {
			for _, pb := range soakOnly {
				configs = append(configs, crashConfig{b, pb.par, pb.backend})
			}
		}
	}
	return configs
}

// stateJobFile is the job file of a stateful crash test: text with
// 150 ms checkpoints into a folder under dir, parallelism par, the state
// backend, and no restarts (a kill ends the process; the test runs it
// again).
func stateJobFile(name, dir, text string, par int, backend string) jobFile {
	return jobFile{name: name, dir: dir, text: text, set: map[string]string{
		"execution.checkpointing.interval": "150ms",
		"execution.checkpointing.dir":      filepath.Join(dir, "checkpoints"),
		"parallelism.default":              strconv.Itoa(par),
		"state.backend.type":               backend,
		"restart-strategy.type":            "none",
	}}
}

// faultPointsOf returns the fault points configuration i of a crash test
// kills at: two, from offset on, so that the configurations together try
// several; every one with STREAMSQL_SOAK=1.
func faultPointsOf(offset, i int) []string {
	if soak() {
		return faultPoints
	}
	return []string{faultPoints[(offset+2*i)%len(faultPoints)], faultPoints[(offset+2*i+1)%len(faultPoints)]}
}

// killAtRandom runs the job twice more, SIGKILLing each run at a random
// moment 0.4–2.4 s after its start unless it finished first, and logs the
// kills beside the fault points killAtFaults used.
func killAtRandom(t *testing.T, jf jobFile, points []string, rng *rand.Rand) {
	t.Helper()
	kills := 0
	for range 2 {
		after := time.Duration(400+rng.IntN(2000)) * time.Millisecond
		if !jf.run(t, "", after) {
			break // the job finished first
		}
		kills++
	}
	t.Logf("%d SIGKILLs at fault points %s, %d at random moments", len(points), strings.Join(points, ", "), kills)
}

func killAtFaults(t *testing.T, jf jobFile, points []string, rng *rand.Rand) {
	t.Helper()
	for i, p := range points {
		if !killAtFault(t, jf, p, 1+rng.IntN(4), i == 0) {
			return
		}
	}
}

// killAtFault runs the job with a rule that SIGKILLs it at the at-th hit
// of point and reports whether it did. When the job finishes first it
// fails the test if must is set; otherwise (a later point of a sequence,
// after a restart that found little input left on a fast machine) it
// logs that the point was not reached and returns false.
func killAtFault(t *testing.T, jf jobFile, point string, at int, must bool) bool {
	t.Helper()
	rule := fmt.Sprintf("%s@%d:kill", point, at)
	switch point {
	case "during-recovery":
		// Die after a checkpoint, then while recovering from it.
		first := fmt.Sprintf("after-checkpoint-written@%d:kill", at)
		if !jf.run(t, first, 0) {
			if must {
				t.Fatalf("the job finished before %s", first)
			}
			t.Logf("the job finished before %s: %s not tried in this configuration", first, point)
			return false
		}
		rule = point + "@1:kill"
	case "commit-delay":
		// Hold the commit back for several intervals, then die.
		rule += ":300ms"
	}
	if !jf.run(t, rule, 0) {
		if must {
			t.Fatalf("the job finished before %s", rule)
		}
		t.Logf("the job finished before %s: not tried in this configuration", rule)
		return false
	}
	t.Logf("killed at %s", rule)
	return true
}

// TestAggregationCrash runs the aggregation job in every configuration,
// SIGKILLs it at two fault points (each configuration takes its share of
// them, so that every point is tried in every run of the test) and twice
// at random moments, runs it to its end and checks every sink. With
// STREAMSQL_SOAK=1 each configuration is killed at every fault point
// (8 × 13 = 104 kills), over four times the input.
func TestAggregationCrash(t *testing.T) {
	rng := crashtest.Rand(t, 27)
	brokers := kafkatest.RequireAll(t)
	type config struct {
		b       kafkatest.Broker
		par     int
		backend string
	}
	var configs []config
	for _, b := range brokers {
		for _, par := range []int{1, 4} {
			for _, backend := range []string{"hashmap", "rocksdb"} {
				configs = append(configs, config{b, par, backend})
			}
		}
	}
	// The input arrives while the job runs and dies: over about 5 s, or
	// 30 s for the soak's longer runs.
	per, batch := 1500, 3
	if soak() {
		per, batch = 6000, 2
	}
	// Each configuration takes points i, i+n, ... of the list, so that
	// the configurations together try every point.
	offset := rng.IntN(len(faultPoints))
	for i, c := range configs {
		points := []string{faultPoints[(offset+i)%len(faultPoints)], faultPoints[(offset+i+len(configs))%len(faultPoints)]}
		if soak() {
			points = faultPoints
		}
		seed := rng.Uint64()
		t.Run(fmt.Sprintf("%s/p%d/%s", c.b.Name, c.par, c.backend), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			j := aggJob{b: c.b, par: c.par, backend: c.backend, dir: t.TempDir(), name: kafkatest.UniqueName(t),
				in: c.b.Topic(t, aggParts), cdc: c.b.Topic(t, 3), upsert: c.b.Topic(t, 3), per: per,
				winJSON: c.b.Topic(t, 3), winUpsert: c.b.Topic(t, 3), winHop: c.b.Topic(t, 3), winCum: c.b.Topic(t, 3),
				winSession: c.b.Topic(t, 3), winJoin: c.b.Topic(t, 3), winPairs: c.b.Topic(t, 3),
				winDistinct: c.b.Topic(t, 3), distinct: c.b.Topic(t, 3)}
			j.files, j.winFiles = filepath.Join(j.dir, "agg_files"), filepath.Join(j.dir, "win_files")
			in, all := aggInput(j.in, rng, per, 40)
			produced := in.produce(t, c.b, batch, 10*time.Millisecond)
			jf := j.file(in)
			killAtFaults(t, jf, points, rng)
			killAtRandom(t, jf, points, rng)
			produced()
			jf.finish(t)
			j.verify(t, all)
		})
	}
}

// pairsOracle returns win_pairs' rows from the TUMBLE oracle's: a key's n
// rows of a window make n*n pairs, and each row's v is in n of them.
func pairsOracle(windows []row) []row {
	out := make([]row, 0, len(windows))
	for _, w := range windows {
		f := strings.Split(w, "|")
		n, err1 := strconv.ParseInt(f[3], 10, 64)
		total, err2 := strconv.ParseInt(f[4], 10, 64)
		if err1 != nil || err2 != nil {
			panic(fmt.Sprintf("a TUMBLE oracle row %q", w))
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%d|%d", f[0], f[1], f[2], n*n, n*total))
	}
	return out
}
