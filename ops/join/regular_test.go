package join_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/ops/join"
	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/stream/streamtest"
	"github.com/streamsql/streamsql/types"
)

const (
	ins = types.Insert
	ub  = types.UpdateBefore
	ua  = types.UpdateAfter
	del = types.Delete
)

var (
	r       = streamtest.Row
	bigint  = types.BigInt()
	str     = types.String()
	kvTypes = []types.Type{bigint, str}
	kvkv    = []types.Type{bigint, str, bigint, str}
)

// kv is a join of (k BIGINT, v STRING) rows on k.
func kv(t join.Type) join.Spec {
	return join.Spec{Type: t, KeyTypes: []types.Type{bigint},
		Left:  join.Side{Types: kvTypes, Keys: []int{0}},
		Right: join.Side{Types: kvTypes, Keys: []int{0}}}
}

func expect(t *testing.T, got []types.Row, ts []types.Type, want ...string) {
	t.Helper()
	g := streamtest.Format(got, ts)
	if !slices.Equal(g, want) {
		t.Fatalf("output:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestInnerJoinForwardsKinds: an inner join emits each new pair with the
// kind of the row that made it (Flink forwards +I, +U, -U and -D).
func TestInnerJoinForwardsKinds(t *testing.T) {
	tk := streamtest.Open(t, join.New(kv(join.Inner)), streamtest.Options{})
	tk.ProcessInput(0, r(ins, 1, "a"))
	expect(t, tk.Take(), kvkv)
	tk.ProcessInput(1, r(ins, 1, "x"), r(ins, 2, "y"), r(ins, 1, "x"))
	expect(t, tk.Take(), kvkv, "+I[1, a, 1, x]", "+I[1, a, 1, x]")
	tk.ProcessInput(0, r(ub, 1, "a"), r(ua, 1, "b"))
	expect(t, tk.Take(), kvkv, "-U[1, a, 1, x]", "-U[1, a, 1, x]", "+U[1, b, 1, x]", "+U[1, b, 1, x]")
	tk.ProcessInput(1, r(del, 1, "x"))
	expect(t, tk.Take(), kvkv, "-D[1, b, 1, x]")
	tk.ProcessInput(0, r(ins, 2, nil))
	expect(t, tk.Take(), kvkv, "+I[2, null, 2, y]")
}

// TestLeftJoinPads: a left row without a match is emitted padded, taken
// back when its first match arrives and emitted padded again when its
// last match is retracted; the right side's pairs are +I and its
// retractions keep their kind, as in Flink.
func TestLeftJoinPads(t *testing.T) {
	tk := streamtest.Open(t, join.New(kv(join.Left)), streamtest.Options{})
	tk.ProcessInput(0, r(ins, 1, "a"))
	expect(t, tk.Take(), kvkv, "+I[1, a, null, null]")
	tk.ProcessInput(1, r(ins, 1, "x"))
	expect(t, tk.Take(), kvkv, "-D[1, a, null, null]", "+I[1, a, 1, x]")
	tk.ProcessInput(1, r(ins, 1, "y"))
	expect(t, tk.Take(), kvkv, "+I[1, a, 1, y]")
	tk.ProcessInput(1, r(ub, 1, "x"), r(ua, 1, "z"))
	expect(t, tk.Take(), kvkv, "-U[1, a, 1, x]", "+I[1, a, 1, z]")
	tk.ProcessInput(1, r(del, 1, "y"), r(del, 1, "z"))
	expect(t, tk.Take(), kvkv, "-D[1, a, 1, y]", "-D[1, a, 1, z]", "+I[1, a, null, null]")
	// The left row's own retraction: -D of its padded row; of its pairs
	// once it has some.
	tk.ProcessInput(0, r(ub, 1, "a"))
	expect(t, tk.Take(), kvkv, "-D[1, a, null, null]")
	tk.ProcessInput(1, r(ins, 1, "w"))
	expect(t, tk.Take(), kvkv)
	tk.ProcessInput(0, r(ua, 1, "b"))
	expect(t, tk.Take(), kvkv, "+I[1, b, 1, w]")
	tk.ProcessInput(0, r(del, 1, "b"))
	expect(t, tk.Take(), kvkv, "-D[1, b, 1, w]")
	// A NULL key matches nothing: the left row is padded at once.
	tk.ProcessInput(1, r(ins, nil, "n"))
	tk.ProcessInput(0, r(ins, nil, "m"))
	expect(t, tk.Take(), kvkv, "+I[null, m, null, null]")
}

// TestFullJoinPadsBothSides: each side's unmatched rows are padded; a
// row's arrival takes back the other side's padded rows it matches.
func TestFullJoinPadsBothSides(t *testing.T) {
	tk := streamtest.Open(t, join.New(kv(join.Full)), streamtest.Options{})
	tk.ProcessInput(1, r(ins, 1, "x"), r(ins, 1, "x"))
	expect(t, tk.Take(), kvkv, "+I[null, null, 1, x]", "+I[null, null, 1, x]")
	tk.ProcessInput(0, r(ins, 1, "a"))
	expect(t, tk.Take(), kvkv, "-D[null, null, 1, x]", "-D[null, null, 1, x]", "+I[1, a, 1, x]", "+I[1, a, 1, x]")
	tk.ProcessInput(0, r(ins, 1, "b"))
	expect(t, tk.Take(), kvkv, "+I[1, b, 1, x]", "+I[1, b, 1, x]")
	tk.ProcessInput(0, r(del, 1, "a"))
	expect(t, tk.Take(), kvkv, "-D[1, a, 1, x]", "-D[1, a, 1, x]")
	tk.ProcessInput(0, r(del, 1, "b"))
	expect(t, tk.Take(), kvkv, "-D[1, b, 1, x]", "-D[1, b, 1, x]", "+I[null, null, 1, x]", "+I[null, null, 1, x]")
	tk.ProcessInput(1, r(del, 1, "x"))
	expect(t, tk.Take(), kvkv, "-D[null, null, 1, x]")
}

// TestSemiAntiJoin: SEMI emits a left row while it has a match, ANTI
// while it has none.
func TestSemiAntiJoin(t *testing.T) {
	semi := streamtest.Open(t, join.New(kv(join.Semi)), streamtest.Options{})
	anti := streamtest.Open(t, join.New(kv(join.Anti)), streamtest.Options{})
	both := func(in int, rows ...types.Row) {
		semi.ProcessInput(in, rows...)
		anti.ProcessInput(in, rows...)
	}
	both(0, r(ins, 1, "a"), r(ins, 2, "b"))
	expect(t, semi.Take(), kvTypes)
	expect(t, anti.Take(), kvTypes, "+I[1, a]", "+I[2, b]")
	both(1, r(ins, 1, "x"), r(ins, 1, "y"))
	expect(t, semi.Take(), kvTypes, "+I[1, a]")
	expect(t, anti.Take(), kvTypes, "-D[1, a]")
	both(1, r(del, 1, "x"))
	expect(t, semi.Take(), kvTypes)
	expect(t, anti.Take(), kvTypes)
	both(1, r(del, 1, "y"))
	expect(t, semi.Take(), kvTypes, "-D[1, a]")
	expect(t, anti.Take(), kvTypes, "+I[1, a]")
	both(0, r(ub, 2, "b"), r(ua, 2, "c"))
	expect(t, semi.Take(), kvTypes)
	expect(t, anti.Take(), kvTypes, "-U[2, b]", "+U[2, c]")
}

// TestJoinCondition: the residual condition decides which pairs of a key
// match; an outer row whose pairs all fail it is padded.
func TestJoinCondition(t *testing.T) {
	spec := kv(join.Left)
	spec.NewCondition = func() join.Condition {
		return func(row []types.Value) (bool, error) {
			return !row[1].IsNull() && !row[3].IsNull() && row[1].Str() < row[3].Str(), nil
		}
	}
	tk := streamtest.Open(t, join.New(spec), streamtest.Options{})
	tk.ProcessInput(0, r(ins, 1, "m"))
	tk.ProcessInput(1, r(ins, 1, "a"), r(ins, 1, "z"))
	expect(t, tk.Take(), kvkv, "+I[1, m, null, null]", "-D[1, m, null, null]", "+I[1, m, 1, z]")
}

// TestUniqueKeyReplaces: a side with a unique key keeps one row per key
// value; an accumulating row of a held key replaces it without counting
// a second match of the other side's rows.
func TestUniqueKeyReplaces(t *testing.T) {
	spec := kv(join.Full)
	spec.Left.UniqueKey = []int{1}
	tk := streamtest.Open(t, join.New(spec), streamtest.Options{})
	tk.ProcessInput(1, r(ins, 1, "x"))
	tk.ProcessInput(0, r(ins, 1, "a"))
	expect(t, tk.Take(), kvkv, "+I[null, null, 1, x]", "-D[null, null, 1, x]", "+I[1, a, 1, x]")
	tk.ProcessInput(0, r(ua, 1, "a")) // an upsert of the held row
	expect(t, tk.Take(), kvkv, "+I[1, a, 1, x]")
	tk.ProcessInput(0, r(del, 1, "a"))
	expect(t, tk.Take(), kvkv, "-D[1, a, 1, x]", "+I[null, null, 1, x]")
}

// TestJoinTTL: a row not written for its side's TTL is forgotten: a
// later row of the other side no longer matches it.
func TestJoinTTL(t *testing.T) {
	spec := kv(join.Inner)
	spec.Left.TTL = time.Minute
	tk := streamtest.Open(t, join.New(spec), streamtest.Options{Now: 1000})
	tk.ProcessInput(0, r(ins, 1, "a"))
	tk.ProcessInput(1, r(ins, 2, "x"))
	tk.Advance(1000 + 59_000)
	tk.ProcessInput(1, r(ins, 1, "x"))
	expect(t, tk.Take(), kvkv, "+I[1, a, 1, x]")
	tk.Advance(1000 + 61_000)
	tk.ProcessInput(1, r(ins, 1, "y")) // the left row expired
	tk.ProcessInput(0, r(ins, 2, "b")) // the right side has no TTL
	expect(t, tk.Take(), kvkv, "+I[2, b, 2, x]")
}

// TestNullSafeKey: a key column compared with IS NOT DISTINCT FROM
// matches NULL with NULL.
func TestNullSafeKey(t *testing.T) {
	spec := kv(join.Inner)
	spec.NullSafe = []bool{true}
	tk := streamtest.Open(t, join.New(spec), streamtest.Options{})
	tk.ProcessInput(0, r(ins, nil, "a"))
	tk.ProcessInput(1, r(ins, nil, "x"))
	expect(t, tk.Take(), kvkv, "+I[null, a, null, x]")
}

// TestJoinMatchesBatchOracle feeds random changelogs (inserts, and
// retractions of rows inserted before) of both sides to joins of every
// type, checkpointing half way and restoring into three tasks, and checks
// that the emitted changelog never retracts a row it has not emitted and
// ends equal to the batch join of what remains of the inputs.
func TestJoinMatchesBatchOracle(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	for _, typ := range []join.Type{join.Inner, join.Left, join.Right, join.Full, join.Semi, join.Anti} {
		for _, cond := range []bool{false, true} {
			for _, unique := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/cond=%v/unique=%v", typ, cond, unique), func(t *testing.T) {
					oracleRun(t, rng, typ, cond, unique, false)
				})
			}
			// Insert-only inputs: the sides without a number of matches
			// keep their rows as lists.
			t.Run(fmt.Sprintf("%s/cond=%v/insert-only", typ, cond), func(t *testing.T) {
				oracleRun(t, rng, typ, cond, false, true)
			})
		}
	}
}

