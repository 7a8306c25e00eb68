package planner_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/planner"
)

const hintedJob = `SET 'execution.checkpointing.dir' = '/var/lib/streamsql';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE a (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'a', 'properties.bootstrap.servers' = 'b:9092',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'p');
CREATE TABLE b WITH ('topic' = 'b', 'sink.transactional-id-prefix' = 'q') LIKE a;
INSERT INTO a SELECT * FROM src;
INSERT INTO b SELECT * FROM src;`

// TestHintsAreValidatedWithTheTable: Options.Hints are applied before
// validation, so the checks across tables see them (here, two
// exactly-once sinks given one transactional-id prefix by a hint) and an
// invalid hinted option fails planning, not the build.
func TestHintsAreValidatedWithTheTable(t *testing.T) {
	ctx := context.Background()
	p, err := planner.Compile(ctx, "job.sql", hintedJob, planner.Options{Registry: testRegistry()})
	if err != nil {
		t.Fatalf("without hints: %v", err)
	}
	if len(p.HintedTables) != 0 {
		t.Errorf("HintedTables = %q without hints", p.HintedTables)
	}
	_, err = planner.Compile(ctx, "job.sql", hintedJob, planner.Options{Registry: testRegistry(),
		Hints: map[string]map[string]string{"b": {"sink.transactional-id-prefix": "p"}}})
	if !errors.Is(err, planner.ErrInvalidTable) || !strings.Contains(err.Error(), "have the same transactional-id prefix 'p'") {
		t.Fatalf("a hint giving b a's prefix: %v, want the shared-prefix error", err)
	}
	_, err = planner.Compile(ctx, "job.sql", hintedJob, planner.Options{Registry: testRegistry(),
		Hints: map[string]map[string]string{"src": {"no.such.option": "1"}}})
	if !errors.Is(err, planner.ErrInvalidTable) || !strings.Contains(err.Error(), "no.such.option") {
		t.Fatalf("an unknown hinted option: %v, want an invalid-table error naming it", err)
	}
	p, err = planner.Compile(ctx, "job.sql", hintedJob, planner.Options{Registry: testRegistry(),
		Hints: map[string]map[string]string{"b": {"sink.transactional-id-prefix": "r"}, "nope": {"x": "y"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.HintedTables) != 1 || p.HintedTables[0] != "b" {
		t.Errorf("HintedTables = %q, want [b]", p.HintedTables)
	}
	for _, ins := range p.Inserts {
		if ins.Sink.Name() == "b" {
			if got := ins.Sink.Validated.Table.Options["sink.transactional-id-prefix"]; got != "r" {
				t.Errorf("b's validated prefix = %q, want the hint's r", got)
			}
		}
	}
}
