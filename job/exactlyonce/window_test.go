package exactlyonce

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// windowKind is one window table function the window tests run, with
// its batch oracle.
type windowKind struct {
	// name is the function's name; tvf is the window table function over
	// the table src (columns k, v, ts).
	name, tvf string
	// windows returns the windows [start, end) of a row at ts (TUMBLE,
	// HOP, CUMULATE); nil for SESSION, whose windows depend on the
	// key's other rows.
	windows func(ts time.Time) [][2]time.Time
	// gap is SESSION's gap.
	gap time.Duration
}

// The window kinds. Their sizes suit aggInput's rows, whose event time
// grows by 10 ms per row within each partition: every kind has many
// windows, and SESSION's 150 ms gap splits each key's rows (one in about
// 100 ms of event time when there are 40 keys) into many sessions.
var (
	tumbleWindow = windowKind{name: "TUMBLE",
		tvf: `TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)`,
		windows: func(ts time.Time) [][2]time.Time {
			s := ts.Truncate(time.Second)
			return [][2]time.Time{{s, s.Add(time.Second)}}
		}}
	hopWindow = windowKind{name: "HOP",
		tvf: `HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '0.5' SECOND, INTERVAL '2' SECOND)`,
		windows: func(ts time.Time) [][2]time.Time {
			// The windows of length 2 s starting every 500 ms that hold ts.
			var out [][2]time.Time
			for s := ts.Truncate(500 * time.Millisecond); s.Add(2 * time.Second).After(ts); s = s.Add(-500 * time.Millisecond) {
				out = append(out, [2]time.Time{s, s.Add(2 * time.Second)})
			}
			return out
		}}
	cumulateWindow = windowKind{name: "CUMULATE",
		tvf: `CUMULATE(TABLE src, DESCRIPTOR(ts), INTERVAL '0.5' SECOND, INTERVAL '2' SECOND)`,
		windows: func(ts time.Time) [][2]time.Time {
			// The windows that start every 2 s and grow by 500 ms up to
			// 2 s, whose end is after ts.
			var out [][2]time.Time
			s := ts.Truncate(2 * time.Second)
			for e := s.Add(500 * time.Millisecond); !e.After(s.Add(2 * time.Second)); e = e.Add(500 * time.Millisecond) {
				if e.After(ts) {
					out = append(out, [2]time.Time{s, e})
				}
			}
			return out
		}}
	sessionWindow = windowKind{name: "SESSION",
		tvf: `SESSION(TABLE src PARTITION BY k, DESCRIPTOR(ts), INTERVAL '0.15' SECOND)`,
		gap: 150 * time.Millisecond}
)

// query returns the window aggregation of the kind: per key and window,
// COUNT(*) and SUM(v).
func (w windowKind) query() string {
	return `SELECT k, window_start, window_end, COUNT(*) AS cnt, SUM(v) AS total
FROM TABLE(` + w.tvf + `) GROUP BY k, window_start, window_end`
}

// distinctQuery returns the window aggregation of the kind over distinct
// values: per key and window, COUNT(DISTINCT v) and SUM(DISTINCT v).
func (w windowKind) distinctQuery() string {
	return `SELECT k, window_start, window_end, COUNT(DISTINCT v) AS cnt, SUM(DISTINCT v) AS total
FROM TABLE(` + w.tvf + `) GROUP BY k, window_start, window_end`
}

// windowCols are the columns of the window query's rows; the first two
// are the key of a sink keyed by (k, window_start).
var windowCols = []string{"k", "window_start", "window_end", "cnt", "total"}

// windowSinkColumns are the sink tables' columns for a window query.
const windowSinkColumns = `k BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT, total BIGINT`

// oracle returns the rows of the kind's query over in, computed in batch:
// every window of every row (for SESSION: a key's rows sorted by time,
// split where two rows are more than the gap apart; a session ends the gap
// after its last row, as Flink's merging windows [ts, ts+gap) give).
func (w windowKind) oracle(in []aggIn) []row { return w.oracleOf(in, false) }

// distinctOracle returns the rows of the kind's distinctQuery over in,
// computed in batch.
func (w windowKind) distinctOracle(in []aggIn) []row { return w.oracleOf(in, true) }

func (w windowKind) oracleOf(in []aggIn, distinct bool) []row {
	type key struct {
		k      int64
		ws, we time.Time
	}
	type acc struct {
		n, sum int64
		seen   map[int64]bool
	}
	accs := map[key]*acc{}
	add := func(kk key, r aggIn) {
		a := accs[kk]
		if a == nil {
			a = &acc{seen: map[int64]bool{}}
			accs[kk] = a
		}
		if distinct && a.seen[r.v] {
			return
		}
		a.seen[r.v] = true
		a.n++
		a.sum += r.v
	}
	if w.windows != nil {
		for _, r := range in {
			for _, win := range w.windows(r.ts) {
				add(key{r.k, win[0], win[1]}, r)
			}
		}
	} else {
		byKey := map[int64][]aggIn{}
		for _, r := range in {
			byKey[r.k] = append(byKey[r.k], r)
		}
		for k, rs := range byKey {
			slices.SortStableFunc(rs, func(a, b aggIn) int { return a.ts.Compare(b.ts) })
			first := 0
			for i := range rs {
				if i == len(rs)-1 || rs[i+1].ts.Sub(rs[i].ts) > w.gap {
					kk := key{k, rs[first].ts, rs[i].ts.Add(w.gap)}
					for _, r := range rs[first : i+1] {
						add(kk, r)
					}
					first = i + 1
				}
			}
		}
	}
	var out []row
	for kk, a := range accs {
		out = append(out, fmt.Sprintf("%d|%s|%s|%d|%d", kk.k, kk.ws.Format(tsLayout), kk.we.Format(tsLayout), a.n, a.sum))
	}
	slices.Sort(out)
	return out
}

