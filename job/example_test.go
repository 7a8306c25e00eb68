package job_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connector"
	// The built-in connectors and formats (datagen, blackhole, ...): a
	// program imports the ones its SQL names; package job registers none.
	_ "github.com/streamsql/streamsql/connectors/all"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/runtime"
	"github.com/streamsql/streamsql/types"
)

// quiet drops the runtime's log, which would mix with the examples' output.
var quiet = slog.New(slog.DiscardHandler)

// Example runs a bounded job whose rows a bare SELECT prints.
func Example() {
	j, err := job.Compile(context.Background(), "numbers.sql", `
CREATE TABLE numbers (n BIGINT) WITH (
  'connector' = 'datagen',
  'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '${LAST}'
);
SELECT n, n * n AS square FROM numbers WHERE n % 2 = 1;`,
		job.Options{Vars: map[string]string{"LAST": "5"}, Output: os.Stdout, Logger: quiet})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := j.Run(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(j.Status().State)
	// Output:
	// +I[1, 1]
	// +I[3, 9]
	// +I[5, 25]
	// FINISHED
}

// memory is the example's own connector: a sink that keeps the records
// its format encodes in a Go slice, under a name given in SQL.
type memory struct {
	mu      sync.Mutex
	records map[string][]string
}

var (
	memName   = option.String("name").Required().Description("Name of the in-memory buffer.")
	memFormat = factory.FormatOption("format").Required().Description("Format of the stored records.")
)

func (m *memory) factory() factory.ConnectorFactory {
	return factory.ConnectorFactory{
		Identifier:  "memory",
		Description: "Keeps written records in memory.",
		Options:     []option.Option{memName, memFormat},
		// Its traits, which the planner checks as it does the built-in
		// connectors': no metadata, append-only rows.
		WritableMetadata: map[string]types.Type{},
		SinkChangelog:    factory.InsertOnly,
		// Describe tells EXPLAIN which buffer a table writes and claims
		// the buffer: two sinks of one job writing one buffer are an error.
		Describe: func(v *factory.Validated, _ factory.Role) (factory.TableInfo, error) {
			name := memName.Get(v.Config)
			return factory.TableInfo{
				Delivery: factory.AtLeastOnce,
				Summary:  []factory.KeyValue{{Key: "buffer", Value: name}},
				Exclusive: []factory.Exclusive{{Key: "memory buffer " + name, Owner: "memory",
					What: fmt.Sprintf("buffer '%s'", name), Conflict: "their records would mix",
					Fix: "give each its own 'name'", FixSameTable: "combine the queries with UNION ALL"}},
			}, nil
		},
		NewSink: func(ctx factory.Context) (connector.Sink, error) {
			return &memSink{m: m, name: memName.Get(ctx.Options), format: memFormat.Get(ctx.Options),
				fields: ctx.Schema.PhysicalFields()}, nil
		},
	}
}

func (m *memory) get(name string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.records[name])
}

type memSink struct {
	m      *memory
	name   string
	format *factory.Format
	fields []types.Field
}

func (s *memSink) Open(context.Context, connector.TaskInfo) (connector.Writer, error) {
	enc, err := s.format.NewEncoder(s.fields)
	if err != nil {
		return nil, err
	}
	return &memWriter{s: s, enc: enc}, nil
}

type memWriter struct {
	s   *memSink
	enc factory.Encoder
	buf []byte
}

func (w *memWriter) Write(_ context.Context, rows []types.Row) error {
	w.s.m.mu.Lock()
	defer w.s.m.mu.Unlock()
	for _, r := range rows {
		var err error
		if w.buf, err = w.enc.Encode(w.buf[:0], r); err != nil {
			return err
		}
		w.s.m.records[w.s.name] = append(w.s.m.records[w.s.name], string(w.buf))
	}
	return nil
}

func (w *memWriter) PreCommit(context.Context, int64) ([]connector.Committable, error) {
	return nil, nil
}

func (w *memWriter) Close() error { return nil }

