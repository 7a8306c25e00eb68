package planner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// The catalog and database that unqualified names live in, as in Flink.
const (
	DefaultCatalog  = "default_catalog"
	DefaultDatabase = "default_database"
)

// Identifier is a fully qualified object name: catalog.database.name.
type Identifier struct {
	Catalog, Database, Name string
}

// String returns catalog.database.name.
func (id Identifier) String() string {
	return id.Catalog + "." + id.Database + "." + id.Name
}

// Short returns the name as a user writes it: the bare name for objects of
// the default catalog and database, else the qualified name.
func (id Identifier) Short() string {
	switch {
	case id.Catalog == DefaultCatalog && id.Database == DefaultDatabase:
		return id.Name
	case id.Catalog == DefaultCatalog:
		return id.Database + "." + id.Name
	}
	return id.String()
}

// ParseIdentifier qualifies a name of one, two or three '.'-separated
// parts with the default catalog and database. It does not handle quoted
// parts; use the ddl tree's names for those.
func ParseIdentifier(name string) (Identifier, error) {
	parts := strings.Split(name, ".")
	return qualify(parts)
}

func qualify(parts []string) (Identifier, error) {
	for _, p := range parts {
		if p == "" {
			return Identifier{}, fmt.Errorf("empty part in name %q", strings.Join(parts, "."))
		}
	}
	switch len(parts) {
	case 1:
		return Identifier{DefaultCatalog, DefaultDatabase, parts[0]}, nil
	case 2:
		return Identifier{DefaultCatalog, parts[0], parts[1]}, nil
	case 3:
		return Identifier{parts[0], parts[1], parts[2]}, nil
	}
	return Identifier{}, fmt.Errorf("name %q has %d parts; at most catalog.database.name", strings.Join(parts, "."), len(parts))
}

// ident qualifies n with the current catalog and database (USE).
func (c *Catalog) ident(n ddl.ObjectName) (Identifier, error) {
	parts := make([]string, len(n.Parts))
	for i, p := range n.Parts {
		parts[i] = p.Name
	}
	id, err := qualify(parts)
	if err != nil {
		return id, err
	}
	switch len(parts) {
	case 1:
		id.Catalog, id.Database = c.current.Catalog, c.current.Database
	case 2:
		id.Catalog = c.current.Catalog
	}
	return id, nil
}

// Table is a table of the catalog: its definition (with any LIKE clause
// merged), its schema with every column typed (computed columns too) and
// its WITH options.
type Table struct {
	ID Identifier
	// Def is the table's CREATE TABLE with LIKE applied, or a statement
	// built from the schema for tables registered with RegisterTable.
	Def *ddl.CreateTable
	// Schema is the resolved schema: computed columns carry the type of
	// their expression.
	Schema factory.Schema
	// Temporary is set for CREATE TEMPORARY TABLE.
	Temporary bool
}

// Options returns the table's WITH options as a map.
func (t *Table) Options() map[string]string {
	m := make(map[string]string, len(t.Def.Options))
	for _, o := range t.Def.Options {
		m[o.Key] = o.Value
	}
	return m
}

// Connector returns the value of the 'connector' option.
func (t *Table) Connector() string {
	v, _ := t.Def.Option(factory.ConnectorKey)
	return v
}

// View is a view of the catalog: a named query inlined where it is used.
type View struct {
	ID  Identifier
	Def *ddl.CreateView
	// Scope is the current catalog and database where the view was
	// created: the names of its query are qualified with them wherever
	// it is read, as Flink expands a view.
	Scope Scope
}

// Scope is a catalog and one of its databases: the current ones, which
// the names of a job file's statements are qualified with (USE).
type Scope struct {
	Catalog, Database string
}

// Catalog holds the catalogs of a job and their databases (the default
// catalog and database, and those CREATE CATALOG and CREATE DATABASE add:
// catalogs.go), their tables and views, and the current catalog and
// database. Names are case-sensitive, as in Flink. The zero Catalog is not
// usable; call NewCatalog. A Catalog is not safe for concurrent
// modification.
type Catalog struct {
	tables map[Identifier]*Table
	views  map[Identifier]*View
	// catalogs are the catalogs by name.
	catalogs map[string]*catalogInfo
	// current is the catalog and database that names of one or two parts
	// are qualified with.
	current Scope
}

