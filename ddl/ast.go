package ddl

import (
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Statement is one statement of a job file: *Set, *Reset, *CreateTable,
// *CreateView, *CreateFunction, *CreateCatalog, *CreateDatabase, *Use,
// *Jar, *Module, *Drop, *Insert, *StatementSet, *Explain, *QueryStatement, *Describe, *Show, *AlterTable or *AlterView.
type Statement interface {
	// Position returns where the statement starts.
	Position() Pos
	stmt()
}

// Ident is an identifier as written (back-quotes removed; case kept, as
// Flink's identifiers are case-sensitive).
type Ident struct {
	Pos  Pos
	Name string
}

// ObjectName is a possibly qualified name: name, db.name or
// catalog.db.name.
type ObjectName struct {
	Pos   Pos
	Parts []Ident
}

// Name returns the last part (the object's own name).
func (n ObjectName) Name() string {
	if len(n.Parts) == 0 {
		return ""
	}
	return n.Parts[len(n.Parts)-1].Name
}

// String returns the parts joined with '.', each back-quoted when it is not
// a plain identifier.
func (n ObjectName) String() string {
	var b strings.Builder
	for i, p := range n.Parts {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(quoteIdentIfNeeded(p.Name))
	}
	return b.String()
}

func quoteIdentIfNeeded(s string) string {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return types.QuoteIdent(s)
		}
	}
	if s == "" || reserved[strings.ToUpper(s)] {
		return types.QuoteIdent(s)
	}
	return s
}

// Option is one 'key' = 'value' pair of a WITH clause, an OPTIONS hint or a
// SET statement, with the positions of the key and value literals.
type Option struct {
	Key      string
	Value    string
	KeyPos   Pos
	ValuePos Pos
}

// Set is SET 'key' = 'value' (also the Flink 1.13 form SET key = value), or
// a bare SET that lists the session properties (Key == "").
type Set struct {
	Pos Pos
	// Option holds the key and value; both are empty for a bare SET.
	Option
}

// Reset is RESET 'key' (also RESET key), or a bare RESET that resets all
// properties (Key == "").
type Reset struct {
	Pos    Pos
	Key    string
	KeyPos Pos
}

// ColumnKind says how a column gets its value.
type ColumnKind uint8

// The column kinds.
const (
	// PhysicalColumn is read from and written to the connector's format.
	PhysicalColumn ColumnKind = iota
	// MetadataColumn is connector or format metadata: `col TYPE METADATA
	// [FROM 'key'] [VIRTUAL]`.
	MetadataColumn
	// ComputedColumn is `col AS expr`, computed from other columns.
	ComputedColumn
)

// String returns "physical", "metadata" or "computed".
func (k ColumnKind) String() string {
	switch k {
	case MetadataColumn:
		return "metadata"
	case ComputedColumn:
		return "computed"
	}
	return "physical"
}

// Column is one column of a CREATE TABLE.
type Column struct {
	Pos  Pos // of the name
	Name string
	Kind ColumnKind
	// Type is the declared type (physical and metadata columns), made NOT
	// NULL for primary key columns; the zero Type (KindInvalid) for
	// computed columns, whose type the planner derives from Expr.
	Type    types.Type
	TypePos Pos
	// MetadataKey is the FROM 'key' of a metadata column; "" means the key
	// is the column name.
	MetadataKey    string
	MetadataKeyPos Pos
	// Virtual marks a metadata column that is read-only (excluded when the
	// table is a sink).
	Virtual bool
	// Expr is the expression of a computed column.
	Expr    Expr
	Comment string
	// NameOnly marks a column written without a type, which only CREATE
	// TABLE name (c1, c2, ...) AS query allows: the list orders the
	// query's columns (Type is then the zero Type).
	NameOnly bool
}

// Key returns the metadata key of a metadata column: MetadataKey, or the
// column name when no FROM was given.
func (c *Column) Key() string {
	if c.MetadataKey != "" {
		return c.MetadataKey
	}
	return c.Name
}

