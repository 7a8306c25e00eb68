package planner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/planner"
)

// nexmarkQuery plans Nexmark query q (ddl/testdata/nexmark) over the Kafka
// table and views with the job settings set.
func nexmarkQuery(t *testing.T, q string, set map[string]string) (*planner.Plan, error) {
	t.Helper()
	dir := "../ddl/testdata/nexmark"
	var text strings.Builder
	for _, f := range []string{"ddl_kafka.sql", "ddl_views.sql", q + ".sql"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		text.Write(b)
		text.WriteString(";\n")
	}
	return planner.Compile(context.Background(), q+".sql", text.String(), planner.Options{Registry: testRegistry(), Vars: nexmarkVars, Set: set})
}

// shape returns the distinct scans and operators of the plan's INSERTs
// (pointers: a shared one counts once) and the ids of the operators.
func shape(p *planner.Plan) (scans int, ids []string) {
	seenScan := map[*planner.Source]bool{}
	seenNode := map[*planner.Node]bool{}
	for _, ins := range p.Inserts {
		for _, fl := range ins.Leaves() {
			if fl.Source.Table != nil && !seenScan[fl.Source] {
				seenScan[fl.Source] = true
				scans++
			}
		}
		for _, n := range ins.Nodes() {
			if !seenNode[n] {
				seenNode[n] = true
				ids = append(ids, n.ID)
			}
		}
	}
	return scans, ids
}

// TestReuse: Nexmark q5 computes one HOP window aggregation twice over two
// scans of one topic, and q8 joins two views of that topic. With reuse (the
// default) q5 has one scan and one aggregation feeding both of its readers
// and q8 one scan (q7 too: a scan that needs no event time shares one
// that does), each operator keeping the id it had without reuse (so
// that their state restores); with table.optimizer.reuse-source-enabled
// off the scans stay apart, and with table.optimizer.reuse-sub-plan-enabled
// off nothing is shared (as in Flink, source reuse needs sub-plan reuse).
func TestReuse(t *testing.T) {
	for _, c := range []struct {
		q     string
		set   map[string]string
		scans int
		ids   []string
	}{
		{"q5", nil, 1, []string{"nexmark_q5/windowaggregate-1", "nexmark_q5/windowaggregate-3", "nexmark_q5/windowjoin-4"}},
		{"q5", map[string]string{planner.SettingReuseSource: "false"}, 2,
			[]string{"nexmark_q5/windowaggregate-1", "nexmark_q5/windowaggregate-2", "nexmark_q5/windowaggregate-3", "nexmark_q5/windowjoin-4"}},
		{"q5", map[string]string{planner.SettingReuseSubPlan: "false"}, 2,
			[]string{"nexmark_q5/windowaggregate-1", "nexmark_q5/windowaggregate-2", "nexmark_q5/windowaggregate-3", "nexmark_q5/windowjoin-4"}},
		{"q8", nil, 1, []string{"nexmark_q8/windowaggregate-1", "nexmark_q8/windowaggregate-2", "nexmark_q8/windowjoin-3"}},
		{"q8", map[string]string{planner.SettingReuseSubPlan: "false", planner.SettingReuseSource: "true"}, 2,
			[]string{"nexmark_q8/windowaggregate-1", "nexmark_q8/windowaggregate-2", "nexmark_q8/windowjoin-3"}},
		// q7's regular join reads bid without event time, its window
		// aggregation with: one scan, which generates the watermarks.
		{"q7", nil, 1, []string{"nexmark_q7/windowaggregate-1", "nexmark_q7/join-2"}},
		{"q7", map[string]string{planner.SettingReuseSource: "false"}, 2, []string{"nexmark_q7/windowaggregate-1", "nexmark_q7/join-2"}},
	} {
		p, err := nexmarkQuery(t, c.q, c.set)
		if err != nil {
			t.Fatalf("%s %v: %v", c.q, c.set, err)
		}
		scans, ids := shape(p)
		if scans != c.scans || !slices.Equal(ids, c.ids) {
			t.Errorf("%s %v: %d scans, operators %q; want %d, %q", c.q, c.set, scans, ids, c.scans, c.ids)
		}
		if c.q == "q7" && c.scans == 1 {
			if src := p.Inserts[0].Leaves()[0].Source; src.Watermark == nil {
				t.Errorf("q7's shared scan generates no watermark:\n%s", p)
			}
		}
		reused := strings.Count(p.String(), ": reused, the ")
		if want := 4 - len(c.ids); c.q == "q5" && reused != want {
			t.Errorf("%s %v: EXPLAIN says reused %d times, want %d\n%s", c.q, c.set, reused, want, p)
		}
	}
	if _, err := nexmarkQuery(t, "q5", map[string]string{planner.SettingReuseSource: "maybe"}); !errors.Is(err, planner.ErrInvalidSetting) ||
		!strings.Contains(err.Error(), planner.SettingReuseSource) {
		t.Errorf("an invalid value: %v, want an invalid-setting error naming the key", err)
	}
}

