package expr

import (
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/types"
)

// TestExprLangAgreesWithClosures runs every golden case through both
// backends and checks that they give the same value, NULL or failure.
func TestExprLangAgreesWithClosures(t *testing.T) {
	loc, err := time.LoadLocation(goldenZone)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Location: loc, Now: func() time.Time { return time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC) }}
	for _, c := range goldenCases() {
		e := CastTo(c.expr(c.columns()), types.String())
		if _, err := Resolve(e); err != nil {
			continue // rejected cases are covered by TestFlinkGolden
		}
		if c.id == "fn/UUID" || c.typeOnly {
			continue // not comparable: random or clock-dependent
		}
		cp, err := Compile(e, opts)
		if err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		ep, err := compileExprLang(e, opts)
		if err != nil {
			t.Fatalf("%s: expr-lang: %v", c.id, err)
		}
		for i, row := range c.rows {
			a, errA := cp.Eval(row)
			b, errB := ep.Eval(row)
			if (errA != nil) != (errB != nil) || show(a) != show(b) {
				t.Errorf("%s row %d: closures %s (%v), expr-lang %s (%v)", c.id, i, show(a), errA, show(b), errB)
			}
		}
	}
}

// TestProgramConcurrentUse evaluates one Program from several goroutines;
// run with -race it checks that compiled programs share no mutable state.
func TestProgramConcurrentUse(t *testing.T) {
	refs := benchRefs()
	p, err := CompileProjection(benchProjection(refs), benchOpts)
	if err != nil {
		t.Fatal(err)
	}
	f, err := CompileFilter(Fn("AND", benchFilter(refs), Fn("LIKE", refs[2], ls("cust%"))), benchOpts)
	if err != nil {
		t.Fatal(err)
	}
	rows := benchRows()
	want := make([][]types.Value, len(rows))
	for i, r := range rows {
		want[i] = make([]types.Value, 5)
		if err := p.Project(r, want[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]types.Value, 5)
			for k := 0; k < 200; k++ {
				for i, r := range rows {
					if _, err := f.Keep(r); err != nil {
						errs <- err.Error()
						return
					}
					if err := p.Project(r, out); err != nil {
						errs <- err.Error()
						return
					}
					if formatValue(out[1], types.String(), time.UTC) != formatValue(want[i][1], types.String(), time.UTC) {
						errs <- "projection differs between goroutines"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