// input is one row of a side's random changelog.
type input struct {
	side int
	row  types.Row
}

func oracleRun(t *testing.T, rng *rand.Rand, typ join.Type, cond, unique, insertOnly bool) {
	spec := kv(typ)
	spec.Left.InsertOnly, spec.Right.InsertOnly = insertOnly, insertOnly
	if cond {
		spec.NewCondition = func() join.Condition {
			return func(row []types.Value) (bool, error) {
				return !row[1].IsNull() && !row[3].IsNull() && row[1].Str() <= row[3].Str(), nil
			}
		}
		// The condition reads the values only: a probe copies just those
		// (TestJoinCondition covers the copy of every column).
		spec.ConditionColumns = []int{1, 3}
	}
	var uid [2]int
	if unique {
		// The value column is unique per side: each inserted value is new.
		spec.Left.UniqueKey, spec.Right.UniqueKey = []int{1}, []int{1}
	}
	// The changelog: inserts of small keys (NULL sometimes), and
	// retractions (as -D, or -U then +U) of live rows.
	var live [2][]types.Row
	var log []input
	for range 300 {
		s := rng.IntN(2)
		if n := len(live[s]); n > 0 && !insertOnly && rng.IntN(3) == 0 {
			i := rng.IntN(n)
			old := live[s][i]
			live[s] = slices.Delete(live[s], i, i+1)
			if rng.IntN(2) == 0 {
				log = append(log, input{s, types.Row{Kind: del, Fields: old.Fields}})
				continue
			}
			log = append(log, input{s, types.Row{Kind: ub, Fields: old.Fields}})
			nr := newRow(rng, s, &uid, unique)
			log = append(log, input{s, types.Row{Kind: ua, Fields: nr.Fields}})
			live[s] = append(live[s], nr)
			continue
		}
		nr := newRow(rng, s, &uid, unique)
		log = append(log, input{s, nr})
		live[s] = append(live[s], nr)
	}
	outTypes := kvkv
	if typ == join.Semi || typ == join.Anti {
		outTypes = kvTypes
	}
	got := map[string]int{}
	apply := func(rows []types.Row) {
		for i, line := range streamtest.Format(rows, outTypes) {
			k := line[2:]
			switch rows[i].Kind {
			case ins, ua:
				got[k]++
			default:
				if got[k] == 0 {
					t.Fatalf("%s retracts a row the changelog does not hold", line)
				}
				got[k]--
			}
		}
	}
	f := join.New(spec)
	one := streamtest.Open(t, f, streamtest.Options{})
	half := len(log) / 2
	for _, in := range log[:half] {
		one.ProcessInput(in.side, in.row)
	}
	apply(one.Take())
	h := one.Snapshot()
	const p = 3
	var tasks [p]*streamtest.Task
	for i := range tasks {
		tasks[i] = streamtest.Open(t, f, streamtest.Options{Index: i, Parallelism: p, Restore: []state.Handle{h}, Files: one.Files()})
	}
	for _, in := range log[half:] {
		tk := tasks[0]
		if !in.row.Fields[0].IsNull() {
			kg := state.KeyGroupOf(state.AppendKey(nil, in.row.Fields, []int{0}, []types.Type{bigint}), state.DefaultMaxParallelism)
			tk = tasks[state.TaskOf(kg, p, state.DefaultMaxParallelism)]
		}
		tk.ProcessInput(in.side, in.row)
		apply(tk.Take())
	}
	want := oracle(typ, live[0], live[1], cond, outTypes)
	var g []string
	for k, n := range got {
		for range n {
			g = append(g, k)
		}
	}
	slices.Sort(g)
	if !slices.Equal(g, want) {
		t.Fatalf("the result differs from the batch join\n got: %v\nwant: %v", g, want)
	}
}

