package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
)

// batchJoinHints are Flink's join strategy hints. They choose how a batch
// job joins; Flink's streaming planner checks that they name inputs of the
// query and otherwise ignores them, and so does streamsql, with a warning.
var batchJoinHints = []string{"BROADCAST", "SHUFFLE_HASH", "SHUFFLE_MERGE", "NEST_LOOP"}

// isBatchJoinHint reports whether name is one of batchJoinHints.
func isBatchJoinHint(name string) bool {
	return slices.ContainsFunc(batchJoinHints, func(h string) bool { return strings.EqualFold(h, name) })
}

// batchJoinHints checks q's join strategy hints: each table they list must
// be an input of q (a table's or view's name or alias in its FROM), as
// Flink checks; then each is ignored with a warning.
func (p *planner) batchJoinHints(q *ddl.Select) error {
	var names []string
	for _, h := range q.Hints {
		if !isBatchJoinHint(h.Name) {
			continue
		}
		if names == nil {
			names = inputNames(q.From, []string{})
		}
		if len(h.List) == 0 {
			return p.f.errorAt(h.Pos, ErrType, nil, fmt.Sprintf("the %s hint lists the tables it is about, such as %s(orders)", strings.ToUpper(h.Name), strings.ToUpper(h.Name)))
		}
		for _, t := range h.List {
			if !slices.Contains(names, t.Name) {
				return p.f.errorAt(t.Pos, ErrType, nil, fmt.Sprintf("the %s hint's '%s' names no input of this query (its inputs: %s)", strings.ToUpper(h.Name), t.Name, strings.Join(names, ", ")))
			}
		}
		if p.hintWarned == nil {
			p.hintWarned = map[ddl.Pos]bool{}
		}
		if !p.hintWarned[h.Pos] {
			p.hintWarned[h.Pos] = true
			p.plan.Warnings = append(p.plan.Warnings, Warning{Pos: h.Pos, Kind: WarnIgnoredHint,
				Message: fmt.Sprintf("the join hint %s is ignored: it chooses a batch join strategy, and a streaming join has one (Flink's streaming planner ignores it too)", strings.ToUpper(h.Name))})
		}
	}
	return nil
}

// inputNames appends the names a hint may give the inputs of FROM ref: a
// table's or view's name and alias, a subquery's alias.
func inputNames(ref ddl.TableRef, out []string) []string {
	switch r := ref.(type) {
	case *ddl.TableName:
		out = append(out, r.Name.Name())
		if r.Alias != "" {
			out = append(out, r.Alias)
		}
	case *ddl.Subquery:
		if r.Alias != "" {
			out = append(out, r.Alias)
		}
	case *ddl.Join:
		out = inputNames(r.Right, inputNames(r.Left, out))
	}
	return out
}
