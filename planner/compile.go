package planner

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// TransformFunc maps one input row to zero or more output rows appended to
// out: the shape of the runtime's per-row transform. It is safe for
// concurrent use and keeps neither in nor out.
type TransformFunc = func(in types.Row, out []types.Row) ([]types.Row, error)

// ExprOptions returns the evaluation options of the job's settings: the
// session time zone table.local-time-zone ("default" or unset: the local
// zone).
func (pl *Plan) ExprOptions() (expr.Options, error) {
	var o expr.Options
	if tz := pl.Settings[SettingLocalTimeZone]; tz != "" && tz != "default" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return o, fmt.Errorf("%w: 'table.local-time-zone' = '%s': %v", ErrInvalidSetting, tz, err)
		}
		o.Location = loc
	}
	return o, nil
}

// Transform compiles the flow's filter and projection into a function
// over source rows. Each output row gets a new Fields slice (rows travel
// on to the sink, and Build promises the runtime that no output shares
// memory with the input: runtime.Pipeline.TransformCopies); the row kind
// is kept. The function is safe for concurrent use; NewTransform's are
// cheaper where one goroutine applies them.
func (fl *Flow) Transform(opts expr.Options) (TransformFunc, error) {
	ft, err := fl.Compile(opts)
	if err != nil {
		return nil, err
	}
	return ft.Shared(), nil
}

// ScalarOutput reports whether every column the flow outputs (Projection
// and every Expand) is of a scalar type: no ROW, ARRAY, MAP or MULTISET.
// Its output rows then refer to no nested value of the source row, whose
// memory the source may reuse once the transform is done with the row
// (runtime.Pipeline.TransformCopiesNested).
func (fl *Flow) ScalarOutput() bool {
	scalar := func(es []expr.Expr) bool {
		for _, e := range es {
			if k := e.Type().Kind; k == types.KindArray || k == types.KindMap || k == types.KindMultiset || k == types.KindRow {
				return false
			}
		}
		return true
	}
	if !scalar(fl.Projection) {
		return false
	}
	for _, p := range fl.Expand {
		if !scalar(p) {
			return false
		}
	}
	return true
}

// Shared returns Transform's function.
func (ft *CompiledFlow) Shared() TransformFunc {
	return func(in types.Row, out []types.Row) ([]types.Row, error) {
		out, _, err := ft.apply(in, out, nil)
		return out, err
	}
}

// slabBytes is the size of the slabs NewTransform's functions take output
// rows' fields from: as many whole rows as fit (at least one), so a slab
// fills the allocator's 4 KiB size class. A sink that keeps one row (an
// upsert or JDBC buffer) keeps its whole slab alive, so it stays small:
// 17 rows of the benchmark's 5 columns.
const slabBytes = 4096

// slabRows returns how many rows of n fields a slab holds.
func slabRows(n int) int {
	return max(slabBytes/(n*int(unsafe.Sizeof(types.Value{}))), 1)
}

// NewTransform compiles the flow as Transform does and returns a factory
// of transform functions for one goroutine each (runtime.Pipeline's
// NewTransform: one per source task). Such a function takes its output
// rows' fields from a slab of about 4 KiB (slabBytes) that it allocates
// anew when used up and never reuses, so output rows still share no
// memory with the input or with each other, and a sink may keep any of
// them.
func (fl *Flow) NewTransform(opts expr.Options) (func() TransformFunc, error) {
	ft, err := fl.Compile(opts)
	if err != nil {
		return nil, err
	}
	return ft.PerTask(), nil
}

// PerTask returns NewTransform's factory.
func (ft *CompiledFlow) PerTask() func() TransformFunc {
	n := ft.n
	rows := 0
	if n > 0 {
		rows = slabRows(n)
	}
	return func() TransformFunc {
		ft := ft.forTask()
		var slab []types.Value
		return func(in types.Row, out []types.Row) ([]types.Row, error) {
			if n == 0 {
				out, _, err := ft.apply(in, out, []types.Value{})
				return out, err
			}
			if len(slab) < n {
				slab = make([]types.Value, n*rows)
			}
			// The capacity ends at the row's last field: an append to one
			// row's fields never writes into the next row's.
			out, used, err := ft.apply(in, out, slab[:n:n])
			if used {
				slab = slab[n:]
			}
			return out, err
		}
	}
}

// reusedSlabs bounds the slabs a reusing transform keeps between batches
// (PerTaskReusing): 128 × 4 KiB, over 2,000 rows of the benchmark's 5
// columns (a Kafka reader's batch is at most 500 rows by default). A batch
// that needs more takes the rest from slabs it does not keep.
const reusedSlabs = 128

