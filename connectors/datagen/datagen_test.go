package datagen

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// readAll reads r until io.EOF.
func readAll(t *testing.T, r connector.Reader) []types.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []types.Row
	for {
		rows, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		out = append(out, rows...)
	}
}

func openAll(t *testing.T, s *Source, states map[string][]byte) []connector.Reader {
	t.Helper()
	splits, err := s.Splits(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var rs []connector.Reader
	for i, sp := range splits {
		r, err := s.Open(context.Background(), connector.TaskInfo{Index: i, Parallelism: len(splits)},
			[]connector.SplitState{{ID: sp.ID, State: states[sp.ID]}})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return rs
}

func seqConfig(p int, rows int64) Config {
	return Config{NumberOfRows: rows, Parallelism: p, Seed: 42, Fields: []Field{
		{Name: "id", Type: types.BigInt(), Kind: Sequence, Start: 100, End: 1 << 40},
		{Name: "name", Type: types.String(), Length: 8},
	}}
}

func TestSequenceAcrossSplitsExactlyOnce(t *testing.T) {
	s, err := New(seqConfig(3, 50))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Bounded() {
		t.Fatal("a source with number-of-rows must be bounded")
	}
	var ids []int64
	for _, r := range openAll(t, s, nil) {
		for _, row := range readAll(t, r) {
			ids = append(ids, row.Fields[0].Int64())
			if n := len(row.Fields[1].Str()); n != 8 {
				t.Fatalf("name has length %d, want 8", n)
			}
		}
	}
	slices.Sort(ids)
	for i, id := range ids {
		if id != int64(100+i) {
			t.Fatalf("ids = %v, want 100..149 each once", ids)
		}
	}
	if len(ids) != 50 {
		t.Fatalf("read %d rows, want 50", len(ids))
	}
}

func TestSequenceEndBoundsTheSource(t *testing.T) {
	cfg := Config{NumberOfRows: -1, Fields: []Field{{Name: "n", Type: types.Int(), Kind: Sequence, Start: 1, End: 5}}}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows := readAll(t, openAll(t, s, nil)[0])
	var got []int64
	for _, r := range rows {
		got = append(got, r.Fields[0].Int64())
	}
	if !slices.Equal(got, []int64{1, 2, 3, 4, 5}) {
		t.Fatalf("sequence 1..5 gave %v", got)
	}
}

func TestRestoreContinuesFromSnapshot(t *testing.T) {
	s, err := New(seqConfig(1, 2000))
	if err != nil {
		t.Fatal(err)
	}
	full := readAll(t, openAll(t, s, nil)[0])

	r := openAll(t, s, nil)[0]
	first, err := r.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	states, err := r.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	restored := openAll(t, s, map[string][]byte{states[0].ID: states[0].State})[0]
	rest := readAll(t, restored)
	got := append(first, rest...)
	if len(got) != len(full) {
		t.Fatalf("restored run produced %d rows, want %d", len(got), len(full))
	}
	for i := range full {
		if got[i].Fields[0].Int64() != full[i].Fields[0].Int64() || got[i].Fields[1].Str() != full[i].Fields[1].Str() {
			t.Fatalf("row %d differs after restore: %v vs %v", i, got[i], full[i])
		}
	}
}

func TestSeedMakesRunsReproducible(t *testing.T) {
	gen := func(seed int64) []string {
		cfg := seqConfig(1, 20)
		cfg.Seed = seed
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range readAll(t, openAll(t, s, nil)[0]) {
			out = append(out, r.Fields[1].Str())
		}
		return out
	}
	a, b, c := gen(7), gen(7), gen(8)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave different rows")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same rows")
	}
}

func TestRandomRangesAndNulls(t *testing.T) {
	cfg := Config{NumberOfRows: 1000, Seed: 1, Fields: []Field{
		{Name: "small", Type: types.Int(), Min: -5, Max: 5, HasMin: true, HasMax: true},
		{Name: "s", Type: types.VarChar(10), Length: 20, VarLen: true},
		{Name: "maybe", Type: types.Double(), NullRate: 0.5},
		{Name: "price", Type: types.DecimalType(6, 2), Min: 1, Max: 99, HasMin: true, HasMax: true},
		{Name: "ts", Type: types.TimestampLTZ(3), MaxPast: time.Hour},
		{Name: "tags", Type: types.Array(types.String()), Length: 2},
	}}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	nulls := 0
	now := time.Now()
	for _, r := range readAll(t, openAll(t, s, nil)[0]) {
		if v := r.Fields[0].Int64(); v < -5 || v > 5 {
			t.Fatalf("small = %d, outside [-5, 5]", v)
		}
		if n := len(r.Fields[1].Str()); n < 1 || n > 10 {
			t.Fatalf("VARCHAR(10) var-len value has length %d", n)
		}
		if r.Fields[2].IsNull() {
			nulls++
		}
		d := r.Fields[3].Decimal()
		if d.Scale() != 2 || d.Float64() < 1 || d.Float64() > 99 {
			t.Fatalf("price = %s, want scale 2 within [1, 99]", d)
		}
		ts := r.Fields[4].Timestamp().Time()
		if ts.After(now.Add(time.Minute)) || ts.Before(now.Add(-time.Hour-time.Minute)) {
			t.Fatalf("ts = %v, not within max-past of now", ts)
		}
		if len(r.Fields[5].List()) != 2 {
			t.Fatalf("tags has %d elements, want 2", len(r.Fields[5].List()))
		}
	}
	if nulls == 0 || nulls == 1000 {
		t.Fatalf("null-rate 0.5 gave %d NULLs of 1000", nulls)
	}
}

func TestValidationErrors(t *testing.T) {
	cases := []Config{
		{Fields: []Field{{Name: "a", Type: types.Int(), NullRate: 2}}},
		{Fields: []Field{{Name: "a", Type: types.Boolean(), Kind: Sequence, Start: 1, End: 2}}},
		{Fields: []Field{{Name: "a", Type: types.Int(), Kind: Sequence, Start: 5, End: 1}}},
		{Fields: []Field{{Name: "a", Type: types.Int(), Min: 5, Max: 1, HasMin: true, HasMax: true}}},
	}
	for i, cfg := range cases {
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("case %d: New = %v, want ErrConfig", i, err)
		}
	}
	s, _ := New(seqConfig(2, 10))
	if _, err := s.Open(context.Background(), connector.TaskInfo{}, []connector.SplitState{{ID: "datagen-0-of-3"}}); err == nil {
		t.Error("a split of another parallelism was accepted")
	}
}

func TestRateLimitedReadStopsOnCancel(t *testing.T) {
	cfg := seqConfig(1, -1)
	cfg.RowsPerSecond = 1
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := openAll(t, s, nil)[0]
	ctx, cancel := context.WithCancel(context.Background())
	if rows, err := r.Read(ctx); err != nil || len(rows) != 1 {
		t.Fatalf("first Read = %d rows, %v; want the one row due at once", len(rows), err)
	}
	cancel()
	if _, err := r.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel = %v, want context.Canceled", err)
	}
}
