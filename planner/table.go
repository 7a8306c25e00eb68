package planner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/planner/expr"
	"github.com/streamsql/streamsql/types"
)

// The row layout between the planner and connectors: a source delivers
// rows whose fields are the table's physical and metadata columns in
// declaration order (computed columns left out; the planner evaluates
// them), each metadata column with the type the connector gives its key
// (factory.ConnectorFactory.ReadableMetadata; the factory is given that type in the
// schema, and the planner casts to the declared one). A sink receives its
// physical and non-VIRTUAL metadata columns in declaration order, metadata
// with the type the connector writes (factory.ConnectorFactory.WritableMetadata).

// sourceLayout returns, for each column of t, its index in the source row
// (-1 for computed columns).
func sourceLayout(t *ddl.CreateTable) []int {
	idx := make([]int, len(t.Columns))
	n := 0
	for i, c := range t.Columns {
		idx[i] = -1
		if c.Kind != ddl.ComputedColumn {
			idx[i] = n
			n++
		}
	}
	return idx
}

// typeTable derives the types of computed columns and fills t.Schema.
// Metadata columns are taken at their declared types here; whether the
// connector can deliver them is checked when the table is read.
func typeTable(f *file, t *Table) error {
	def := t.Def
	layout := sourceLayout(def)
	base := &scope{}
	for i, c := range def.Columns {
		if c.Kind != ddl.ComputedColumn {
			base.cols = append(base.cols, scopeCol{name: c.Name, e: expr.Col(layout[i], c.Name, c.Type)})
		}
	}
	l := &lowerer{f: f, sc: base}
	var computed []scopeCol
	for _, c := range def.Columns {
		col := factory.Column{Name: c.Name, Type: c.Type, MetadataKey: c.Key(), Virtual: c.Virtual}
		switch c.Kind {
		case ddl.MetadataColumn:
			col.Kind = factory.Metadata
		case ddl.ComputedColumn:
			col.Kind = factory.Computed
			col.MetadataKey = ""
			e, err := l.lower(c.Expr)
			if err != nil {
				return err
			}
			col.Type = e.Type()
			col.Expr = ddl.FormatExpr(c.Expr)
			computed = append(computed, scopeCol{name: c.Name, e: e})
		default:
			col.MetadataKey = ""
		}
		t.Schema.Columns = append(t.Schema.Columns, col)
	}
	if wm := def.Watermark; wm != nil {
		// The watermark is not tracked (no stateful operators use it), but
		// its expression must type-check as in Flink.
		full := &scope{cols: append(slices.Clone(base.cols), computed...)}
		e, err := (&lowerer{f: f, sc: full}).lower(wm.Expr)
		if err != nil {
			return err
		}
		if k := e.Type().Kind; k != types.KindTimestamp && k != types.KindTimestampLTZ {
			return f.errorAt(wm.Expr.Position(), ErrType, nil,
				fmt.Sprintf("the WATERMARK expression must be a TIMESTAMP or TIMESTAMP_LTZ, not %s", e.Type()))
		}
	}
	if def.PrimaryKey != nil {
		for _, k := range def.PrimaryKey.Columns {
			t.Schema.PrimaryKey = append(t.Schema.PrimaryKey, k.Name)
		}
	}
	for _, k := range def.PartitionKeys {
		t.Schema.PartitionKeys = append(t.Schema.PartitionKeys, k.Name)
	}
	return nil
}

// sourceScope builds the scope of a table read as a source: every column,
// metadata cast from the connector's type to the declared one, computed
// columns lowered over the source row. It checks the metadata keys against
// the connector's declared readable metadata.
func (p *planner) sourceScope(t *Table) (*scope, []types.Type, error) {
	def := t.Def
	layout := sourceLayout(def)
	readable := p.readableMetadata(t)
	rowTypes := make([]types.Type, 0, len(def.Columns))
	base := &scope{}
	for i, c := range def.Columns {
		switch c.Kind {
		case ddl.PhysicalColumn:
			rowTypes = append(rowTypes, c.Type)
			base.cols = append(base.cols, scopeCol{name: c.Name, e: expr.Col(layout[i], c.Name, c.Type)})
		case ddl.MetadataColumn:
			delivered := c.Type
			if readable != nil {
				mt, ok := readable[c.Key()]
				if !ok {
					return nil, nil, p.metadataKeyError(t, c, readable, "readable")
				}
				delivered = mt
			}
			rowTypes = append(rowTypes, delivered)
			var e expr.Expr = expr.Col(layout[i], c.Name, delivered)
			if !delivered.Nullable().Equal(c.Type.Nullable()) {
				r, err := expr.Resolve(expr.CastTo(e, c.Type))
				if err != nil {
					return nil, nil, p.f.errorAt(c.TypePos, ErrType, err,
						fmt.Sprintf("metadata column '%s' of table '%s': the connector's '%s' is %s, which cannot be cast to the declared %s",
							c.Name, t.ID.Short(), c.Key(), delivered, c.Type))
				}
				e = r
			}
			base.cols = append(base.cols, scopeCol{name: c.Name, e: e})
		}
	}
	l := &lowerer{f: p.f, sc: base}
	sc := &scope{quals: qualifiers(t.ID)}
	for _, c := range def.Columns {
		if c.Kind == ddl.ComputedColumn {
			e, err := l.lower(c.Expr)
			if err != nil {
				return nil, nil, err
			}
			sc.cols = append(sc.cols, scopeCol{name: c.Name, e: e})
			continue
		}
		e, _ := base.lookup(c.Name)
		sc.cols = append(sc.cols, scopeCol{name: c.Name, e: e})
	}
	return sc, rowTypes, nil
}