// PerTaskReusing returns runtime.Pipeline.NewReusingTransform's factory:
// PerTask's, except that release makes the slabs the function cut output
// rows' fields from since the last release (at most reusedSlabs of them)
// its again, to cut the next batch's rows from. Every field of a row it
// cuts is written (the projection sets each column), so a reused slab
// holds no value of an earlier batch in a row that goes out.
func (ft *CompiledFlow) PerTaskReusing() func() (TransformFunc, func()) {
	n := ft.n
	rows := 0
	if n > 0 {
		rows = slabRows(n)
	}
	return func() (TransformFunc, func()) {
		ft := ft.forTask()
		var (
			kept [][]types.Value // slabs kept for reuse, in order
			next int             // kept[next] is the next one to cut from
			slab []types.Value
		)
		fn := func(in types.Row, out []types.Row) ([]types.Row, error) {
			if n == 0 {
				out, _, err := ft.apply(in, out, []types.Value{})
				return out, err
			}
			if len(slab) < n {
				switch {
				case next < len(kept):
					slab = kept[next]
					next++
				case len(kept) < reusedSlabs:
					slab = make([]types.Value, n*rows)
					kept = append(kept, slab)
					next++
				default:
					slab = make([]types.Value, n*rows)
				}
			}
			out, used, err := ft.apply(in, out, slab[:n:n])
			if used {
				slab = slab[n:]
			}
			return out, err
		}
		release := func() { next, slab = 0, nil }
		return fn, release
	}
}

// PerTaskSlabs returns runtime.EdgeTransform.NewRecycling's and
// calc.Spec.NewCutting's factory: PerTask's, except that the function
// takes the slabs it cuts output rows' fields from from take (take(k) returns k Values that nothing else
// uses until the caller hands them out again), and drop makes it forget
// the slab it cuts from. The caller calls drop after each batch and may
// then hand the slabs of the batch out again once nobody reads its rows.
// Every field of a row it cuts is written (the projection sets each
// column), so a reused slab holds no value of an earlier batch in a row
// that goes out.
func (ft *CompiledFlow) PerTaskSlabs() func(take func(k int) []types.Value) (TransformFunc, func()) {
	n := ft.n
	rows := 0
	if n > 0 {
		rows = slabRows(n)
	}
	return func(take func(k int) []types.Value) (TransformFunc, func()) {
		ft := ft.forTask()
		var slab []types.Value
		fn := func(in types.Row, out []types.Row) ([]types.Row, error) {
			if n == 0 {
				out, _, err := ft.apply(in, out, []types.Value{})
				return out, err
			}
			if len(slab) < n {
				slab = take(n * rows)
			}
			out, used, err := ft.apply(in, out, slab[:n:n])
			if used {
				slab = slab[n:]
			}
			return out, err
		}
		return fn, func() { slab = nil }
	}
}

// CompiledFlow is a flow's compiled filter and projection (Flow.Compile):
// Shared is Transform's function and PerTask NewTransform's factory, of one
// compilation (when the flow repeats a subexpression, each of PerTask's
// functions compiles its own, which computes it once per row).
type CompiledFlow struct {
	fl     *Flow
	filter *expr.Filter
	proj   *expr.Projection
	more   []*expr.Projection // Flow.Expand
	n      int
	// unnest are Flow.Unnest compiled, and width the width of the row
	// the last one builds.
	unnest []compiledUnnest
	width  int
	// opts are the options it was compiled with; repeats reports that
	// the filter and projections have common subexpressions, which
	// PerTask's functions compute once per row (withMemo), and memo is
	// set in such a function's own compilation.
	opts    expr.Options
	repeats bool
	memo    *expr.Memo
}

// SharesSubexpressions reports whether the flow's filter and projections
// repeat a deterministic call or cast, which each of PerTask's functions
// then computes once per row.
func (ft *CompiledFlow) SharesSubexpressions() bool { return ft.repeats }

// forTask returns the compilation one task's function uses: when the flow
// repeats a subexpression, a compilation of the task's own whose filter
// and projections compute it once per row in a memo of the task's; else
// ft. (It compiled once in Compile; should it fail here, ft gives the same
// results.)
func (ft *CompiledFlow) forTask() *CompiledFlow {
	if ft.repeats {
		if m, err := ft.withMemo(); err == nil {
			return m
		}
	}
	return ft
}

// withMemo returns a copy of ft whose filter and projections share their
// common subexpressions through a memo of its own (expr.CompileFlow): for
// one goroutine.
func (ft *CompiledFlow) withMemo() (*CompiledFlow, error) {
	fl := ft.fl
	f, ps, memo, err := expr.CompileFlow(fl.Filter, append([][]expr.Expr{fl.Projection}, fl.Expand...), ft.opts)
	if err != nil {
		return nil, err
	}
	m := *ft
	m.filter, m.proj, m.more, m.memo = f, ps[0], ps[1:], memo
	return &m, nil
}

