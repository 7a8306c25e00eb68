package flinkgolden

import (
	"errors"
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/internal/formattest"
	"github.com/streamsql/streamsql/types"
)

// DecodeProblem compares what a decoder did with the deserialize case c
// (the row it read, or its error) with what Flink did, and describes the
// difference; it returns "" when they agree.
func DecodeProblem(c Case, row types.Row, err error) string {
	switch {
	case c.Skip:
		if !errors.Is(err, factory.ErrSkipRecord) {
			return fmt.Sprintf("Flink skips the record, we got %v", err)
		}
	case c.Error != "":
		if err == nil || errors.Is(err, factory.ErrSkipRecord) {
			return fmt.Sprintf("Flink fails (%s), we got %v", c.Error, err)
		}
	case err != nil:
		return fmt.Sprintf("Flink reads a row, we failed: %v", err)
	default:
		for i, ft := range c.Type.Fields {
			if !formattest.Equal(ft.Type, c.Row.Fields[i], row.Fields[i]) {
				return fmt.Sprintf("field %s: Flink reads %s, we read %s", ft.Name,
					formattest.Show(ft.Type, c.Row.Fields[i]), formattest.Show(ft.Type, row.Fields[i]))
			}
		}
	}
	return ""
}

// Deviations are the golden cases where streamsql differs from Flink on
// purpose: a case key (each test builds its own) and the reason.
type Deviations map[string]string

// Check reports the outcome of the case at line with the given key: a
// deviation must still differ from Flink (otherwise it should be removed),
// and any other case must agree. It records the keys it saw in seen.
func (d Deviations) Check(t testing.TB, seen map[string]bool, line int, key, problem string) {
	t.Helper()
	if reason, ok := d[key]; ok {
		seen[key] = true
		if problem == "" {
			t.Errorf("line %d: deviation %q no longer differs from Flink; remove it", line, reason)
		}
		return
	}
	if problem != "" {
		t.Errorf("line %d %q: %s", line, key, problem)
	}
}

// Unseen reports every deviation that matched no golden case.
func (d Deviations) Unseen(t testing.TB, seen map[string]bool) {
	t.Helper()
	for k := range d {
		if !seen[k] {
			t.Errorf("deviation %q matches no golden case", k)
		}
	}
}

// ReadFlags returns the FormatContext.ReadFields of case c: nil when it
// has no projection, else true for each field Project lists.
func ReadFlags(c Case) []bool {
	if c.Project == nil {
		return nil
	}
	read := make([]bool, len(c.Type.Fields))
	for _, p := range c.Project {
		read[p] = true
	}
	return read
}

// ProjectedProblem is DecodeProblem for a case with a projection, given
// the row a decoder made with ReadFlags(c) read (the table's layout): the
// fields Project lists must be Flink's projected row, the others NULL.
func ProjectedProblem(c Case, row types.Row, err error) string {
	if c.Project == nil {
		return DecodeProblem(c, row, err)
	}
	read := ReadFlags(c)
	var got types.Row
	if err == nil {
		for i, v := range row.Fields {
			if i < len(read) && !read[i] && !v.IsNull() {
				return fmt.Sprintf("unread field %s is %s, not NULL", c.Type.Fields[i].Name, formattest.Show(c.Type.Fields[i].Type, v))
			}
		}
		for _, p := range c.Project {
			got.Fields = append(got.Fields, row.Fields[p])
		}
	}
	pc := c
	pc.Type = c.Projected()
	return DecodeProblem(pc, got, err)
}