// pipe is the example's own format: a row's fields joined by a separator
// the SQL chooses ('pipe.separator'), NULL written as an empty field.
var pipeSeparator = option.String("separator").Default("|").Description("Separator between fields.")

func pipeFormat() factory.FormatFactory {
	return factory.FormatFactory{
		Identifier:  "pipe",
		Description: "Fields joined by a separator (encoding only).",
		Options:     []option.Option{pipeSeparator},
		NewEncoder: func(ctx factory.FormatContext) (factory.Encoder, error) {
			for _, f := range ctx.Fields {
				if !f.Type.IsString() && f.Type.Kind != types.KindBigInt {
					return nil, fmt.Errorf("pipe: column %s: type %s is not supported", f.Name, f.Type)
				}
			}
			return &pipeEncoder{fields: ctx.Fields, sep: pipeSeparator.Get(ctx.Options)}, nil
		},
	}
}

type pipeEncoder struct {
	fields []types.Field
	sep    string
}

func (e *pipeEncoder) Encode(dst []byte, row types.Row) ([]byte, error) {
	for i, v := range row.Fields {
		if i > 0 {
			dst = append(dst, e.sep...)
		}
		switch {
		case v.IsNull():
		case e.fields[i].Type.IsString():
			dst = append(dst, v.Str()...)
		default:
			dst = strconv.AppendInt(dst, v.Int64(), 10)
		}
	}
	return dst, nil
}

// Example_customConnector registers a program's own sink connector and
// format in a copy of the built-in registry and uses both from SQL: the
// job reads generated rows and writes them through the 'pipe' format
// into the 'memory' connector, whose factory declares its traits.
func Example_customConnector() {
	mem := &memory{records: map[string][]string{}}
	reg := job.NewRegistry()
	if err := reg.RegisterConnector(mem.factory()); err != nil {
		fmt.Println(err)
		return
	}
	if err := reg.RegisterFormat(pipeFormat()); err != nil {
		fmt.Println(err)
		return
	}

	j, err := job.Compile(context.Background(), "to_memory.sql", `
CREATE TABLE users (id BIGINT, name STRING) WITH (
  'connector' = 'datagen', 'number-of-rows' = '3',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3',
  'fields.name.length' = '4'
);
CREATE TABLE kept (id BIGINT, tag STRING) WITH (
  'connector' = 'memory', 'name' = 'users',
  'format' = 'pipe', 'pipe.separator' = ';'
);
INSERT INTO kept SELECT id, CASE WHEN id = 2 THEN CAST(NULL AS STRING) ELSE 'user-' || CAST(id AS STRING) END FROM users;`,
		job.Options{Registry: reg, Logger: quiet})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pipelines:", j.Pipelines())
	var explain strings.Builder
	_ = j.Explain(&explain)
	for _, line := range strings.Split(explain.String(), "\n") {
		if strings.Contains(line, "buffer:") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	if err := j.Run(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(mem.get("users"), "\n"))
	// Output:
	// pipelines: [kept]
	// buffer: users
	// 1;user-1
	// 2;
	// 3;user-3
}

// ExampleJob_Status runs an unbounded job, watches its status, and stops
// it by cancelling the context: a graceful stop with a final checkpoint.
func ExampleJob_Status() {
	j, err := job.Compile(context.Background(), "forever.sql", `
CREATE TABLE ticks (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100');
CREATE TABLE sink (n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT n FROM ticks;`, job.Options{Logger: quiet})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("before Run:", j.Status().State)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Run(ctx) }()
	for sinkRecords(j.Status()) == 0 { // wait until rows flow
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("while rows flow:", j.Status().State)
	cancel()
	fmt.Println("Run returned:", <-done)
	fmt.Println("after the stop:", j.Status().State)
	// Output:
	// before Run: CREATED
	// while rows flow: RUNNING
	// Run returned: <nil>
	// after the stop: STOPPED
}

// sinkRecords sums the rows the sink tasks of a status have received.
func sinkRecords(st runtime.Status) int64 {
	var n int64
	for _, t := range st.Tasks {
		if t.Kind == runtime.SinkTask {
			n += t.RecordsIn
		}
	}
	return n
}
