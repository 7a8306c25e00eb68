package planner_test

import (
	"context"
	"io"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/planner"
)

// TestBuildParallelismFromSharedOptions: the parallelism of every source
// and sink comes from the shared declarations (option.ScanParallelism,
// option.SinkParallelism) in the table's validated options, so an
// embedder's connector that only declares them gets it too, with no
// Parallelism method and no Describe hook.
func TestBuildParallelismFromSharedOptions(t *testing.T) {
	reg := testRegistry()
	reg.MustRegisterConnector(factory.ConnectorFactory{Identifier: "embedded", NewSource: noSource, NewSink: noSink,
		Options: []option.Option{option.ScanParallelism, option.SinkParallelism}})
	p, err := planner.Compile(context.Background(), "job.sql", `
CREATE TABLE a (x INT) WITH ('connector' = 'embedded', 'scan.parallelism' = '3');
CREATE TABLE b (x INT) WITH ('connector' = 'embedded', 'sink.parallelism' = '2');
CREATE TABLE c (x INT) WITH ('connector' = 'embedded');
INSERT INTO b SELECT x FROM a;
INSERT INTO c SELECT x FROM c;`, planner.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	pipes, err := job.Build(context.Background(), p, printTo(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	if got := pipes[0].Sources[0].Parallelism; got != 3 {
		t.Errorf("source a: parallelism %d, want scan.parallelism 3", got)
	}
	if got := pipes[0].Sinks[0].Parallelism; got != 2 {
		t.Errorf("sink b: parallelism %d, want sink.parallelism 2", got)
	}
	if s, k := pipes[1].Sources[0].Parallelism, pipes[1].Sinks[0].Parallelism; s != 0 || k != 0 {
		t.Errorf("table c without the options: parallelism %d and %d, want 0 (the runtime's default)", s, k)
	}
}
