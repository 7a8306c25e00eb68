package lookup_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/lookup"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

var (
	r      = streamtest.Row
	bigint = types.BigInt()
	out    = []types.Type{bigint, types.String(), bigint, types.String()}
)

// table is a fake looked-up table: rates by id, counting its lookups and
// how many run at once.
type table struct {
	rows     map[int64][]string
	calls    atomic.Int64
	inFlight atomic.Int64
	maxIn    atomic.Int64
	failures atomic.Int64 // the next lookups that fail
	misses   atomic.Int64 // the next lookups that find nothing
	delay    time.Duration
}

func (tb *table) lookup(ctx context.Context, key []types.Value, dst []types.Row) ([]types.Row, error) {
	tb.calls.Add(1)
	n := tb.inFlight.Add(1)
	defer tb.inFlight.Add(-1)
	for m := tb.maxIn.Load(); n > m && !tb.maxIn.CompareAndSwap(m, n); m = tb.maxIn.Load() {
	}
	if tb.delay > 0 {
		time.Sleep(tb.delay)
	}
	if tb.failures.Add(-1) >= 0 {
		return dst, errors.New("connection reset")
	}
	if key[0].IsNull() || tb.misses.Add(-1) >= 0 {
		return dst, nil
	}
	for _, v := range tb.rows[key[0].Int64()] {
		dst = append(dst, r(types.Insert, key[0].Int64(), v))
	}
	return dst, nil
}

func spec(tb *table, left bool) lookup.Spec {
	return lookup.Spec{Left: left, Keys: []int{0}, KeyTypes: []types.Type{bigint}, Width: 2, Table: "rates", Concurrency: 4,
		Backoff: time.Millisecond,
		Open: func(context.Context) (lookup.Func, func() error, error) {
			return tb.lookup, func() error { return nil }, nil
		}}
}

