package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"time"

	_ "github.com/streamsql/streamsql/connectors/blackhole"  // the queries' sinks
	_ "github.com/streamsql/streamsql/connectors/filesystem" // q10's sink
	"github.com/streamsql/streamsql/connectors/nexmark"      // ddl_gen.sql's events, q14's function
	_ "github.com/streamsql/streamsql/formats/csv"           // q10's format
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/runtime"
)

// envNexmark marks a child process that runs one Nexmark query through
// streamsql (nexmarkChildMain).
const envNexmark = "STREAMSQL_BENCH_NEXMARK"

// kvFlags is a repeatable KEY=VALUE flag.
type kvFlags []string

func (k *kvFlags) String() string     { return strings.Join(*k, ",") }
func (k *kvFlags) Set(v string) error { *k = append(*k, v); return nil }

// nexmarkChildMain runs one Nexmark query through streamsql's embedding API
// (package job), as `streamsql run` would run the files one after the
// other: -file names them in order, -var gives ${NAME} values, -hint
// TABLE.KEY=VALUE sets a table option (job.Options.Hints) and -set a job
// setting. It prints one JSON line (nexmarkChild). A query that does not
// compile, or whose job the runtime refuses before it runs
// (runtime.ErrInvalidSpec: an operator it cannot run yet), exits with
// exitNotSupported and the message on stderr.
func nexmarkChildMain(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	fs := flag.NewFlagSet("nexmark", flag.ContinueOnError)
	name := fs.String("name", "nexmark", "the job's name")
	var files, vars, hints, sets kvFlags
	fs.Var(&files, "file", "a SQL file (repeatable, in order)")
	fs.Var(&vars, "var", "NAME=VALUE for ${NAME} (repeatable)")
	fs.Var(&hints, "hint", "TABLE.KEY=VALUE: a table option over the file's (repeatable)")
	fs.Var(&sets, "set", "KEY=VALUE: a job setting (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 1
	}
	defer defaultMemoryPolicy()()
	fail := func(err error) int {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if p := os.Getenv(envCPUProfile); p != "" {
		// The whole child, compile and run: PREFIX.<job name>.<pid>.
		f, err := os.Create(fmt.Sprintf("%s.%s.%d", p, *name, os.Getpid()))
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	opts := job.Options{Vars: map[string]string{}, Set: map[string]string{}, Hints: map[string]map[string]string{},
		JobName: *name, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		// q14's CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar'.
		Functions: []*expr.Function{nexmark.CountChar}}
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		opts.Vars[k] = v
	}
	for _, kv := range sets {
		k, v, _ := strings.Cut(kv, "=")
		opts.Set[k] = v
	}
	for _, kv := range hints {
		k, v, _ := strings.Cut(kv, "=")
		table, key, ok := strings.Cut(k, ".")
		if !ok {
			return fail(fmt.Errorf("-hint %q: want TABLE.KEY=VALUE", kv))
		}
		if opts.Hints[table] == nil {
			opts.Hints[table] = map[string]string{}
		}
		opts.Hints[table][key] = v
	}
	// The files are one job, as if written one after the other in one
	// file; each starts on a line of its own.
	var text strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fail(err)
		}
		text.Write(b)
		text.WriteString("\n")
	}
	j, err := job.Compile(ctx, *name+".sql", text.String(), opts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitNotSupported
	}
	if p := os.Getenv(envHeapProfile); p != "" {
		// The heap profile taken when the live heap was largest:
		// PREFIX.<job name>.<pid>.
		stop := watchHeap()
		defer func() {
			if err := os.WriteFile(fmt.Sprintf("%s.%s.%d", p, *name, os.Getpid()), stop(), 0o644); err != nil {
				fmt.Fprintln(stderr, err)
			}
		}()
	}
	if err := j.Run(ctx); err != nil {
		if errors.Is(err, runtime.ErrInvalidSpec) {
			// The runtime refused the plan before running it (an operator
			// it cannot run yet): not supported yet, like a refusal of
			// the planner.
			fmt.Fprintln(stderr, err)
			return exitNotSupported
		}
		return fail(fmt.Errorf("running the job: %w", err))
	}
	// Each source vertex reads every event of the table (a join reads it
	// twice: through the person and the auction view); the fewest any
	// read must be all of them.
	perSource := map[string]int64{}
	for _, t := range j.Status().Tasks {
		if t.Kind == runtime.SourceTask {
			perSource[t.Name] += t.RecordsIn
		}
	}
	events := int64(-1)
	for _, n := range perSource {
		if events < 0 || n < events {
			events = n
		}
	}
	if p := os.Getenv(envAllocProfile); p != "" {
		if err := writeAllocs(fmt.Sprintf("%s.%s.%d", p, *name, os.Getpid()), events); err != nil {
			return fail(err)
		}
	}
	rss, err := peakRSSKB()
	if err != nil {
		return fail(err)
	}
	if err := json.NewEncoder(stdout).Encode(nexmarkChild{PeakRSSKB: rss, Events: events}); err != nil {
		return fail(err)
	}
	return 0
}

// writeAllocs writes the process's allocation profile to path and the
// exact bytes and objects it allocated so far, with events, to path+".txt"
// (envAllocProfile).
func writeAllocs(path string, events int64) error {
	var buf bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&buf, 0); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	line := fmt.Sprintf("events %d alloc_bytes %d alloc_objects %d gc_cycles %d\n", events, s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64())
	return os.WriteFile(path+".txt", []byte(line), 0o644)
}

// watchHeap samples the live heap every 100 ms on a goroutine of its own
// and keeps the heap profile of the sample where it was largest (a heap
// profile's in-use figures are those of the last collection); stop ends
// the goroutine and returns that profile.
func watchHeap() (stop func() []byte) {
	done := make(chan struct{})
	var prof []byte
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var maxLive uint64
		var buf bytes.Buffer
		for {
			select {
			case <-done:
				prof = buf.Bytes()
				return
			case <-tick.C:
			}
			metrics.Read(live)
			if v := live[0].Value.Uint64(); v > maxLive {
				maxLive = v
				buf.Reset()
				_ = pprof.Lookup("heap").WriteTo(&buf, 0)
			}
		}
	}()
	return func() []byte {
		close(done)
		<-finished
		return prof
	}
}