func newRow(rng *rand.Rand, side int, uid *[2]int, unique bool) types.Row {
	var k any = rng.IntN(4)
	if rng.IntN(10) == 0 {
		k = nil
	}
	v := string(rune('a' + rng.IntN(5)))
	if unique {
		uid[side]++
		v = fmt.Sprintf("%s%d", v, uid[side])
	}
	return r(ins, k, v)
}

// oracle is the batch join of the rows left and right, as sorted rows
// without their kind.
func oracle(typ join.Type, left, right []types.Row, cond bool, outTypes []types.Type) []string {
	match := func(l, r types.Row) bool {
		if l.Fields[0].IsNull() || r.Fields[0].IsNull() || l.Fields[0].Int64() != r.Fields[0].Int64() {
			return false
		}
		return !cond || l.Fields[1].Str() <= r.Fields[1].Str()
	}
	var rows []types.Row
	nullRow := []types.Value{{}, {}}
	rightMatched := make([]bool, len(right))
	for _, l := range left {
		any := false
		for j, rr := range right {
			if match(l, rr) {
				any, rightMatched[j] = true, true
				if !typ.SemiOrAnti() {
					rows = append(rows, types.Row{Fields: append(slices.Clone(l.Fields), rr.Fields...)})
				}
			}
		}
		switch {
		case typ == join.Semi && any, typ == join.Anti && !any:
			rows = append(rows, l)
		case !any && typ.LeftOuter():
			rows = append(rows, types.Row{Fields: append(slices.Clone(l.Fields), nullRow...)})
		}
	}
	if typ.RightOuter() {
		for j, rr := range right {
			if !rightMatched[j] {
				rows = append(rows, types.Row{Fields: append(slices.Clone(nullRow), rr.Fields...)})
			}
		}
	}
	out := streamtest.Format(rows, outTypes)
	for i := range out {
		out[i] = out[i][2:]
	}
	slices.Sort(out)
	return out
}
