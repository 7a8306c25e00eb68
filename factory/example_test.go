package factory_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

// The options of the example's in-memory connector.
var (
	memName   = option.String("name").Required().Description("Name of the in-memory buffer.")
	memFlush  = option.Duration("flush.interval").Default(time.Second).Description("How often to flush.")
	memFormat = factory.FormatOption("format").Required().Description("Format of the stored records.")
	memToken  = option.String("token").Sensitive().Description("A secret, masked in errors.")
)

// memSink stores encoded records in memory.
type memSink struct {
	name    string
	format  *factory.Format
	columns []types.Field
	out     *[]string
}

func (s *memSink) Open(_ context.Context, _ connector.TaskInfo) (connector.Writer, error) {
	enc, err := s.format.NewEncoder(s.columns)
	if err != nil {
		return nil, err
	}
	return &memWriter{sink: s, enc: enc}, nil
}

type memWriter struct {
	sink *memSink
	enc  factory.Encoder
	buf  []byte
}

func (w *memWriter) Write(_ context.Context, rows []types.Row) error {
	for _, r := range rows {
		var err error
		if w.buf, err = w.enc.Encode(w.buf[:0], r); err != nil {
			return err
		}
		*w.sink.out = append(*w.sink.out, string(w.buf))
	}
	return nil
}

func (w *memWriter) PreCommit(context.Context, int64) ([]connector.Committable, error) {
	return nil, nil
}
func (w *memWriter) Close() error { return nil }

// pipeFormat is the example's own format: fields joined by '|'. It only
// encodes (a real format would also set NewDecoder).
var pipeUpper = option.Bool("upper").Default(false).Description("Upper-case strings.")

type pipeEncoder struct {
	fields []types.Field
	upper  bool
}

func (e *pipeEncoder) Encode(dst []byte, row types.Row) ([]byte, error) {
	for i, v := range row.Fields {
		if i > 0 {
			dst = append(dst, '|')
		}
		switch {
		case v.IsNull():
			dst = append(dst, "NULL"...)
		case e.fields[i].Type.IsString() && e.upper:
			dst = append(dst, strings.ToUpper(v.Str())...)
		case e.fields[i].Type.IsString():
			dst = append(dst, v.Str()...)
		default:
			dst = fmt.Append(dst, v.Int64())
		}
	}
	return dst, nil
}

// Example registers a program's own connector (an in-memory sink) and
// format, then creates a sink for a table declared with them, as the
// planner does for CREATE TABLE ... WITH ('connector' = 'memory', ...).
func Example() {
	// A registry of our own; factory.Default holds the built-ins.
	reg := factory.NewRegistry()
	var stored []string
	reg.MustRegisterConnector(factory.ConnectorFactory{
		Identifier:  "memory",
		Description: "Keeps written records in memory.",
		Options:     []option.Option{memName, memFlush, memFormat, memToken},
		NewSink: func(ctx factory.Context) (connector.Sink, error) {
			return &memSink{
				name:    memName.Get(ctx.Options),
				format:  memFormat.Get(ctx.Options),
				columns: ctx.Schema.PhysicalFields(),
				out:     &stored,
			}, nil
		},
	})
	reg.MustRegisterFormat(factory.FormatFactory{
		Identifier: "pipe",
		Options:    []option.Option{pipeUpper},
		NewEncoder: func(ctx factory.FormatContext) (factory.Encoder, error) {
			return &pipeEncoder{fields: ctx.Fields, upper: pipeUpper.Get(ctx.Options)}, nil
		},
	})

	table := factory.Table{
		Name: "default_catalog.default_database.out",
		Schema: factory.Schema{Columns: []factory.Column{
			{Name: "id", Type: types.BigInt()},
			{Name: "customer", Type: types.String()},
		}},
		Options: map[string]string{
			"connector":      "memory",
			"name":           "orders",
			"flush.interval": "500 ms",
			"format":         "pipe",
			"pipe.upper":     "true",
		},
	}
	ctx := context.Background()
	sink, validated, err := reg.CreateSink(ctx, table)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("flush every", memFlush.Get(validated.Config))

	w, err := sink.Open(ctx, connector.TaskInfo{Table: table.Name, Parallelism: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	rows := []types.Row{
		{Fields: []types.Value{types.Int64(1), types.Str("alice")}},
		{Fields: []types.Value{types.Int64(2), {}}},
	}
	if err := w.Write(ctx, rows); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(stored, "\n"))
	// Output:
	// flush every 500ms
	// 1|ALICE
	// 2|NULL
}

// ExampleRegistry_Validate shows the typed errors of a mistyped option: the
// outer error names the table and lists its options with secrets masked.
func ExampleRegistry_Validate() {
	reg := factory.NewRegistry()
	reg.MustRegisterConnector(factory.ConnectorFactory{
		Identifier: "memory",
		Options:    []option.Option{memName, memFlush, memToken},
		NewSink:    func(factory.Context) (connector.Sink, error) { return nil, nil },
	})
	_, err := reg.Validate(factory.Table{Name: "out", Options: map[string]string{
		"connector": "memory", "name": "x", "flush.intervall": "1s", "token": "s3cret",
	}})
	var unsupported *option.UnsupportedOptionsError
	if errors.As(err, &unsupported) {
		fmt.Println("did you mean:", unsupported.Suggestions["flush.intervall"])
	}
	fmt.Println(err)
	// Output:
	// did you mean: flush.interval
	// invalid options for table 'out': unsupported options found for 'memory'.
	//
	// Unsupported options:
	//
	// flush.intervall (did you mean 'flush.interval'?)
	//
	// Supported options:
	//
	// connector
	// flush.interval
	// name
	// token
	//
	// Table options are:
	//
	// 'connector'='memory'
	// 'flush.intervall'='1s'
	// 'name'='x'
	// 'token'='******'
}

// ExampleRegistry_WriteMarkdown generates the configuration reference.
func ExampleRegistry_WriteMarkdown() {
	reg := factory.NewRegistry()
	reg.MustRegisterConnector(factory.ConnectorFactory{
		Identifier: "memory",
		Options:    []option.Option{memName, memFlush},
		NewSink:    func(factory.Context) (connector.Sink, error) { return nil, nil },
	})
	if err := reg.WriteMarkdown(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// # Connector and format options
	//
	// ## Connector `memory`
	//
	// Can be used as: sink.
	//
	// | Option | Required | Default | Type | Description |
	// |---|---|---|---|---|
	// | `connector` | required | (none) | String | Must be `memory`. |
	// | `name` | required | (none) | String | Name of the in-memory buffer. |
	// | `flush.interval` | optional | `1 s` | Duration | How often to flush. |
}