func expect(t *testing.T, got []types.Row, want ...string) {
	t.Helper()
	g := streamtest.Format(got, out)
	if !slices.Equal(g, want) {
		t.Fatalf("output:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestLookupJoin: each input row with each looked-up row, in input order,
// with the input's kind; a row without one is dropped (INNER) or padded
// (LEFT); the condition decides which looked-up rows match.
func TestLookupJoin(t *testing.T) {
	tb := &table{rows: map[int64][]string{1: {"eu", "us"}, 2: {"eu"}}}
	inner := streamtest.Open(t, lookup.New(spec(tb, false)), streamtest.Options{})
	inner.Process(r(types.Insert, 1, "a"), r(types.Insert, 3, "b"), r(types.Delete, 2, "c"), r(types.Insert, nil, "d"))
	expect(t, inner.Take(), "+I[1, a, 1, eu]", "+I[1, a, 1, us]", "-D[2, c, 2, eu]")

	s := spec(tb, true)
	s.NewCondition = func() func(row []types.Value) (bool, error) {
		return func(row []types.Value) (bool, error) { return row[3].Str() != "us", nil }
	}
	left := streamtest.Open(t, lookup.New(s), streamtest.Options{})
	left.Process(r(types.Insert, 1, "a"), r(types.Insert, 3, "b"), r(types.Insert, nil, "d"))
	expect(t, left.Take(), "+I[1, a, 1, eu]", "+I[3, b, null, null]", "+I[null, d, null, null]")
}

// TestLookupJoinCache: a cached key is not looked up again within the
// batch or after it, until it expires (after write) or is the least
// recently used beyond max-rows; a missing key is cached only when asked.
func TestLookupJoinCache(t *testing.T) {
	tb := &table{rows: map[int64][]string{1: {"eu"}, 2: {"eu", "us"}, 3: {"x"}}}
	s := spec(tb, false)
	s.Cache = &lookup.Cache{MaxRows: 3, ExpireAfterWrite: time.Minute}
	tk := streamtest.Open(t, lookup.New(s), streamtest.Options{Now: 1000})
	tk.Process(r(types.Insert, 1, "a"), r(types.Insert, 1, "b"), r(types.Insert, 9, "c"))
	if n := tb.calls.Load(); n != 2 {
		t.Fatalf("%d lookups for keys 1, 1, 9; want 2", n)
	}
	tk.Process(r(types.Insert, 1, "d"), r(types.Insert, 9, "e"))
	if n := tb.calls.Load(); n != 3 {
		t.Fatalf("%d lookups; want 3 (1 cached, the missing 9 not)", n)
	}
	tk.Process(r(types.Insert, 2, "f")) // 1 + 2 rows: at max-rows
	tk.Process(r(types.Insert, 3, "g")) // 1 (least recently used) goes
	before := tb.calls.Load()
	tk.Process(r(types.Insert, 2, "h"), r(types.Insert, 3, "i"))
	if n := tb.calls.Load() - before; n != 0 {
		t.Fatalf("%d lookups of cached keys 2 and 3", n)
	}
	tk.Process(r(types.Insert, 1, "j"))
	if n := tb.calls.Load() - before; n != 1 {
		t.Fatalf("key 1 evicted: %d lookups, want 1", n)
	}
	tk.Advance(1000 + time.Minute.Milliseconds())
	before = tb.calls.Load()
	tk.Process(r(types.Insert, 2, "k"))
	if n := tb.calls.Load() - before; n != 1 {
		t.Fatalf("key 2 after it expired: %d lookups, want 1", n)
	}
	tk.Take()

	s.Cache = &lookup.Cache{MaxRows: 10, CacheMissingKey: true}
	tk = streamtest.Open(t, lookup.New(s), streamtest.Options{})
	before = tb.calls.Load()
	tk.Process(r(types.Insert, 9, "a"))
	tk.Process(r(types.Insert, 9, "b"))
	if n := tb.calls.Load() - before; n != 1 {
		t.Fatalf("a cached missing key: %d lookups, want 1", n)
	}
}

// TestLookupJoinRetries: a failed lookup is retried up to max-retries
// times; beyond, the task fails naming the table.
func TestLookupJoinRetries(t *testing.T) {
	tb := &table{rows: map[int64][]string{1: {"eu"}}}
	s := spec(tb, false)
	s.MaxRetries = 2
	tk := streamtest.Open(t, lookup.New(s), streamtest.Options{})
	tb.failures.Store(2)
	tk.Process(r(types.Insert, 1, "a"))
	expect(t, tk.Take(), "+I[1, a, 1, eu]")
	tb.failures.Store(3)
	err := tk.ProcessErr(r(types.Insert, 1, "b"))
	if err == nil || !strings.Contains(err.Error(), "rates") || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("after 3 failures with 2 retries: %v", err)
	}
}

// TestLookupJoinMissRetries: with the LOOKUP hint's retry on a miss, a
// lookup that finds nothing is repeated up to MissRetries times; a key
// still missing after them is a miss (dropped, or padded by a LEFT join).
func TestLookupJoinMissRetries(t *testing.T) {
	tb := &table{rows: map[int64][]string{1: {"eu"}}}
	s := spec(tb, false)
	s.MissRetries, s.MissDelay = 3, time.Millisecond
	tk := streamtest.Open(t, lookup.New(s), streamtest.Options{})
	tb.misses.Store(3)
	tk.Process(r(types.Insert, 1, "a"))
	expect(t, tk.Take(), "+I[1, a, 1, eu]")
	if n := tb.calls.Load(); n != 4 {
		t.Fatalf("%d lookups for a key found at the fourth; want 4", n)
	}
	tb.misses.Store(4)
	tk.Process(r(types.Insert, 1, "b"))
	expect(t, tk.Take())
	if n := tb.calls.Load(); n != 8 {
		t.Fatalf("%d lookups after a key missing at all four; want 8", n)
	}
	tb.misses.Store(0)
	left := streamtest.Open(t, lookup.New(func() lookup.Spec { s := spec(tb, true); s.MissRetries, s.MissDelay = 1, time.Millisecond; return s }()), streamtest.Options{})
	before := tb.calls.Load()
	left.Process(r(types.Insert, 7, "c"))
	expect(t, left.Take(), "+I[7, c, null, null]")
	if n := tb.calls.Load() - before; n != 2 {
		t.Fatalf("%d lookups of a missing key with one retry; want 2", n)
	}
}

// TestLookupJoinConcurrency: a batch's keys are looked up concurrently,
// never more at once than the bound, and the output keeps input order.
func TestLookupJoinConcurrency(t *testing.T) {
	tb := &table{rows: map[int64][]string{}, delay: 5 * time.Millisecond}
	var in []types.Row
	var want []string
	for i := range 40 {
		tb.rows[int64(i)] = []string{"x"}
		in = append(in, r(types.Insert, i, "a"))
		want = append(want, streamtest.Format([]types.Row{r(types.Insert, i, "a", i, "x")}, out)...)
	}
	tk := streamtest.Open(t, lookup.New(spec(tb, false)), streamtest.Options{})
	tk.Process(in...)
	expect(t, tk.Take(), want...)
	if m := tb.maxIn.Load(); m < 2 || m > 4 {
		t.Fatalf("%d lookups at once, want 2..4", m)
	}
}
