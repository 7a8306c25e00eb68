package nexmark_test

import (
	"context"
	"errors"
	"io"
	"strconv"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connector/connectortest"
	"github.com/streamsql/streamsql/connectors/nexmark"
	"github.com/streamsql/streamsql/types"
)

// nexmarkHarness is the suite's view of a nexmark source whose options
// optsFor gives for an input of n rows: its input rows are the events
// such a source generates (read once, through one reader of every split,
// without keep-alive and pacing; TestReference checks what they are).
func nexmarkHarness(optsFor func(n int) map[string]string) connectortest.SourceHarness {
	return connectortest.SourceHarness{
		Rows: func(n int) []types.Row {
			opts := optsFor(n)
			delete(opts, "keep-alive")
			delete(opts, "max-emit-speed")
			return readAll(&testing.T{}, createSource(&testing.T{}, opts, nexmark.Schema))
		},
		Input: func(t testing.TB, rows []types.Row) func() (connector.Source, error) {
			opts := optsFor(len(rows))
			return func() (connector.Source, error) { return createSource(t, opts, nexmark.Schema), nil }
		},
		N: 600,
	}
}

// eventsNum returns options with events.num = n and a fixed base time.
func eventsNum(kv ...string) func(n int) map[string]string {
	return func(n int) map[string]string {
		opts := map[string]string{"events.num": strconv.Itoa(n), "base-time": "1700000000000"}
		for i := 0; i < len(kv); i += 2 {
			opts[kv[i]] = kv[i+1]
		}
		return opts
	}
}

// readAll reads every event of src through one reader of all its splits.
func readAll(t testing.TB, src connector.Source) []types.Row {
	splits, err := src.Splits(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var states []connector.SplitState
	for _, sp := range splits {
		states = append(states, connector.SplitState{ID: sp.ID})
	}
	r, err := src.Open(context.Background(), connector.TaskInfo{Parallelism: 1}, states)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []types.Row
	for {
		rows, err := r.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
	}
}

// TestConformance runs the connector conformance suite on nexmark
// sources: one generator, three, paced at a rate (so that Reads are also
// interrupted while they wait), a stop-at below events.num, and
// keep-alive (which never ends, as an unbounded source).
func TestConformance(t *testing.T) {
	for name, optsFor := range map[string]func(int) map[string]string{
		"one":        eventsNum(),
		"three":      eventsNum("scan.parallelism", "3", "seed", "77"),
		"paced":      eventsNum("scan.parallelism", "2", "max-emit-speed", "false", "first-event.rate", "4000"),
		"keep-alive": eventsNum("keep-alive", "true"),
		"stop-at": func(n int) map[string]string {
			return map[string]string{"scan.parallelism": "2", "events.num": "100000", "stop-at": strconv.Itoa(n), "base-time": "1700000000000"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			connectortest.RunSource(t, nexmarkHarness(optsFor))
		})
	}
}
