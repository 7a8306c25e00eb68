package planner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/ddl"
)

// Catalog types and options of CREATE CATALOG. A job's catalogs live as
// long as the job file's planning: the only type is Flink's
// generic_in_memory, whose tables are those the file (or the program)
// defines.
const (
	catalogTypeKey         = "type"
	catalogDefaultDBKey    = "default-database"
	catalogTypeInMemory    = "generic_in_memory"
	inMemoryDefaultDBValue = "default"
)

// catalogInfo is a catalog's databases and the one USE CATALOG makes
// current.
type catalogInfo struct {
	defaultDatabase string
	databases       map[string]bool
}

// ensureDatabase creates id's catalog and database if they do not exist
// (Catalog.RegisterTable).
func (c *Catalog) ensureDatabase(id Identifier) {
	ci := c.catalogs[id.Catalog]
	if ci == nil {
		ci = &catalogInfo{defaultDatabase: id.Database, databases: map[string]bool{}}
		c.catalogs[id.Catalog] = ci
	}
	ci.databases[id.Database] = true
}

// checkDatabase fails unless id's catalog and database exist, as Flink
// refuses a table in a database that was not created.
func (c *Catalog) checkDatabase(f *file, pos ddl.Pos, id Identifier) error {
	ci := c.catalogs[id.Catalog]
	if ci == nil {
		return f.errorAt(pos, ErrUnknownName, nil, fmt.Sprintf("catalog '%s' does not exist%s; create it with CREATE CATALOG %s WITH ('type' = '%s')",
			id.Catalog, didYouMean(id.Catalog, slices.Sorted(maps.Keys(c.catalogs))), id.Catalog, catalogTypeInMemory))
	}
	if !ci.databases[id.Database] {
		name := ddl.ObjectName{Parts: []ddl.Ident{{Name: id.Catalog}, {Name: id.Database}}}
		if id.Catalog == c.current.Catalog {
			name.Parts = name.Parts[1:]
		}
		return f.errorAt(pos, ErrUnknownName, nil, fmt.Sprintf("database '%s' does not exist in catalog '%s'%s; create it with CREATE DATABASE %s",
			id.Database, id.Catalog, didYouMean(id.Database, slices.Sorted(maps.Keys(ci.databases))), name))
	}
	return nil
}

// catalogStatement runs a CREATE CATALOG, CREATE DATABASE or USE.
func (c *Catalog) catalogStatement(f *file, s ddl.Statement) error {
	switch s := s.(type) {
	case *ddl.CreateCatalog:
		return c.createCatalog(f, s)
	case *ddl.CreateDatabase:
		return c.createDatabase(f, s)
	case *ddl.Use:
		return c.use(f, s)
	}
	return fmt.Errorf("planner: %T is not a catalog statement", s)
}

// createCatalog runs CREATE CATALOG: a generic_in_memory catalog with its
// default database ('default-database', "default" if not given).
func (c *Catalog) createCatalog(f *file, s *ddl.CreateCatalog) error {
	name := s.Name.Name
	if _, ok := c.catalogs[name]; ok {
		if s.IfNotExists {
			return nil
		}
		return f.errorAt(s.Name.Pos, ErrDuplicateName, nil, fmt.Sprintf("catalog '%s' already exists; use CREATE CATALOG IF NOT EXISTS to keep the first definition", name))
	}
	typ := ""
	for _, o := range s.Options {
		if o.Key == catalogTypeKey {
			typ = o.Value
			switch typ {
			case catalogTypeInMemory:
			case "":
				return f.errorAt(o.ValuePos, ErrInvalidCatalog, nil, fmt.Sprintf("catalog '%s': option '%s' must not be empty; the supported type is '%s'", name, catalogTypeKey, catalogTypeInMemory))
			default:
				return f.errorAt(o.ValuePos, ddl.ErrUnsupported, nil, fmt.Sprintf("catalog '%s': type '%s' is not supported yet; the supported type is '%s' (a job's tables are those its files and program define)",
					name, typ, catalogTypeInMemory))
			}
		}
	}
	if typ == "" {
		return f.errorAt(s.Pos, ErrInvalidCatalog, nil, fmt.Sprintf("catalog '%s' needs the option '%s'; the supported type is '%s'", name, catalogTypeKey, catalogTypeInMemory))
	}
	defaultDB := inMemoryDefaultDBValue
	for _, o := range s.Options {
		switch o.Key {
		case catalogTypeKey:
		case catalogDefaultDBKey:
			defaultDB = o.Value
			if defaultDB == "" {
				return f.errorAt(o.ValuePos, ErrInvalidCatalog, nil, fmt.Sprintf("catalog '%s': option '%s' must not be empty", name, catalogDefaultDBKey))
			}
		default:
			return f.errorAt(o.KeyPos, ErrInvalidCatalog, nil, fmt.Sprintf("catalog '%s': unsupported option '%s' for type '%s'; supported options: '%s', '%s'",
				name, o.Key, catalogTypeInMemory, catalogTypeKey, catalogDefaultDBKey))
		}
	}
	c.catalogs[name] = &catalogInfo{defaultDatabase: defaultDB, databases: map[string]bool{defaultDB: true}}
	return nil
}