// windowTable keys rows of a window query by (k, window_start).
func windowTable(rows []row) table {
	t := table{}
	for _, r := range rows {
		t[keyOf(r, 2)] = r
	}
	return t
}

// committedFiles reads the rows of the committed files under dir (a
// filesystem sink's path, format json): every visible file, that is every
// file whose name does not start with "." (in-progress and pending files
// are hidden). It also returns the hidden files it saw.
func committedFiles(dir string, cols []string) (rows []row, hidden []string, err error) {
	lines, hidden, err := committedLines(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range lines {
		r, err := rowOf(l.data, cols)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", l.where, err)
		}
		rows = append(rows, r)
	}
	return rows, hidden, nil
}

// fileLine is one line of a committed file, with where it is.
type fileLine struct {
	where string // path:line
	data  []byte
}

// committedLines returns the lines of the visible files under dir, and
// the hidden files it saw (see committedFiles). A dir that does not exist
// holds nothing: a sink whose task was killed before it first wrote has
// not made it yet.
func committedLines(dir string) (lines []fileLine, hidden []string, err error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			hidden = append(hidden, p)
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			lines = append(lines, fileLine{where: fmt.Sprintf("%s:%d", p, n), data: slices.Clone(sc.Bytes())})
		}
		return sc.Err()
	})
	return lines, hidden, err
}

// netDebezium applies debezium-json change events taken in any order (the
// files of a filesystem sink say nothing of the order of two runs' files)
// to an empty table keyed by the first keyCols of cols: it counts, per
// row, its inserts ('c': +I, +U) as +1 and its retractions ('d': -U, -D) as
// -1. Every row's net count must be 0 or 1, and the rows of count 1, one
// per key, are the table. A duplicated change breaks the first rule, a
// lost one the first (a row inserted and never retracted, or retracted and
// never inserted, since the rows of a key's changes differ) or the table.
func netDebezium(lines []fileLine, cols []string, keyCols int) (table, error) {
	net := map[row]int{}
	for _, l := range lines {
		dec := json.NewDecoder(bytes.NewReader(l.data))
		dec.UseNumber()
		var env struct {
			Before, After map[string]any
			Op            string
		}
		if err := dec.Decode(&env); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", l.where, l.data, err)
		}
		obj, d := env.After, 1
		switch env.Op {
		case "c":
		case "d":
			obj, d = env.Before, -1
		default:
			return nil, fmt.Errorf("%s: op %q", l.where, env.Op)
		}
		r, err := rowOfObject(obj, cols)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.where, err)
		}
		net[r] += d
	}
	t := table{}
	for _, r := range slices.Sorted(maps.Keys(net)) {
		switch n := net[r]; {
		case n == 0:
		case n == 1:
			k := keyOf(r, keyCols)
			if old, ok := t[k]; ok {
				return nil, fmt.Errorf("two rows of key %s are inserted and never retracted: %s and %s", k, old, r)
			}
			t[k] = r
		default:
			return nil, fmt.Errorf("row %s is inserted %d times more than it is retracted: a change is duplicated or lost", r, n)
		}
	}
	return t, nil
}

// multisetDiff describes how the rows got differ from want as multisets;
// "" when they are equal.
func multisetDiff(got, want []row) string {
	count := map[row]int{}
	for _, r := range got {
		count[r]++
	}
	for _, r := range want {
		count[r]--
	}
	var dup, missing []string
	for _, r := range slices.Sorted(maps.Keys(count)) {
		switch n := count[r]; {
		case n > 0:
			dup = append(dup, fmt.Sprintf("%s ×%d", r, n))
		case n < 0:
			missing = append(missing, r)
		}
	}
	if len(dup)+len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("%d rows, want %d: %d missing (first %q), %d extra or duplicated (first %q)",
		len(got), len(want), len(missing), missing[:min(3, len(missing))], len(dup), dup[:min(3, len(dup))])
}

// checkWindows fails t when the committed rows of topic (plain json) are
// not the rows want, as a multiset: a window committed twice or never
// fails it.
func checkWindows(t *testing.T, what string, b kafkatest.Broker, topic string, want []row) {
	t.Helper()
	rows, err := rowsOf(committed(t, b, topic), windowCols)
	if err == nil {
		if d := multisetDiff(rows, want); d != "" {
			err = fmt.Errorf("%s", d)
		}
	}
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if len(want) == 0 {
		t.Errorf("%s: the oracle has no window: the test checks nothing", what)
	}
}

// rowsOf reads the committed records' values as rows (plain json).
func rowsOf(recs map[int32][]*kgo.Record, cols []string) ([]row, error) {
	var out []row
	for _, p := range slices.Sorted(maps.Keys(recs)) {
		for _, rec := range recs[p] {
			r, err := rowOf(rec.Value, cols)
			if err != nil {
				return nil, fmt.Errorf("partition %d offset %d: %w", p, rec.Offset, err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}