// Watermark is WATERMARK FOR column AS expr.
type Watermark struct {
	Pos    Pos
	Column Ident
	Expr   Expr
}

// PrimaryKey is [CONSTRAINT name] PRIMARY KEY (cols) NOT ENFORCED, either
// as a table constraint or on a single column. NOT ENFORCED is required (as
// in Flink), so it is not recorded.
type PrimaryKey struct {
	Pos     Pos
	Name    string // constraint name, "" when not given
	Columns []Ident
}

// LikeStrategy is INCLUDING, EXCLUDING or OVERWRITING in a LIKE clause.
type LikeStrategy uint8

// The LIKE strategies.
const (
	LikeIncluding LikeStrategy = iota
	LikeExcluding
	LikeOverwriting
)

// String returns the keyword.
func (s LikeStrategy) String() string {
	names := [...]string{"INCLUDING", "EXCLUDING", "OVERWRITING"}
	if int(s) < len(names) {
		return names[s]
	}
	return "LikeStrategy(" + strconv.Itoa(int(s)) + ")"
}

// LikeFeature is what a LIKE option applies to.
type LikeFeature uint8

// The LIKE features.
const (
	LikeAll LikeFeature = iota
	LikeConstraints
	LikeGenerated
	LikeMetadata
	LikeOptions
	LikePartitions
	LikeWatermarks
)

var likeFeatureNames = [...]string{"ALL", "CONSTRAINTS", "GENERATED", "METADATA", "OPTIONS", "PARTITIONS", "WATERMARKS"}

// String returns the keyword.
func (f LikeFeature) String() string {
	if int(f) < len(likeFeatureNames) {
		return likeFeatureNames[f]
	}
	return "LikeFeature(" + strconv.Itoa(int(f)) + ")"
}

// LikeOption is one "INCLUDING ALL", "OVERWRITING OPTIONS", ... entry.
type LikeOption struct {
	Pos      Pos
	Strategy LikeStrategy
	Feature  LikeFeature
}

// LikeClause is the LIKE source [( options )] clause of a CREATE TABLE.
type LikeClause struct {
	Pos     Pos
	Source  ObjectName
	Options []LikeOption
}

// CreateTable is CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name (...)
// [COMMENT] [PARTITIONED BY (...)] [WITH (...)] [LIKE ...].
type CreateTable struct {
	Pos         Pos
	Name        ObjectName
	Temporary   bool
	IfNotExists bool
	Columns     []*Column
	Watermark   *Watermark  // nil when absent
	PrimaryKey  *PrimaryKey // nil when absent
	Comment     string
	// PartitionKeys are the PARTITIONED BY columns.
	PartitionKeys []Ident
	// Options are the WITH options in the order written; keys are unique.
	Options []Option
	Like    *LikeClause // nil when absent
	// AsQuery is the query of CREATE TABLE ... AS query (CTAS), at AsPos:
	// the table's columns are the query's, after the columns the column
	// list adds (the planner merges them, and checks the primary key,
	// watermark and partition columns against the result), and the
	// query's rows are written into it; nil for a plain CREATE TABLE.
	AsQuery Query
	AsPos   Pos
	// Replace is set for REPLACE TABLE ... AS query (ReplaceExisting) and
	// CREATE OR REPLACE TABLE ... AS query (CreateOrReplace).
	Replace ReplaceMode

	// src is the file the statement came from, for errors found later
	// (MergeLike); nil for tables built by hand.
	src *source
}

// Option returns the value of the WITH option key and whether it is set.
func (t *CreateTable) Option(key string) (string, bool) {
	for _, o := range t.Options {
		if o.Key == key {
			return o.Value, true
		}
	}
	return "", false
}

// ReplaceMode says whether a CREATE TABLE ... AS query replaces a table.
type ReplaceMode uint8

// The replace modes.
const (
	// NoReplace: CREATE TABLE.
	NoReplace ReplaceMode = iota
	// ReplaceExisting: REPLACE TABLE, of a table that must exist.
	ReplaceExisting
	// CreateOrReplace: CREATE OR REPLACE TABLE.
	CreateOrReplace
)