// scopeOf qualifies a database name of one or two parts with the current
// catalog.
func (c *Catalog) scopeOf(n ddl.ObjectName) Scope {
	if len(n.Parts) == 2 {
		return Scope{n.Parts[0].Name, n.Parts[1].Name}
	}
	return Scope{c.current.Catalog, n.Parts[0].Name}
}

// unknownCatalog is the error for a catalog that does not exist.
func (c *Catalog) unknownCatalog(f *file, pos ddl.Pos, name string) error {
	return f.errorAt(pos, ErrUnknownName, nil, fmt.Sprintf("catalog '%s' does not exist%s", name, didYouMean(name, slices.Sorted(maps.Keys(c.catalogs)))))
}

// createDatabase runs CREATE DATABASE. The database's options and
// comment are accepted and kept nowhere, as nothing reads them.
func (c *Catalog) createDatabase(f *file, s *ddl.CreateDatabase) error {
	sc := c.scopeOf(s.Name)
	ci := c.catalogs[sc.Catalog]
	if ci == nil {
		return c.unknownCatalog(f, s.Name.Pos, sc.Catalog)
	}
	if ci.databases[sc.Database] {
		if s.IfNotExists {
			return nil
		}
		return f.errorAt(s.Name.Pos, ErrDuplicateName, nil, fmt.Sprintf("database '%s' already exists in catalog '%s'; use CREATE DATABASE IF NOT EXISTS to keep it", sc.Database, sc.Catalog))
	}
	ci.databases[sc.Database] = true
	return nil
}

// use runs USE CATALOG (its default database becomes current) and USE
// database.
func (c *Catalog) use(f *file, s *ddl.Use) error {
	if s.Catalog {
		name := s.Name.Parts[0].Name
		ci := c.catalogs[name]
		if ci == nil {
			return c.unknownCatalog(f, s.Name.Pos, name)
		}
		c.current = Scope{name, ci.defaultDatabase}
		return nil
	}
	sc := c.scopeOf(s.Name)
	ci := c.catalogs[sc.Catalog]
	if ci == nil {
		return c.unknownCatalog(f, s.Name.Pos, sc.Catalog)
	}
	if !ci.databases[sc.Database] {
		return f.errorAt(s.Name.Pos, ErrUnknownName, nil, fmt.Sprintf("database '%s' does not exist in catalog '%s'%s",
			sc.Database, sc.Catalog, didYouMean(sc.Database, slices.Sorted(maps.Keys(ci.databases)))))
	}
	c.current = sc
	return nil
}

// dropDatabase runs DROP DATABASE: RESTRICT (the default) refuses a
// database that holds a table or view, CASCADE drops them with it. The
// current database cannot be dropped.
func (c *Catalog) dropDatabase(f *file, d *ddl.Drop) error {
	sc := c.scopeOf(d.Name)
	ci := c.catalogs[sc.Catalog]
	if ci == nil || !ci.databases[sc.Database] {
		if d.IfExists {
			return nil
		}
		if ci == nil {
			return c.unknownCatalog(f, d.Name.Pos, sc.Catalog)
		}
		return f.errorAt(d.Name.Pos, ErrUnknownName, nil, fmt.Sprintf("database '%s' does not exist in catalog '%s'", sc.Database, sc.Catalog))
	}
	if sc == c.current {
		return f.errorAt(d.Name.Pos, ErrInvalidCatalog, nil, fmt.Sprintf("database '%s' of catalog '%s' is the current database and cannot be dropped; USE another one first", sc.Database, sc.Catalog))
	}
	in := func(id Identifier) bool { return id.Catalog == sc.Catalog && id.Database == sc.Database }
	if !d.Cascade {
		var held []string
		for id := range c.tables {
			if in(id) {
				held = append(held, id.Name)
			}
		}
		for id := range c.views {
			if in(id) {
				held = append(held, id.Name)
			}
		}
		if len(held) > 0 {
			slices.Sort(held)
			return f.errorAt(d.Name.Pos, ErrInvalidCatalog, nil, fmt.Sprintf("database '%s' of catalog '%s' is not empty (it holds %s); drop them first or use DROP DATABASE ... CASCADE",
				sc.Database, sc.Catalog, strings.Join(held, ", ")))
		}
	}
	maps.DeleteFunc(c.tables, func(id Identifier, _ *Table) bool { return in(id) })
	maps.DeleteFunc(c.views, func(id Identifier, _ *View) bool { return in(id) })
	delete(ci.databases, sc.Database)
	return nil
}

// dropCatalog runs DROP CATALOG, with the catalog's databases, tables and
// views. The current catalog cannot be dropped.
func (c *Catalog) dropCatalog(f *file, d *ddl.Drop) error {
	name := d.Name.Parts[0].Name
	if _, ok := c.catalogs[name]; !ok {
		if d.IfExists {
			return nil
		}
		return c.unknownCatalog(f, d.Name.Pos, name)
	}
	if name == c.current.Catalog {
		return f.errorAt(d.Name.Pos, ErrInvalidCatalog, nil, fmt.Sprintf("catalog '%s' is the current catalog and cannot be dropped; USE CATALOG another one first", name))
	}
	maps.DeleteFunc(c.tables, func(id Identifier, _ *Table) bool { return id.Catalog == name })
	maps.DeleteFunc(c.views, func(id Identifier, _ *View) bool { return id.Catalog == name })
	delete(c.catalogs, name)
	return nil
}