// NewCatalog returns a catalog with only the default catalog and database
// (DefaultCatalog, DefaultDatabase), which are current.
func NewCatalog() *Catalog {
	return &Catalog{tables: map[Identifier]*Table{}, views: map[Identifier]*View{},
		catalogs: map[string]*catalogInfo{DefaultCatalog: {defaultDatabase: DefaultDatabase, databases: map[string]bool{DefaultDatabase: true}}},
		current:  Scope{DefaultCatalog, DefaultDatabase}}
}

// Clone returns a copy that can be changed without affecting c (tables and
// views themselves are shared; they are immutable once added). The copy
// has c's current catalog and database.
func (c *Catalog) Clone() *Catalog {
	out := NewCatalog()
	for k, v := range c.tables {
		out.tables[k] = v
	}
	for k, v := range c.views {
		out.views[k] = v
	}
	for k, v := range c.catalogs {
		out.catalogs[k] = &catalogInfo{defaultDatabase: v.defaultDatabase, databases: maps.Clone(v.databases)}
	}
	out.current = c.current
	return out
}

// Current returns the current catalog and database.
func (c *Catalog) Current() Scope { return c.current }

// Table returns the table named id.
func (c *Catalog) Table(id Identifier) (*Table, bool) {
	t, ok := c.tables[id]
	return t, ok
}

// View returns the view named id.
func (c *Catalog) View(id Identifier) (*View, bool) {
	v, ok := c.views[id]
	return v, ok
}

// Names returns the short names of all tables and views, sorted.
func (c *Catalog) Names() []string {
	var out []string
	for id := range c.tables {
		out = append(out, id.Short())
	}
	for id := range c.views {
		out = append(out, id.Short())
	}
	slices.Sort(out)
	return out
}

func (c *Catalog) exists(id Identifier) bool {
	_, t := c.tables[id]
	_, v := c.views[id]
	return t || v
}

// Drop removes the table or view named name (which may be qualified) and
// reports whether there was one.
func (c *Catalog) Drop(name string) bool {
	id, err := ParseIdentifier(name)
	if err != nil || !c.exists(id) {
		return false
	}
	delete(c.tables, id)
	delete(c.views, id)
	return true
}

// RegisterTable adds a table built by a program rather than a job file:
// name may be qualified (db.name, catalog.db.name: a catalog or database
// that does not exist yet is created with it), schema gives its
// columns (a computed column's Expr is SQL text, parsed here) and options
// its WITH options. Errors are *Error values (ErrDuplicateName, ErrType,
// ...) without a file position.
func (c *Catalog) RegisterTable(name string, schema factory.Schema, options map[string]string) error {
	id, err := ParseIdentifier(name)
	if err != nil {
		return &Error{Message: err.Error(), Err: ErrUnknownName}
	}
	def := &ddl.CreateTable{Name: objectName(id)}
	for _, col := range schema.Columns {
		dc := &ddl.Column{Name: col.Name, Type: col.Type, MetadataKey: col.MetadataKey, Virtual: col.Virtual}
		switch col.Kind {
		case factory.Metadata:
			dc.Kind = ddl.MetadataColumn
		case factory.Computed:
			dc.Kind = ddl.ComputedColumn
			e, err := ddl.ParseExpr(name, col.Expr)
			if err != nil {
				return fmt.Errorf("table %s, computed column %s: %w", name, col.Name, err)
			}
			dc.Expr = e
			dc.Type = types.Type{}
		}
		def.Columns = append(def.Columns, dc)
	}
	if len(schema.PrimaryKey) > 0 {
		def.PrimaryKey = &ddl.PrimaryKey{}
		for _, k := range schema.PrimaryKey {
			def.PrimaryKey.Columns = append(def.PrimaryKey.Columns, ddl.Ident{Name: k})
		}
	}
	keys := make([]string, 0, len(options))
	for k := range options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		def.Options = append(def.Options, ddl.Option{Key: k, Value: options[k]})
	}
	c.ensureDatabase(id)
	return c.addTable(nil, def)
}