// Compile compiles the flow's filter and projection once, for Transform's
// and NewTransform's forms (package job uses both).
func (fl *Flow) Compile(opts expr.Options) (*CompiledFlow, error) {
	ft := &CompiledFlow{fl: fl, n: len(fl.Projection), opts: opts}
	if fl.Filter != nil {
		f, err := expr.CompileFilter(fl.Filter, opts)
		if err != nil {
			return nil, fmt.Errorf("compiling the filter %s: %w", fl.Filter, err)
		}
		ft.filter = f
	}
	// The projection only sees the rows the filter keeps: what the filter
	// fixes (the views' event_type = 2) is a constant there.
	proj, err := expr.CompileProjectionUnder(fl.Projection, fl.Filter, opts)
	if err != nil {
		return nil, fmt.Errorf("compiling the projection: %w", err)
	}
	ft.proj = proj
	for _, e := range fl.Expand {
		p, err := expr.CompileProjectionUnder(e, fl.Filter, opts)
		if err != nil {
			return nil, fmt.Errorf("compiling the projection: %w", err)
		}
		ft.more = append(ft.more, p)
	}
	for _, u := range fl.Unnest {
		p, err := expr.Compile(u.Array, opts)
		if err != nil {
			return nil, fmt.Errorf("compiling UNNEST's argument %s: %w", u.Array, err)
		}
		cu := compiledUnnest{Unnest: u, array: p}
		if u.Cond != nil {
			if cu.cond, err = expr.CompileFilter(u.Cond, opts); err != nil {
				return nil, fmt.Errorf("compiling UNNEST's ON condition %s: %w", u.Cond, err)
			}
		}
		ft.unnest = append(ft.unnest, cu)
		ft.width = u.Width + len(u.Types)
	}
	m, err := ft.withMemo()
	if err != nil {
		return nil, err
	}
	ft.repeats = m.memo != nil
	return ft, nil
}

// apply appends in's output row, if the filter keeps it, to out with
// fields (len n; nil: a new slice) as its Fields; used reports whether the
// row went out holding fields (else fields is free for the next row).
func (ft *CompiledFlow) apply(in types.Row, out []types.Row, fields []types.Value) (_ []types.Row, used bool, _ error) {
	if ft.unnest != nil {
		return ft.unnestRows(in, out, fields)
	}
	return ft.emit(in.Kind, in.Fields, out, fields)
}

// emit is apply's filter, projection and expansion of row src (the source
// row, or the row Flow.Unnest built from it) of kind kind.
func (ft *CompiledFlow) emit(kind types.RowKind, src []types.Value, out []types.Row, fields []types.Value) (_ []types.Row, used bool, _ error) {
	if ft.memo != nil {
		ft.memo.Next()
	}
	if ft.filter != nil {
		keep, err := ft.filter.Keep(src)
		if err != nil || !keep {
			return out, false, err
		}
	}
	if fields == nil {
		fields = make([]types.Value, ft.n)
	}
	if err := ft.proj.Project(src, fields); err != nil {
		return out, false, err
	}
	fl := ft.fl
	for k, i := range fl.NotNull {
		if fields[i].IsNull() {
			if fl.DropNulls {
				return out, false, connector.ErrDropRow
			}
			return out, false, &NotNullError{Table: fl.SinkName, Column: fl.NotNullNames[k]}
		}
	}
	out = append(out, types.Row{Kind: kind, Fields: fields})
	for _, p := range ft.more {
		f := make([]types.Value, ft.n)
		if err := p.Project(src, f); err != nil {
			return out, true, err
		}
		out = append(out, types.Row{Kind: kind, Fields: f})
	}
	return out, true, nil
}

// NotNullError is a row with NULL for a NOT NULL column of a sink table
// under table.exec.sink.not-null-enforcer = ERROR (the default). The
// runtime adds the row's source position when the source knows it.
type NotNullError struct {
	// Table is the sink table and Column its NOT NULL column.
	Table, Column string
}

// Is makes the error match connector.ErrBadRow: the row's source may
// handle it by its bad-record policy ('scan.bad-record.policy' of a Kafka
// table) instead of failing the job.
func (e *NotNullError) Is(target error) bool { return target == connector.ErrBadRow }

func (e *NotNullError) Error() string {
	return fmt.Sprintf("column '%s' of table '%s' is NOT NULL, but the row's value is NULL; filter out the NULLs, or SET '%s' = 'DROP' to drop such rows (counted in streamsql_task_records_dropped_total)",
		e.Column, e.Table, SettingNotNullEnforcer)
}
