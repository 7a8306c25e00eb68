package planner

import (
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/ddl"
)

// alterTable runs ALTER TABLE s on the catalog, as Flink's SQL client runs
// it between the statements of a file: the statements after it see the
// table as changed (an INSERT before it keeps the table it planned with).
// RENAME TO moves the table to a name no table or view has; the other
// actions change its definition (ddl.AlterTableDef), which is checked as a
// CREATE TABLE's is (types of computed columns, the WATERMARK). A failed
// ALTER leaves the table as it was. IF EXISTS over a missing table does
// nothing.
func (p *planner) alterTable(s *ddl.AlterTable) {
	id, err := p.cat.ident(s.Name)
	if err != nil {
		p.addErr(p.f.errorAt(s.Name.Pos, ErrUnknownName, nil, err.Error()))
		return
	}
	t, ok := p.cat.Table(id)
	switch {
	case !ok && p.cat.exists(id):
		p.addErr(p.f.errorAt(s.Name.Pos, ErrUnknownName, nil, fmt.Sprintf("'%s' is a view; ALTER TABLE changes a table", id.Short())))
		return
	case !ok && s.IfExists:
		return
	case !ok:
		p.addErr(p.cat.unknown(p.f, s.Name, id))
		return
	}
	def := *t.Def
	if s.Kind == ddl.AlterRename {
		to, err := p.cat.ident(s.NewName)
		if err != nil {
			p.addErr(p.f.errorAt(s.NewName.Pos, ErrUnknownName, nil, err.Error()))
			return
		}
		if to.Catalog != id.Catalog {
			p.addErr(p.f.errorAt(s.NewName.Pos, ErrUnknownName, nil, fmt.Sprintf("ALTER TABLE ... RENAME TO moves a table within its catalog ('%s'), not to '%s'", id.Catalog, to.Catalog)))
			return
		}
		if p.cat.exists(to) {
			p.addErr(p.f.errorAt(s.NewName.Pos, ErrDuplicateName, nil, fmt.Sprintf("'%s' already exists: ALTER TABLE ... RENAME TO takes a name no table or view has", to.Short())))
			return
		}
		def.Name = s.NewName
	} else {
		changed, err := ddl.AlterTableDef(t.Def, s)
		if err != nil {
			if de := (*ddl.Error)(nil); errors.As(err, &de) {
				err = p.f.errorAt(errorPos(de), ErrType, nil, de.Message)
			}
			p.addErr(err)
			return
		}
		def = *changed
	}
	def.IfNotExists = false
	delete(p.cat.tables, id)
	if err := p.cat.addTable(p.f, &def); err != nil {
		p.cat.tables[id] = t // as it was
		p.addErr(err)
	}
}

// alterView runs ALTER VIEW s: RENAME TO moves the view to a name no table
// or view has (its query keeps the catalog and database it was created
// in); AS query replaces its query, checked as CREATE VIEW checks one and
// qualified with the current catalog and database. The statements after
// it see the change; a failed one leaves the view as it was.
func (p *planner) alterView(s *ddl.AlterView) {
	id, err := p.cat.ident(s.Name)
	if err != nil {
		p.addErr(p.f.errorAt(s.Name.Pos, ErrUnknownName, nil, err.Error()))
		return
	}
	v, ok := p.cat.View(id)
	switch {
	case !ok && p.cat.exists(id):
		p.addErr(p.f.errorAt(s.Name.Pos, ErrUnknownName, nil, fmt.Sprintf("'%s' is a table; ALTER VIEW changes a view", id.Short())))
		return
	case !ok:
		p.addErr(p.cat.unknown(p.f, s.Name, id))
		return
	}
	def := *v.Def
	def.IfNotExists = false
	scope := v.Scope
	if s.Query == nil {
		to, err := p.cat.ident(s.NewName)
		if err != nil {
			p.addErr(p.f.errorAt(s.NewName.Pos, ErrUnknownName, nil, err.Error()))
			return
		}
		if p.cat.exists(to) {
			p.addErr(p.f.errorAt(s.NewName.Pos, ErrDuplicateName, nil, fmt.Sprintf("'%s' already exists: ALTER VIEW ... RENAME TO takes a name no table or view has", to.Short())))
			return
		}
		def.Name = s.NewName
	} else {
		def.Query, def.Columns, scope = s.Query, nil, p.cat.current
		err := p.f.refuseQuery(s.Query)
		if err == nil {
			p.allowRanked = true // as CREATE VIEW: a ranking view is planned where it is read
			_, err = p.resolveQuery(s.Query, 1)
		}
		if err != nil {
			p.addErr(err)
			return
		}
	}
	delete(p.cat.views, id)
	if err := p.cat.addView(p.f, &def); err != nil {
		p.cat.views[id] = v // as it was
		p.addErr(err)
		return
	}
	to, _ := p.cat.ident(def.Name)
	p.cat.views[to].Scope = scope
}