func objectName(id Identifier) ddl.ObjectName {
	return ddl.ObjectName{Parts: []ddl.Ident{{Name: id.Catalog}, {Name: id.Database}, {Name: id.Name}}}
}

// addTable adds a CREATE TABLE (with LIKE already merged) to the catalog,
// typing its computed columns.
func (c *Catalog) addTable(f *file, def *ddl.CreateTable) error {
	id, err := c.ident(def.Name)
	if err != nil {
		return f.errorAt(def.Name.Pos, ErrUnknownName, nil, err.Error())
	}
	if err := c.checkDatabase(f, def.Name.Pos, id); err != nil {
		return err
	}
	if c.exists(id) {
		if def.IfNotExists {
			return nil
		}
		e := f.errorAt(def.Name.Pos, ErrDuplicateName, nil,
			fmt.Sprintf("table or view '%s' already exists; use CREATE TABLE IF NOT EXISTS to keep the first definition", id.Short()))
		e.duplicateObject = &id
		return e
	}
	t := &Table{ID: id, Def: def, Temporary: def.Temporary}
	seen := map[string]bool{}
	for _, col := range def.Columns {
		if seen[col.Name] {
			return f.errorAt(col.Pos, ErrDuplicateName, nil, fmt.Sprintf("column '%s' is defined twice in table '%s'", col.Name, id.Short()))
		}
		seen[col.Name] = true
	}
	if err := typeTable(f, t); err != nil {
		return err
	}
	c.tables[id] = t
	return nil
}

func (c *Catalog) addView(f *file, def *ddl.CreateView) error {
	id, err := c.ident(def.Name)
	if err != nil {
		return f.errorAt(def.Name.Pos, ErrUnknownName, nil, err.Error())
	}
	if err := c.checkDatabase(f, def.Name.Pos, id); err != nil {
		return err
	}
	if c.exists(id) {
		if def.IfNotExists {
			return nil
		}
		e := f.errorAt(def.Name.Pos, ErrDuplicateName, nil,
			fmt.Sprintf("table or view '%s' already exists; use CREATE VIEW IF NOT EXISTS to keep the first definition", id.Short()))
		e.duplicateObject = &id
		return e
	}
	c.views[id] = &View{ID: id, Def: def, Scope: c.current}
	return nil
}

func (c *Catalog) drop(f *file, d *ddl.Drop) error {
	switch d.Kind {
	case ddl.DropDatabase:
		return c.dropDatabase(f, d)
	case ddl.DropCatalog:
		return c.dropCatalog(f, d)
	}
	id, err := c.ident(d.Name)
	if err != nil {
		return f.errorAt(d.Name.Pos, ErrUnknownName, nil, err.Error())
	}
	if d.Kind == ddl.DropView {
		if _, ok := c.views[id]; ok {
			delete(c.views, id)
			return nil
		}
	} else if _, ok := c.tables[id]; ok {
		delete(c.tables, id)
		return nil
	}
	if d.IfExists {
		return nil
	}
	e := f.errorAt(d.Name.Pos, ErrUnknownName, nil,
		fmt.Sprintf("%s '%s' does not exist%s", strings.ToLower(d.Kind.String()), id.Short(), didYouMean(id.Short(), c.Names())))
	e.unknownObject = &id
	return e
}

// lookupTable finds a table for a LIKE clause or an INSERT target.
func (c *Catalog) lookupTable(f *file, n ddl.ObjectName, what string) (*Table, error) {
	id, err := c.ident(n)
	if err != nil {
		return nil, f.errorAt(n.Pos, ErrUnknownName, nil, err.Error())
	}
	if t, ok := c.tables[id]; ok {
		return t, nil
	}
	if _, ok := c.views[id]; ok {
		return nil, f.errorAt(n.Pos, ErrUnknownName, nil, fmt.Sprintf("'%s' is a view; %s needs a table", id.Short(), what))
	}
	return nil, c.unknown(f, n, id)
}

func (c *Catalog) unknown(f *file, n ddl.ObjectName, id Identifier) error {
	e := f.errorAt(n.Pos, ErrUnknownName, nil,
		fmt.Sprintf("table or view '%s' does not exist%s", id.Short(), didYouMean(id.Short(), c.Names())))
	e.unknownObject = &id
	return e
}