// String returns the statement's keywords: "CREATE", "REPLACE" or
// "CREATE OR REPLACE".
func (m ReplaceMode) String() string {
	switch m {
	case ReplaceExisting:
		return "REPLACE"
	case CreateOrReplace:
		return "CREATE OR REPLACE"
	}
	return "CREATE"
}

// CreateView is CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(cols)]
// [COMMENT '...'] AS query.
type CreateView struct {
	Pos         Pos
	Name        ObjectName
	Temporary   bool
	IfNotExists bool
	Columns     []Ident // optional column names
	Comment     string
	Query       Query
}

// CreateFunction is CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS]
// name AS 'class' [LANGUAGE JAVA|SCALA|PYTHON] [USING JAR 'path', ...]: a
// user-defined function implemented by a JVM or Python class. ddl keeps it
// so that the planner can say, at its position, what it does with it.
type CreateFunction struct {
	Pos         Pos
	Name        ObjectName
	Temporary   bool
	System      bool // TEMPORARY SYSTEM: a one-part name
	IfNotExists bool
	// Class is the implementing class (or Python function), at ClassPos.
	Class    string
	ClassPos Pos
	// Language is JAVA, SCALA or PYTHON; "" when not given (Flink's
	// default is JAVA).
	Language string
	// Jars are the USING JAR paths.
	Jars []string
}

// CreateCatalog is CREATE CATALOG [IF NOT EXISTS] name [COMMENT '...']
// WITH (options): a catalog of the 'type' its options give.
type CreateCatalog struct {
	Pos         Pos
	Name        Ident
	IfNotExists bool
	Comment     string
	Options     []Option
}

// CreateDatabase is CREATE DATABASE [IF NOT EXISTS] [catalog.]name
// [COMMENT '...'] [WITH (options)].
type CreateDatabase struct {
	Pos         Pos
	Name        ObjectName // one or two parts
	IfNotExists bool
	Comment     string
	Options     []Option
}

// Use is USE CATALOG name (Catalog set; Name has one part) or USE
// [catalog.]database: the catalog and database that the names of later
// statements are qualified with.
type Use struct {
	Pos     Pos
	Catalog bool
	Name    ObjectName
}

// ModuleKind is what a module statement does.
type ModuleKind uint8

// The module statements.
const (
	LoadModule   ModuleKind = iota // LOAD MODULE name [WITH (options)]
	UnloadModule                   // UNLOAD MODULE name
	UseModules                     // USE MODULES name [, name ...]
)

// Module is LOAD MODULE name [WITH (options)], UNLOAD MODULE name or USE
// MODULES name, ...: Flink's modules of functions, of which streamsql has
// one, core (its built-in functions).
type Module struct {
	Pos     Pos
	Kind    ModuleKind
	Names   []Ident
	Options []Option
}

// Jar is ADD JAR 'path' (Remove false) or REMOVE JAR 'path': a JAR for
// Flink's class path, which streamsql, whose connectors and formats are
// built in, does not load.
type Jar struct {
	Pos    Pos
	Path   string
	Remove bool
}

// DropKind is what a DROP statement drops.
type DropKind uint8

// The DROP kinds.
const (
	DropTable DropKind = iota
	DropView
	DropDatabase
	DropCatalog
	// DropFunction is DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] name.
	DropFunction
)

// String returns "TABLE", "VIEW", "DATABASE", "CATALOG" or "FUNCTION".
func (k DropKind) String() string {
	switch k {
	case DropView:
		return "VIEW"
	case DropDatabase:
		return "DATABASE"
	case DropCatalog:
		return "CATALOG"
	case DropFunction:
		return "FUNCTION"
	}
	return "TABLE"
}

// Drop is DROP [TEMPORARY] TABLE|VIEW [IF EXISTS] name, DROP [TEMPORARY
// [SYSTEM]] FUNCTION [IF EXISTS] name, DROP DATABASE [IF
// EXISTS] [catalog.]name [RESTRICT|CASCADE] or DROP CATALOG [IF EXISTS]
// name.
type Drop struct {
	Pos       Pos
	Kind      DropKind
	Temporary bool
	IfExists  bool
	Name      ObjectName
	// Cascade is set for DROP DATABASE ... CASCADE: the database's tables
	// and views go with it (RESTRICT, the default, refuses a database
	// that holds any).
	Cascade bool
}