// TestReuseReadsTheUnion: a shared scan decodes every field any of its
// readers reads (each reader's filter and projection stay its own).
func TestReuseReadsTheUnion(t *testing.T) {
	p, err := nexmarkQuery(t, "q3", nil)
	if err != nil {
		t.Fatal(err)
	}
	leaves := p.Inserts[0].Leaves()
	if len(leaves) != 2 || leaves[0].Source != leaves[1].Source {
		t.Fatalf("q3's two views do not share their scan: %d leaves", len(leaves))
	}
	if !slices.Equal(leaves[0].ReadFields, leaves[1].ReadFields) || leaves[0].Filter.String() == leaves[1].Filter.String() {
		t.Errorf("the readers of the shared scan: fields %v and %v, filters %s and %s", leaves[0].ReadFields, leaves[1].ReadFields, leaves[0].Filter, leaves[1].Filter)
	}
	ex := p.String()
	for _, f := range []string{"person.state", "auction.category"} {
		if !strings.Contains(ex, f) {
			t.Errorf("the shared scan does not read %s:\n%s", f, ex)
		}
	}
}

// TestReuseKeepsNonDeterministicApart: two aggregations over a
// non-deterministic projection are not one (each evaluation of UUID()
// differs), though their scan is shared; the same aggregations over a
// deterministic one are.
func TestReuseKeepsNonDeterministicApart(t *testing.T) {
	const job = `CREATE TABLE t (k BIGINT, v STRING) WITH ('connector' = 'datagen');
CREATE TABLE out1 (k BIGINT, a BIGINT, b BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT x.k, x.c, y.c FROM
  (SELECT k, COUNT(DISTINCT %[1]s) AS c FROM t GROUP BY k) x JOIN
  (SELECT k, COUNT(DISTINCT %[1]s) AS c FROM t GROUP BY k) y ON x.k = y.k;`
	for _, c := range []struct {
		arg   string
		nodes int
	}{{"UUID()", 3}, {"v", 2}} {
		p, err := planner.Compile(context.Background(), "job.sql", strings.ReplaceAll(job, "%[1]s", c.arg), planner.Options{Registry: testRegistry()})
		if err != nil {
			t.Fatal(err)
		}
		scans, ids := shape(p)
		if scans != 1 || len(ids) != c.nodes {
			t.Errorf("COUNT(DISTINCT %s): %d scans, operators %q; want 1 scan and %d operators", c.arg, scans, ids, c.nodes)
		}
	}
}

// TestReuseKeepsRejectingScansApart: a scan whose table sets rejected rows
// aside by a policy (here Kafka's scan.bad-record.policy = skip) is not
// shared: each reader's filter and projection must run in the reader's
// task, where a row it rejects goes by the policy.
func TestReuseKeepsRejectingScansApart(t *testing.T) {
	for _, c := range []struct {
		policy string
		scans  int
	}{{"fail", 1}, {"skip", 2}} {
		dir := "../ddl/testdata/nexmark"
		var text strings.Builder
		for _, f := range []string{"ddl_kafka.sql", "ddl_views.sql", "q3.sql"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			text.Write(b)
			text.WriteString(";\n")
		}
		p, err := planner.Compile(context.Background(), "q3.sql", text.String(), planner.Options{Registry: testRegistry(), Vars: nexmarkVars,
			Hints: map[string]map[string]string{"kafka": {"scan.bad-record.policy": c.policy}}})
		if err != nil {
			t.Fatal(err)
		}
		if scans, _ := shape(p); scans != c.scans {
			t.Errorf("scan.bad-record.policy = %s: %d scans, want %d", c.policy, scans, c.scans)
		}
	}
}
