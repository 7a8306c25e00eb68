package job

import (
	"context"
	"math"
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// nexmarkLikeWatermark returns the WATERMARK FOR expression, as planned,
// of a table of the shape of Nexmark's: the time column is a CASE over an
// INT and nested ROW fields.
func nexmarkLikeWatermark(tb testing.TB) expr.Expr {
	tb.Helper()
	ctx := context.Background()
	text := `CREATE TABLE ev (
    event_type INT,
    a ROW<id BIGINT, dt TIMESTAMP(3)>,
    b ROW<id BIGINT, dt TIMESTAMP(3)>,
    dt AS CASE WHEN event_type = 0 THEN a.dt WHEN event_type = 1 THEN b.dt ELSE NULL END,
    WATERMARK FOR dt AS dt - INTERVAL '4' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out1 (w TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(dt), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
`
	plan, err := planner.Compile(ctx, "t.sql", text, planner.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var wexpr expr.Expr
	for _, ins := range plan.Inserts {
		for _, fl := range ins.Flows {
			for s := fl.Source; s != nil && wexpr == nil; {
				wexpr = s.Watermark
				if s.Node == nil || len(s.Node.Inputs) == 0 {
					break
				}
				s = s.Node.Inputs[0].Source
			}
		}
	}
	if wexpr == nil {
		tb.Fatal("the plan has no source with a watermark")
	}
	return wexpr
}

// TestWatermarkDelay: a source's WATERMARK FOR `ts - INTERVAL ...` over a
// TIMESTAMP compiles ts alone and adds the interval's milliseconds to its
// candidates (delayOf), and every candidate (value, NULL) is the one the
// whole expression gives. The table has the shape of Nexmark's: the time
// column is a CASE over an INT and nested ROW fields.
func TestWatermarkDelay(t *testing.T) {
	wexpr := nexmarkLikeWatermark(t)
	r, err := expr.Resolve(wexpr)
	if err != nil {
		t.Fatal(err)
	}
	if ts, delta := delayOf(r); delta != -4000 || ts == r {
		t.Fatalf("delayOf(%s) = %s, %d; want the CASE and -4000", r, ts, delta)
	}
	gen, err := watermarkOf(wexpr, expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := expr.Compile(wexpr, expr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := func(ms int64) types.Value { return types.TimestampValue(types.Timestamp{Millis: ms, NanoOfMilli: 123}) }
	row := func(et types.Value, a, b types.Value) types.Row {
		return types.Row{Fields: []types.Value{et, a, b}}
	}
	nested := func(dt types.Value) types.Value { return types.List([]types.Value{types.Int64(7), dt}) }
	rows := []types.Row{
		row(types.Int64(0), nested(ts(1_700_000_000_123)), nested(ts(5))),
		row(types.Int64(1), nested(ts(1)), nested(ts(1_700_000_009_999))),
		row(types.Int64(2), nested(ts(1)), nested(ts(2))),         // ELSE NULL
		row(types.Value{}, nested(ts(1)), nested(ts(2))),          // NULL event_type
		row(types.Int64(0), types.Value{}, nested(ts(2))),         // NULL row
		row(types.Int64(1), nested(ts(1)), nested(types.Value{})), // NULL field
		row(types.Int64(0), nested(ts(0)), nested(ts(0))),
		row(types.Int64(0), nested(ts(-62_135_596_800_000)), nested(ts(0))), // 0001-01-01
		row(types.Int64(1), nested(ts(0)), nested(ts(math.MinInt64+1000))),  // wraps as TIMESTAMPADD does
	}
	for i, rw := range rows {
		got, ok, err := gen(rw)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		v, err := whole.Eval(rw.Fields)
		if err != nil {
			t.Fatalf("row %d: the whole expression: %v", i, err)
		}
		if ok != !v.IsNull() || ok && got != v.Timestamp().Millis {
			t.Errorf("row %d: candidate %d, %v; the whole expression gives %v", i, got, ok, v)
		}
	}
}

// TestWatermarkDelayForms: which WATERMARK expressions delayOf splits.
func TestWatermarkDelayForms(t *testing.T) {
	ts := expr.Col(0, "ts", types.TimestampType(3))
	ltz := expr.Col(1, "ltz", types.TimestampLTZ(3))
	for _, c := range []struct {
		name  string
		e     expr.Expr
		delta int64
		split bool
	}{
		{"seconds", expr.AddInterval(ts, -4, expr.UnitSecond), -4000, true},
		{"minutes", expr.AddInterval(ts, 2, expr.UnitMinute), 120_000, true},
		{"hours", expr.AddInterval(ts, -1, expr.UnitHour), -3_600_000, true},
		{"millis", expr.AddInterval(ts, -500, expr.UnitMillisecond), -500, true},
		{"column", ts, 0, false},
		{"days", expr.AddInterval(ts, -1, expr.UnitDay), 0, false},
		{"ltz", expr.AddInterval(ltz, -4, expr.UnitSecond), 0, false},
		{"overflow", expr.AddInterval(ts, math.MaxInt64/1000, expr.UnitSecond), 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := expr.Resolve(c.e)
			if err != nil {
				t.Fatal(err)
			}
			got, delta := delayOf(r)
			if split := got != r; split != c.split || delta != c.delta {
				t.Errorf("delayOf(%s) = %s, %d; want split %v, delta %d", r, got, delta, c.split, c.delta)
			}
		})
	}
}

// BenchmarkWatermarkCandidate: the watermark candidate of a Nexmark-shaped
// row (a bid: the CASE's ELSE), through the whole expression (what the
// source evaluated before delayOf) and through watermarkOf.
func BenchmarkWatermarkCandidate(b *testing.B) {
	wexpr := nexmarkLikeWatermark(b)
	ts := types.TimestampValue(types.Timestamp{Millis: 1_700_000_000_123})
	nested := types.List([]types.Value{types.Int64(7), ts})
	row := types.Row{Fields: []types.Value{types.Int64(1), nested, nested}}
	b.Run("whole", func(b *testing.B) {
		prog, err := expr.Compile(wexpr, expr.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var sum int64
		for b.Loop() {
			v, err := prog.Eval(row.Fields)
			if err != nil || v.IsNull() {
				b.Fatal(v, err)
			}
			sum += v.Timestamp().Millis
		}
		_ = sum
	})
	b.Run("watermarkOf", func(b *testing.B) {
		gen, err := watermarkOf(wexpr, expr.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var sum int64
		for b.Loop() {
			ms, ok, err := gen(row)
			if err != nil || !ok {
				b.Fatal(ms, err)
			}
			sum += ms
		}
		_ = sum
	})
}