// Insert is INSERT INTO target [/*+ OPTIONS(...) */] [(cols)] query.
type Insert struct {
	Pos    Pos
	Target ObjectName
	// Hints are the target's OPTIONS hint entries, which override the
	// table's WITH options for this statement.
	Hints []Option
	// OtherHints are the target's table hints other than OPTIONS.
	OtherHints []*Hint
	// Partition is the static partition spec, PARTITION (date =
	// '2019-08-30', ...): columns of the target's PARTITIONED BY given a
	// constant, which the query does not provide (nil when absent).
	Partition []PartitionValue
	Columns   []Ident // optional target column list
	Query     Query
}

// PartitionValue is one column = constant of an INSERT's PARTITION spec.
type PartitionValue struct {
	Column Ident
	// Value is a literal (a string, number, boolean or NULL, with its sign).
	Value Expr
}

// StatementSet is EXECUTE STATEMENT SET BEGIN ...; END or the older
// BEGIN STATEMENT SET; ...; END: INSERTs that run as one job.
type StatementSet struct {
	Pos     Pos
	Inserts []*Insert
}

// Explain is EXPLAIN [PLAN FOR | details] statement, where statement is an
// *Insert, a *StatementSet or a *QueryStatement.
type Explain struct {
	Pos Pos
	// Details are the upper-cased ExplainDetail names (ESTIMATED_COST,
	// CHANGELOG_MODE, PLAN_ADVICE, JSON_EXECUTION_PLAN), if any.
	Details   []string
	Statement Statement
}

// Describe is DESCRIBE [EXTENDED] name (or DESC): the columns of a table
// or view, a row each, as Flink's DESCRIBE lists them.
type Describe struct {
	Pos  Pos
	Name ObjectName
}

// AlterKind is what an ALTER TABLE does.
type AlterKind uint8

// The ALTER TABLE actions.
const (
	AlterRename       AlterKind = iota // RENAME TO new_name
	AlterSet                           // SET ('k' = 'v', ...)
	AlterReset                         // RESET ('k', ...)
	AlterAdd                           // ADD column, PRIMARY KEY or WATERMARK, or (...)
	AlterModify                        // MODIFY the same
	AlterDrop                          // DROP column, (columns), PRIMARY KEY or WATERMARK
	AlterRenameColumn                  // RENAME column TO new_column
)

// AlterTable is ALTER TABLE [IF EXISTS] name followed by one action, as
// Flink's:
//
//	RENAME TO new_name
//	SET ('key' = 'value', ...)
//	RESET ('key', ...)
//	ADD | MODIFY component | (component, ...)   -- a column [FIRST | AFTER col], PRIMARY KEY (...) NOT ENFORCED, WATERMARK FOR ...
//	DROP column | (column, ...) | PRIMARY KEY | WATERMARK
//	RENAME column TO new_column
type AlterTable struct {
	Pos      Pos
	Name     ObjectName
	IfExists bool
	Kind     AlterKind
	// NewName is RENAME TO's name.
	NewName ObjectName
	// Options are SET's options; Reset RESET's keys.
	Options []Option
	Reset   []Ident
	// Columns are ADD's or MODIFY's columns, each with its Positions
	// entry; PrimaryKey and Watermark their constraint and watermark.
	Columns    []*Column
	Positions  []ColumnPosition
	PrimaryKey *PrimaryKey
	Watermark  *Watermark
	// Drop are DROP's columns; DropPrimaryKey and DropWatermark its other
	// forms.
	Drop                          []Ident
	DropPrimaryKey, DropWatermark bool
	// Column and NewColumn are RENAME column TO new_column's names.
	Column, NewColumn Ident

	// src is the file the statement came from, for errors found later
	// (AlterTableDef); nil for statements built by hand.
	src *source
}

