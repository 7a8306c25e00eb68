package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/internal/testrig/kafkatest"
)

// TestNexmarkSmoke runs a tiny Nexmark suite end to end on the real broker,
// streamsql alone (Flink needs a JDK, Maven and seconds of start-up per
// run): q0 (a projection of bids), q2 (a filter) and q5 (a hopping window),
// each at both sizes, over ddl_kafka.sql (events loaded into a topic) and
// over ddl_gen.sql (the nexmark connector).
// It checks that every query either ran, read every event (runNexmark
// fails a run that read another number) and has its figures, or was
// refused by the planner with its message — never failed — and that q0
// ran. It asserts nothing about speed.
func TestNexmarkSmoke(t *testing.T) {
	b := kafkatest.Require(t)
	o := options{bootstrap: b.Addr, nexmark: nexmarkFlags{queries: "q0,q2,q5", events: 2000, runs: 1, ddl: "kafka,gen", flink: "off", cpu: "none"}}
	rep, err := runNexmarkSuite(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 6 {
		t.Fatalf("%d results, want 6: %+v", len(rep.Results), rep.Results)
	}
	for _, r := range rep.Results {
		switch r.Status {
		case "ok":
			if len(r.Runs) != 2 || r.WallSmall <= 0 || r.WallLarge <= 0 || r.CPULarge <= 0 || r.PeakRSSMB <= 0 {
				t.Errorf("%s: a figure was not measured: %+v", r.Query, r)
			}
		case "not supported yet":
			if !strings.Contains(r.Message, "not supported") {
				t.Errorf("%s: refused without the planner's message: %q", r.Query, r.Message)
			}
		default:
			t.Errorf("%s: %s: %s", r.Query, r.Status, r.Message)
		}
		if r.Engine != "streamsql" {
			t.Errorf("%s ran through %s", r.Query, r.Engine)
		}
	}
	for _, i := range []int{0, 3} {
		if r := rep.Results[i]; r.Query != "q0" || r.Status != "ok" {
			t.Errorf("q0 did not run over %s: %+v", r.DDL, r)
		}
	}
	var md bytes.Buffer
	writeNexmarkMarkdown(&md, rep)
	t.Log("\n" + md.String())
	// The table, then (when some query did not run) a blank line and
	// the messages.
	table, _, _ := strings.Cut(md.String(), "\n\n")
	if lines := strings.Count(strings.TrimRight(table, "\n"), "\n") + 1; lines != 2+6 {
		t.Errorf("the Markdown table has %d lines, want 8:\n%s", lines, md.String())
	}
	if !strings.Contains(rep.Flink, "-flink off") {
		t.Errorf("the report does not say why Flink did not run: %q", rep.Flink)
	}
}

// TestNexmarkConnectorJarFlag checks -flink-nexmark-jar's off and path
// modes (auto builds with git and Maven, which CI does not have): off and a
// missing file give no jar and say why; an existing file is the jar.
func TestNexmarkConnectorJarFlag(t *testing.T) {
	ctx := context.Background()
	if jar, why := nexmarkConnectorJar(ctx, "off", io.Discard); jar != "" || !strings.Contains(why, "off") {
		t.Errorf("off: jar %q, why %q", jar, why)
	}
	missing := filepath.Join(t.TempDir(), "nexmark-flink.jar")
	if jar, why := nexmarkConnectorJar(ctx, missing, io.Discard); jar != "" || !strings.Contains(why, missing) {
		t.Errorf("a missing jar: jar %q, why %q", jar, why)
	}
	if err := os.WriteFile(missing, []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	if jar, why := nexmarkConnectorJar(ctx, missing, io.Discard); jar != missing || why != "" {
		t.Errorf("an existing jar: jar %q, why %q", jar, why)
	}
}

// TestNexmarkGenWithoutConnector runs q0 over ddl_gen.sql with a Flink
// class path but -flink-nexmark-jar off: streamsql runs, and Flink's cell
// is "not run" with the reason, not a failure (Flink needs the public
// connector for ddl_gen.sql).
func TestNexmarkGenWithoutConnector(t *testing.T) {
	b := kafkatest.Require(t)
	o := options{bootstrap: b.Addr, nexmark: nexmarkFlags{queries: "q0", events: 1000, runs: 1, ddl: "gen",
		flink: filepath.Join(t.TempDir(), "flink-classes"), flinkGen: "off", cpu: "none"}}
	rep, err := runNexmarkSuite(context.Background(), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 {
		t.Fatalf("%d results, want 2: %+v", len(rep.Results), rep.Results)
	}
	if r := rep.Results[0]; r.Engine != "streamsql" || r.Status != "ok" {
		t.Errorf("streamsql: %+v", r)
	}
	if r := rep.Results[1]; r.Engine != "flink" || r.Status != "not run" || !strings.Contains(r.Message, "-flink-nexmark-jar off") {
		t.Errorf("flink: %+v", r)
	}
}