func qualifiers(id Identifier) [][]string {
	return [][]string{{id.Name}, {id.Database, id.Name}, {id.Catalog, id.Database, id.Name}}
}

func (p *planner) metadataKeyError(t *Table, c *ddl.Column, keys map[string]types.Type, what string) error {
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	pos := c.MetadataKeyPos
	if !pos.IsValid() {
		pos = c.Pos
	}
	if len(names) == 0 {
		return p.f.errorAt(pos, ErrInvalidTable, nil, fmt.Sprintf("metadata column '%s' of table '%s': connector '%s' has no %s metadata",
			c.Name, t.ID.Short(), t.Connector(), what))
	}
	return p.f.errorAt(pos, ErrInvalidTable, nil, fmt.Sprintf("metadata column '%s' of table '%s': connector '%s' has no %s metadata key '%s'; %s keys are %s%s",
		c.Name, t.ID.Short(), t.Connector(), what, c.Key(), what, strings.Join(names, ", "), didYouMean(c.Key(), names)))
}

// sinkColumns returns the columns of t that an INSERT writes, in sink row
// order (physical, then non-VIRTUAL metadata), checking metadata against
// the connector's writable keys.
func (p *planner) sinkColumns(t *Table) ([]*ddl.Column, error) {
	var writable map[string]types.Type
	if f, ok := p.factoryOf(t.Connector()); ok {
		writable = f.WritableMetadata
	}
	readable := p.readableMetadata(t)
	var cols []*ddl.Column
	for _, c := range t.Def.Columns {
		switch {
		case c.Kind == ddl.PhysicalColumn:
			cols = append(cols, c)
		case c.Kind == ddl.MetadataColumn && !c.Virtual:
			if writable != nil {
				if _, ok := writable[c.Key()]; !ok {
					if _, isReadable := readable[c.Key()]; isReadable {
						pos := c.Pos
						return nil, p.f.errorAt(pos, ErrInvalidTable, nil, fmt.Sprintf(
							"metadata column '%s' of table '%s' is read-only ('%s' cannot be written by connector '%s'): declare it METADATA VIRTUAL to use the table as a sink",
							c.Name, t.ID.Short(), c.Key(), t.Connector()))
					}
					return nil, p.metadataKeyError(t, c, writable, "writable")
				}
			}
			cols = append(cols, c)
		}
	}
	return cols, nil
}

// connectorSchema returns the schema the factory of t is given: computed
// columns (and for a sink, VIRTUAL metadata columns) left out, metadata
// columns typed as the connector delivers (source) or writes (sink) them.
func (p *planner) connectorSchema(t *Table, sink bool) factory.Schema {
	var writable map[string]types.Type
	if f, ok := p.factoryOf(t.Connector()); ok {
		writable = f.WritableMetadata
	}
	readable := p.readableMetadata(t)
	out := factory.Schema{PrimaryKey: t.Schema.PrimaryKey, PartitionKeys: t.Schema.PartitionKeys}
	for _, c := range t.Schema.Columns {
		switch {
		case c.Kind == factory.Computed:
			continue
		case c.Kind == factory.Metadata && sink && c.Virtual:
			continue
		case c.Kind == factory.Metadata:
			m := readable
			if sink {
				m = writable
			}
			if mt, ok := m[c.MetadataKey]; ok {
				c.Type = mt
			}
		}
		out.Columns = append(out.Columns, c)
	}
	return out
}

// readableMetadata returns the metadata keys a source of t delivers, with
// their types: its connector's (nil when the connector declares none) and,
// for a connector with ValueFormatMetadata, its value format's as
// 'value.<key>' (debezium-json's 'value.source.table').
func (p *planner) readableMetadata(t *Table) map[string]types.Type {
	f, ok := p.factoryOf(t.Connector())
	if !ok {
		return nil
	}
	if !f.ValueFormatMetadata || f.ReadableMetadata == nil {
		return f.ReadableMetadata
	}
	// The value format: the connector's format option (or one of its
	// fallback keys) that is not a key format, as the table sets it.
	var id string
	for _, o := range f.Options {
		info := o.Info()
		if info.Type != option.TypeFormat || strings.HasPrefix(info.Key, "key.") {
			continue
		}
		for _, k := range append([]string{info.Key}, info.Fallback...) {
			if v, ok := t.Def.Option(k); ok && id == "" {
				id = v
			}
		}
	}
	ff, ok := p.reg.Format(id)
	if !ok || len(ff.ReadableMetadata) == 0 {
		return f.ReadableMetadata
	}
	m := maps.Clone(f.ReadableMetadata)
	for k, typ := range ff.ReadableMetadata {
		m["value."+k] = typ
	}
	return m
}