// AlterView is ALTER VIEW name RENAME TO new_name (NewName set) or ALTER
// VIEW name AS query (Query set).
type AlterView struct {
	Pos     Pos
	Name    ObjectName
	NewName ObjectName
	Query   Query
}

// ColumnPosition is where ALTER TABLE ADD or MODIFY puts a column: FIRST,
// AFTER a column, or (neither) last for ADD and where it was for MODIFY.
type ColumnPosition struct {
	Pos   Pos
	First bool
	After Ident
}

// ShowKind is what a SHOW statement lists.
type ShowKind uint8

// The SHOW statements.
const (
	ShowTables          ShowKind = iota // SHOW TABLES: tables and views
	ShowViews                           // SHOW VIEWS
	ShowDatabases                       // SHOW DATABASES
	ShowCatalogs                        // SHOW CATALOGS
	ShowCurrentCatalog                  // SHOW CURRENT CATALOG
	ShowCurrentDatabase                 // SHOW CURRENT DATABASE
	ShowColumns                         // SHOW COLUMNS FROM t: DESCRIBE's rows
	ShowCreateTable                     // SHOW CREATE TABLE t
	ShowModules                         // SHOW MODULES: the used modules
	ShowFullModules                     // SHOW FULL MODULES: every loaded module and whether it is used
	ShowUserFunctions                   // SHOW USER FUNCTIONS [[NOT] LIKE 'pattern']
)

// Show is a SHOW statement, listing names as Flink's does:
//
//	SHOW TABLES | VIEWS [(FROM | IN) [catalog.]database] [[NOT] LIKE 'pattern']
//	SHOW DATABASES [(FROM | IN) catalog] [[NOT] LIKE | ILIKE 'pattern']
//	SHOW CATALOGS [[NOT] LIKE | ILIKE 'pattern']
//	SHOW CURRENT CATALOG | CURRENT DATABASE
//	SHOW COLUMNS (FROM | IN) table [[NOT] LIKE 'pattern']
//	SHOW CREATE TABLE table                            -- From is the table
//	SHOW [FULL] MODULES
//	SHOW USER FUNCTIONS [[NOT] LIKE 'pattern']
type Show struct {
	Pos  Pos
	What ShowKind
	// From is the database, catalog or table after FROM or IN; no parts
	// when absent.
	From ObjectName
	// Like is the pattern of [NOT] LIKE or ILIKE (case-insensitive), at
	// LikePos; "" with a zero LikePos when absent.
	Like    string
	LikePos Pos
	NotLike bool
	ILike   bool
}

// QueryStatement is a bare query (SELECT, VALUES, UNION ALL) run for its
// rows, as in Flink's SQL client.
type QueryStatement struct {
	Pos   Pos
	Query Query
}

// Position implements Statement.
func (s *Set) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Reset) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *CreateTable) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *CreateView) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *CreateFunction) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *CreateCatalog) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *CreateDatabase) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Use) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Jar) Position() Pos { return s.Pos }

// Position returns the statement's position.
func (s *Module) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Drop) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Insert) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *StatementSet) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Explain) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *QueryStatement) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Describe) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *Show) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *AlterTable) Position() Pos { return s.Pos }

// Position implements Statement.
func (s *AlterView) Position() Pos { return s.Pos }

func (*Set) stmt()            {}
func (*Reset) stmt()          {}
func (*CreateTable) stmt()    {}
func (*CreateView) stmt()     {}
func (*CreateFunction) stmt() {}
func (*CreateCatalog) stmt()  {}
func (*CreateDatabase) stmt() {}
func (*Use) stmt()            {}
func (*Jar) stmt()            {}
func (*Module) stmt()         {}
func (*Drop) stmt()           {}
func (*Insert) stmt()         {}
func (*StatementSet) stmt()   {}
func (*Explain) stmt()        {}
func (*QueryStatement) stmt() {}
func (*Describe) stmt()       {}
func (*Show) stmt()           {}
func (*AlterTable) stmt()     {}
func (*AlterView) stmt()      {}
