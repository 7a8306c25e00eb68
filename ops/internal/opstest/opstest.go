// Package opstest runs SQL operators in tests the way a job runs them:
// one stage after another, rows hashed by key to each stage's tasks, with
// checkpoints and restores at another parallelism; and reads the Flink
// comparison cases (job/testdata/flink-queries: a case's table rows and
// the changelog Flink 2.2 printed for it) so that an operator's output can
// be compared with Flink's before a planner or a runtime is around it.
package opstest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/statetest"
	"github.com/streamsql/streamsql/stream"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

// flinkDir returns the folder of the Flink comparison cases.
func flinkDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "job", "testdata", "flink-queries")
}

// Column is a column of a case's table: its JSON field and type.
type Column struct {
	Name string
	Type types.Type
}

// Events and Ticks are the columns of the cases' tables.
var (
	Events = []Column{{"k", types.String()}, {"v", types.BigInt()}, {"d", types.Double()},
		{"m", types.DecimalType(10, 2)}, {"s", types.String()}, {"ts", types.TimestampType(3)}}
	Ticks = []Column{{"k", types.String()}, {"v", types.BigInt()}, {"p", types.BigInt()}, {"ts", types.TimestampType(3)}}
)

// ReadTable reads data/NAME/NAME.json, the rows of a case's table, as
// insert rows.
func ReadTable(t *testing.T, name string, cols []Column) []types.Row {
	t.Helper()
	f, err := os.Open(filepath.Join(flinkDir(), "data", name, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []types.Row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		row := types.Row{Kind: types.Insert, Fields: make([]types.Value, len(cols))}
		for i, c := range cols {
			v, ok := m[c.Name]
			if !ok || v == nil {
				continue
			}
			switch c.Type.Kind {
			case types.KindVarChar:
				row.Fields[i] = types.Str(v.(string))
			case types.KindBigInt:
				n, err := v.(json.Number).Int64()
				if err != nil {
					t.Fatal(err)
				}
				row.Fields[i] = types.Int64(n)
			case types.KindDouble:
				x, err := v.(json.Number).Float64()
				if err != nil {
					t.Fatal(err)
				}
				row.Fields[i] = types.Float64(x)
			case types.KindDecimal:
				d, err := types.ParseDecimal(v.(json.Number).String())
				if err != nil {
					t.Fatal(err)
				}
				if d, err = d.Rescale(c.Type.Precision, c.Type.Scale); err != nil {
					t.Fatal(err)
				}
				row.Fields[i] = types.DecimalValue(d)
			case types.KindTimestamp:
				tm, err := time.Parse("2006-01-02 15:04:05.000", v.(string))
				if err != nil {
					t.Fatal(err)
				}
				row.Fields[i] = types.TimestampValue(types.TimestampFromTime(tm))
			default:
				t.Fatalf("column %s: type %s", c.Name, c.Type)
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// FlinkLines returns the lines of NAME.flink.
func FlinkLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(flinkDir(), name+".flink"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// FlinkString formats rows as Flink prints a changelog of values cast to
// STRING: "+I[a, 1, 2024-03-01 10:00:01.000]", NULL as "null".
func FlinkString(rows []types.Row, ts []types.Type) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r.Fields))
		for j, v := range r.Fields {
			parts[j] = FlinkValue(v, ts[j])
		}
		out[i] = r.Kind.String() + "[" + strings.Join(parts, ", ") + "]"
	}
	return out
}

// FlinkValue formats a value of type t as Flink's CAST(v AS STRING)
// prints it.
func FlinkValue(v types.Value, t types.Type) string {
	if v.IsNull() {
		return "null"
	}
	switch {
	case t.IsInteger():
		return strconv.FormatInt(v.Int64(), 10)
	case t.Kind == types.KindDouble:
		s := strconv.FormatFloat(v.Float64(), 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	case t.Kind == types.KindDecimal:
		return v.Decimal().String()
	case t.IsTimestamp():
		return v.Timestamp().Time().UTC().Format("2006-01-02 15:04:05.000")
	case t.Kind == types.KindBoolean:
		return strconv.FormatBool(v.Bool())
	}
	return v.Str()
}

// Stage is one operator of a pipeline: its factory and the columns its
// input is hashed by (nil: every row to task 0, an operator without a
// key).
type Stage struct {
	F     stream.Factory
	Keys  []int
	Types []types.Type // the stage's input row types (for its key)
}

// Pipeline runs stages as the runtime does, with parallelism tasks per
// stage.
type Pipeline struct {
	t      *testing.T
	stages []Stage
	tasks  [][]*streamtest.Task
	files  *statetest.MemFiles
	wm     int64
	now    int64
	kind   state.Kind
}

// NewPipeline opens the stages' tasks at parallelism on the heap backend.
func NewPipeline(t *testing.T, parallelism int, stages ...Stage) *Pipeline {
	return NewPipelineOn(t, nil, parallelism, stages...)
}

// NewPipelineOn is NewPipeline on the backend kind (nil: heap), which
// restores use too.
func NewPipelineOn(t *testing.T, kind state.Kind, parallelism int, stages ...Stage) *Pipeline {
	p := &Pipeline{t: t, stages: stages, files: statetest.NewMemFiles(), wm: stream.MinWatermark, kind: kind}
	p.open(parallelism, nil)
	return p
}

// open opens every stage's tasks at parallelism, restoring handles.
func (p *Pipeline) open(parallelism int, handles [][]state.Handle) {
	p.tasks = make([][]*streamtest.Task, len(p.stages))
	for si, s := range p.stages {
		n := parallelism
		if s.Keys == nil {
			n = 1
		}
		for i := range n {
			var restore []state.Handle
			if handles != nil {
				restore = handles[si]
			}
			p.tasks[si] = append(p.tasks[si], streamtest.Open(p.t, s.F, streamtest.Options{Index: i, Parallelism: n,
				Restore: restore, Files: p.files, Watermark: p.wm, Now: p.now, Backend: p.kind}))
		}
	}
}

// Restore checkpoints every task and reopens the stages at parallelism
// from the checkpoint (the old tasks are dropped, as after a crash).
func (p *Pipeline) Restore(parallelism int) {
	handles := make([][]state.Handle, len(p.stages))
	for si, ts := range p.tasks {
		for _, tk := range ts {
			handles[si] = append(handles[si], tk.Snapshot())
		}
	}
	p.open(parallelism, handles)
}

// route returns the task of stage si that row goes to.
func (p *Pipeline) route(si int, row types.Row) *streamtest.Task {
	ts := p.tasks[si]
	s := p.stages[si]
	if s.Keys == nil {
		return ts[0]
	}
	var kt []types.Type
	for _, k := range s.Keys {
		kt = append(kt, s.Types[k])
	}
	kg := state.KeyGroupOf(state.AppendKey(nil, row.Fields, s.Keys, kt), state.DefaultMaxParallelism)
	return ts[state.TaskOf(kg, len(ts), state.DefaultMaxParallelism)]
}

// Push passes rows through the stages from si on and returns the last
// stage's output.
func (p *Pipeline) Push(si int, rows []types.Row) []types.Row {
	for ; si < len(p.stages); si++ {
		var next []types.Row
		for _, r := range rows {
			tk := p.route(si, r)
			tk.Process(r)
			next = append(next, tk.Take()...)
		}
		rows = next
	}
	return rows
}

// Watermark advances every task's watermark, stage by stage.
func (p *Pipeline) Watermark(wm int64) []types.Row {
	p.wm = wm
	var out []types.Row
	for si := range p.stages {
		for _, tk := range p.tasks[si] {
			tk.Watermark(wm)
			emitted := tk.Take()
			out = append(out, p.Push(si+1, emitted)...)
		}
	}
	return out
}

// Advance moves every task's clock to now (firing processing-time
// timers), stage by stage.
func (p *Pipeline) Advance(now int64) []types.Row {
	p.now = now
	var out []types.Row
	for si := range p.stages {
		for _, tk := range p.tasks[si] {
			tk.Advance(now)
			out = append(out, p.Push(si+1, tk.Take())...)
		}
	}
	return out
}

// Run passes rows one at a time, restoring at parallelism 3 after half
// of them, then ends the input (the maximum watermark).
func (p *Pipeline) Run(rows []types.Row) []types.Row {
	var out []types.Row
	for i, r := range rows {
		if i == len(rows)/2 {
			p.Restore(3)
		}
		out = append(out, p.Push(0, []types.Row{r})...)
	}
	return append(out, p.Watermark(stream.MaxWatermark)...)
}

// Project returns rows with the columns cols, keeping kinds.
func Project(rows []types.Row, cols ...int) []types.Row {
	out := make([]types.Row, len(rows))
	for i, r := range rows {
		f := make([]types.Value, len(cols))
		for j, c := range cols {
			f[j] = r.Fields[c]
		}
		out[i] = types.Row{Kind: r.Kind, Fields: f}
	}
	return out
}

// TypesOf returns the types of cols of a table.
func TypesOf(table []Column, cols ...int) []types.Type {
	out := make([]types.Type, len(cols))
	for i, c := range cols {
		out[i] = table[c].Type
	}
	return out
}

// Compare fails t unless got, formatted as Flink prints, equals NAME.flink
// (sorted first when sorted is set: rows a watermark emits have no
// order).
func Compare(t *testing.T, name string, got []types.Row, ts []types.Type, sorted bool) {
	t.Helper()
	want := FlinkLines(t, name)
	g := FlinkString(got, ts)
	if sorted {
		slices.Sort(g)
		slices.Sort(want)
	}
	if !slices.Equal(g, want) {
		t.Errorf("%s: the changelog differs from Flink's\n--- got\n%s\n--- Flink\n%s", name, strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
}
