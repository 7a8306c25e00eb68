package ddl

import "strconv"

// This file holds the query nodes: the relational part of the AST. It
// mirrors Calcite's SqlNode shapes, as Flink parses them, so that a
// planner can follow Flink's documentation clause by clause. Every node
// carries the position of its first token (for clauses: of the clause's
// first keyword) in the user's original text, so that the planner can
// report anything it cannot run at the place the user wrote it.

// Query is a query: *Select, *SetOp, *Values, *With or *OrderBy. A query
// in parentheses has no node of its own.
type Query interface {
	// Position returns where the query starts.
	Position() Pos
	query()
}

// With is WITH cte, ... body: common table expressions, each visible in
// the body and in the CTEs after it. It is the outermost node of the query
// it starts; ORDER BY and LIMIT of the body are inside Body.
type With struct {
	Pos  Pos // of WITH
	CTEs []*CTE
	Body Query
}

// CTE is one name [(columns)] AS (query) entry of a WITH clause.
type CTE struct {
	Pos     Pos // of the name
	Name    Ident
	Columns []Ident // optional column names
	Query   Query
}

// OrderBy is query [ORDER BY items] followed by a row limit: LIMIT n,
// OFFSET n [ROW|ROWS], FETCH FIRST|NEXT n ROW|ROWS ONLY, or a combination
// (LIMIT n OFFSET m, OFFSET m ROWS FETCH NEXT n ROWS ONLY). It wraps the
// whole query before it, set operations included, as Calcite's SqlOrderBy
// does; at least one of Items, Offset and Fetch is set.
type OrderBy struct {
	// Pos is the position of the first keyword: ORDER, LIMIT, OFFSET or
	// FETCH.
	Pos   Pos
	Query Query
	// Items are the ORDER BY items; nil without ORDER BY.
	Items []OrderItem
	// Offset is the number of rows skipped (OFFSET n); nil when absent.
	Offset    Expr
	OffsetPos Pos // of OFFSET
	// Fetch is the number of rows returned (LIMIT n, or FETCH FIRST n
	// ROWS ONLY, where FETCH FIRST ROW ONLY is 1); nil when absent.
	Fetch    Expr
	FetchPos Pos // of LIMIT or FETCH
	// Limit is set when Fetch was written LIMIT n rather than FETCH.
	Limit bool
}

// NullOrder is where an ORDER BY item puts NULLs.
type NullOrder uint8

// The NULL orders.
const (
	// NullsDefault is no NULLS clause: Flink's default (NULLs first when
	// ascending, last when descending).
	NullsDefault NullOrder = iota
	NullsFirst
	NullsLast
)

// OrderItem is one expr [ASC|DESC] [NULLS FIRST|LAST] of an ORDER BY, of a
// window's ORDER BY or of WITHIN GROUP.
type OrderItem struct {
	Pos   Pos // of the expression
	Expr  Expr
	Desc  bool
	Nulls NullOrder
}

// SetOpKind is the operator of a set operation.
type SetOpKind uint8

// The set operations.
const (
	Union SetOpKind = iota
	Intersect
	// Except is EXCEPT, also written MINUS.
	Except
)

// String returns the keyword.
func (k SetOpKind) String() string {
	switch k {
	case Union:
		return "UNION"
	case Intersect:
		return "INTERSECT"
	case Except:
		return "EXCEPT"
	}
	return "SetOpKind(" + strconv.Itoa(int(k)) + ")"
}

// SetOp is Left UNION|INTERSECT|EXCEPT [ALL|DISTINCT] Right. Without ALL
// the operation removes duplicates (DISTINCT is the default). INTERSECT
// binds tighter than UNION and EXCEPT; operators of the same precedence
// nest to the left: a UNION b UNION c is (a UNION b) UNION c.
type SetOp struct {
	Pos         Pos // of the operator keyword
	Kind        SetOpKind
	All         bool
	Left, Right Query
}

// Select is
//
//	SELECT [hints] [ALL|DISTINCT] items [FROM source] [WHERE cond]
//	[GROUP BY ...] [HAVING cond] [WINDOW name AS (spec), ...]
//
// ORDER BY and LIMIT wrap it in an *OrderBy; WITH in a *With.
type Select struct {
	Pos Pos // of SELECT
	// Hints are the query hints after SELECT: /*+ STATE_TTL('o' = '1d'),
	// BROADCAST(t) */.
	Hints []*Hint
	// Distinct is set for SELECT DISTINCT, at DistinctPos.
	Distinct    bool
	DistinctPos Pos
	Items       []SelectItem
	// From is the FROM source: a table, a subquery, a join tree, a table
	// function or UNNEST; nil for SELECT without FROM.
	From  TableRef
	Where Expr // nil when absent
	// GroupBy is the GROUP BY clause; nil when absent.
	GroupBy *GroupBy
	// Having is the HAVING condition (nil when absent), at HavingPos (of
	// the keyword).
	Having    Expr
	HavingPos Pos
	// Windows are the WINDOW clause's named windows, at WindowPos (of the
	// keyword), for OVER name.
	Windows   []*NamedWindow
	WindowPos Pos
}

// SelectItem is one entry of a SELECT list: an expression with an optional
// alias, or a star (* or qualifier.*).
type SelectItem struct {
	Pos  Pos
	Expr Expr // nil for a star
	// Alias is the AS name ("" when not given).
	Alias    string
	AliasPos Pos
	// Star is true for * and t.*; StarQualifier holds t's parts.
	Star          bool
	StarQualifier []string
}

// Values is VALUES (row), (row), ...
type Values struct {
	Pos  Pos
	Rows [][]Expr
}

// GroupBy is GROUP BY items. An item is an expression (also a legacy
// group window, TUMBLE(ts, INTERVAL '1' HOUR), which is an ordinary
// *Call), or one of the grouping-set forms of GroupKind.
type GroupBy struct {
	Pos   Pos // of GROUP
	Items []GroupItem
}

// GroupKind is the form of a GROUP BY item.
type GroupKind uint8

// The GROUP BY item forms.
const (
	// GroupExpr is an expression; Expr holds it.
	GroupExpr GroupKind = iota
	// GroupList is a parenthesised list (a, b), or () for the grand
	// total: one grouping set of its Items (all GroupExpr).
	GroupList
	// GroupingSets is GROUPING SETS (item, ...): the union of the
	// groupings of its Items, which may be of any kind.
	GroupingSets
	// Rollup is ROLLUP(item, ...), whose Items are GroupExpr or GroupList.
	Rollup
	// Cube is CUBE(item, ...), whose Items are GroupExpr or GroupList.
	Cube
)

// String returns "expression", "list", "GROUPING SETS", "ROLLUP" or "CUBE".
func (k GroupKind) String() string {
	names := [...]string{"expression", "list", "GROUPING SETS", "ROLLUP", "CUBE"}
	if int(k) < len(names) {
		return names[k]
	}
	return "GroupKind(" + strconv.Itoa(int(k)) + ")"
}

// GroupItem is one element of GROUP BY, GROUPING SETS, ROLLUP or CUBE.
type GroupItem struct {
	Pos   Pos // of the expression, the '(' or the keyword
	Kind  GroupKind
	Expr  Expr        // for GroupExpr
	Items []GroupItem // for the other kinds
}

// NamedWindow is one name AS (spec) of a WINDOW clause.
type NamedWindow struct {
	Pos  Pos // of the name
	Name Ident
	Spec *WindowSpec
}

// WindowSpec is the window of an OVER clause or a WINDOW clause entry:
// ([base] [PARTITION BY ...] [ORDER BY ...] [frame]), or a bare name in
// OVER name.
type WindowSpec struct {
	Pos Pos // of '(', or of the name in OVER name
	// Ref names a window of the WINDOW clause: OVER name, or the base
	// window in OVER (name ORDER BY ...); "" when not given.
	Ref         string
	RefPos      Pos
	PartitionBy []Expr
	OrderBy     []OrderItem
	Frame       *Frame // nil when absent
}

// FrameUnit is ROWS or RANGE.
type FrameUnit uint8

// The frame units.
const (
	FrameRows FrameUnit = iota
	FrameRange
)

// String returns "ROWS" or "RANGE".
func (u FrameUnit) String() string {
	if u == FrameRange {
		return "RANGE"
	}
	return "ROWS"
}

// BoundKind is the kind of a window frame bound.
type BoundKind uint8

// The frame bounds.
const (
	UnboundedPreceding BoundKind = iota
	// Preceding is offset PRECEDING: a number of rows (ROWS) or a value
	// distance such as INTERVAL '1' HOUR (RANGE).
	Preceding
	CurrentRow
	// Following is offset FOLLOWING.
	Following
	UnboundedFollowing
)

// String returns the bound's keywords, with "n" for an offset.
func (k BoundKind) String() string {
	names := [...]string{"UNBOUNDED PRECEDING", "n PRECEDING", "CURRENT ROW", "n FOLLOWING", "UNBOUNDED FOLLOWING"}
	if int(k) < len(names) {
		return names[k]
	}
	return "BoundKind(" + strconv.Itoa(int(k)) + ")"
}

// FrameBound is one bound of a window frame.
type FrameBound struct {
	Pos    Pos // of the bound's first token
	Kind   BoundKind
	Offset Expr // for Preceding and Following
}

// Frame is ROWS|RANGE BETWEEN start AND end. The short form ROWS start
// has End CURRENT ROW (at Start's position), as in SQL.
type Frame struct {
	Pos        Pos // of ROWS or RANGE
	Unit       FrameUnit
	Start, End FrameBound
}

// Hint is one entry of a /*+ ... */ hint comment: NAME, NAME(k = 'v', ...)
// (key-value options; a key is a string literal or an identifier) or
// NAME(a, b, ...) (a list of identifiers or literals). Query hints follow
// SELECT (STATE_TTL, LOOKUP, BROADCAST, SHUFFLE_HASH, ...); table hints
// follow a table name (OPTIONS, kept apart as TableName.Hints).
type Hint struct {
	Pos  Pos // of the name
	Name string
	// Options are the key-value options, in the order written; keys are
	// unique.
	Options []Option
	// List holds the list form's entries: identifiers as written, string
	// literals unquoted, numbers as written.
	List []Ident
}

// Position implements Query.
func (q *Select) Position() Pos { return q.Pos }

// Position implements Query.
func (q *SetOp) Position() Pos { return q.Pos }

// Position implements Query.
func (q *Values) Position() Pos { return q.Pos }

// Position implements Query.
func (q *With) Position() Pos { return q.Pos }

// Position implements Query.
func (q *OrderBy) Position() Pos { return q.Pos }

func (*Select) query()  {}
func (*SetOp) query()   {}
func (*Values) query()  {}
func (*With) query()    {}
func (*OrderBy) query() {}

// TableRef is a FROM source: *TableName, *Subquery, *Join, *TableFunc or
// *Unnest.
type TableRef interface {
	// Position returns where the reference starts; for a *Join, where its
	// join keyword (or comma) is.
	Position() Pos
	tableRef()
}

// TableName is a table or view named in FROM, with its table hints, an
// optional FOR SYSTEM_TIME AS OF (temporal and lookup joins) and alias:
//
//	name [/*+ OPTIONS('k' = 'v') */] [FOR SYSTEM_TIME AS OF expr] [[AS] alias [(columns)]]
type TableName struct {
	Pos  Pos
	Name ObjectName
	// Hints are the OPTIONS hint entries overriding the table's options.
	Hints []Option
	// OtherHints are the table hints other than OPTIONS, in the order
	// written.
	OtherHints []*Hint
	// SystemTime is the expression of FOR SYSTEM_TIME AS OF (nil when
	// absent), at SystemTimePos (of FOR).
	SystemTime    Expr
	SystemTimePos Pos
	Alias         string
	// ColumnAliases renames the columns: FROM t AS x (a, b).
	ColumnAliases []Ident
}

// Subquery is [LATERAL] (query) [[AS] alias [(columns)]] in FROM, for
// example FROM (VALUES (1, 'a')) AS t (id, name).
type Subquery struct {
	Pos Pos // of LATERAL, or of '('
	// Lateral is set for LATERAL (query), which may refer to the FROM
	// items before it.
	Lateral bool
	Query   Query
	Alias   string
	// ColumnAliases renames the query's columns.
	ColumnAliases []Ident
}

// JoinKind is the kind of a join.
type JoinKind uint8

// The join kinds.
const (
	// JoinComma is FROM a, b: a cross join whose condition is in WHERE.
	JoinComma JoinKind = iota
	// JoinInner is [INNER] JOIN.
	JoinInner
	// JoinLeft is LEFT [OUTER] JOIN.
	JoinLeft
	// JoinRight is RIGHT [OUTER] JOIN.
	JoinRight
	// JoinFull is FULL [OUTER] JOIN.
	JoinFull
	// JoinCross is CROSS JOIN.
	JoinCross
)

// String returns the join's keywords: ",", "JOIN", "LEFT JOIN", "RIGHT
// JOIN", "FULL JOIN" or "CROSS JOIN".
func (k JoinKind) String() string {
	names := [...]string{",", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN"}
	if int(k) < len(names) {
		return names[k]
	}
	return "JoinKind(" + strconv.Itoa(int(k)) + ")"
}

// Join is Left kind Right [ON cond | USING (columns)]. Joins nest to the
// left, comma joins included, as in Calcite: a, b JOIN c ON ... is
// (a, b) JOIN c. A parenthesised join in FROM has no node of its own.
// NATURAL joins set Natural and have neither ON nor USING: the planner
// joins on the columns both inputs name, as USING would.
type Join struct {
	Pos         Pos // of the join's first keyword, or of the comma
	Kind        JoinKind
	Natural     bool
	Left, Right TableRef
	// On is the ON condition; nil when absent (USING, comma and CROSS
	// joins).
	On Expr
	// Using are the USING columns; nil when absent.
	Using []Ident
}

// TableFunc is a table function call in FROM:
//
//	TABLE(name(args)) [[AS] alias [(columns)]]
//	LATERAL TABLE(name(args)) [[AS] alias [(columns)]]
//
// Window table functions are table functions: TABLE(TUMBLE(TABLE t,
// DESCRIPTOR(ts), INTERVAL '10' MINUTE)) has Name TUMBLE and three Args,
// the first a TableArg, the second a Descriptor; with Flink's named
// arguments (DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SIZE => ...,
// SLIDE, STEP, GAP, OFFSET) each FuncArg has its Name. SESSION's
// PARTITION BY is inside its table argument: TABLE t PARTITION BY k.
type TableFunc struct {
	Pos Pos // of TABLE, or of LATERAL
	// Lateral is set for LATERAL TABLE(...), whose arguments may refer to
	// the FROM items before it.
	Lateral bool
	// Name is the function name, upper-cased when it is a single
	// unquoted part (as for scalar calls), kept as written otherwise.
	Name          ObjectName
	Args          []FuncArg
	Alias         string
	ColumnAliases []Ident
}

// FuncArg is one argument of a table function: [name =>] value, where the
// value is exactly one of Expr, Table and Descriptor.
type FuncArg struct {
	Pos Pos // of the name when named, else of the value
	// Name is the parameter name of a named argument (name => value), as
	// written; Name.Name is "" for a positional argument.
	Name       Ident
	Expr       Expr
	Table      *TableArg
	Descriptor *Descriptor
}

// TableArg is a table argument of a table function: TABLE name or a
// parenthesised query, optionally with PARTITION BY and ORDER BY (set
// semantics, as SESSION's TABLE t PARTITION BY k). Flink takes a query as
// (SELECT ...), without TABLE, as Calcite does.
type TableArg struct {
	Pos Pos // of TABLE, or of '('
	// Name is the table or view of TABLE name; its Parts are empty when
	// Query is set.
	Name  ObjectName
	Query Query
	// PartitionBy are the PARTITION BY expressions (a column list written
	// with or without parentheses); nil when absent.
	PartitionBy  []Expr
	PartitionPos Pos
	OrderBy      []OrderItem
	OrderPos     Pos
}

// Descriptor is DESCRIPTOR(col, ...): the columns a table function is to
// use, such as a window TVF's time attribute.
type Descriptor struct {
	Pos     Pos // of DESCRIPTOR
	Columns []Ident
}

// Unnest is UNNEST(expr, ...) [WITH ORDINALITY] [[AS] alias [(columns)]]:
// the rows of arrays (or multisets, or maps) as a table, usually written
// CROSS JOIN UNNEST(t.arr) AS u (x) after the table whose column it reads.
type Unnest struct {
	Pos            Pos // of UNNEST
	Exprs          []Expr
	WithOrdinality bool
	Alias          string
	ColumnAliases  []Ident
}

// Position implements TableRef.
func (t *TableName) Position() Pos { return t.Pos }

// Position implements TableRef.
func (t *Subquery) Position() Pos { return t.Pos }

// Position implements TableRef.
func (t *Join) Position() Pos { return t.Pos }

// Position implements TableRef.
func (t *TableFunc) Position() Pos { return t.Pos }

// Position implements TableRef.
func (t *Unnest) Position() Pos { return t.Pos }

func (*TableName) tableRef() {}
func (*Subquery) tableRef()  {}
func (*Join) tableRef()      {}
func (*TableFunc) tableRef() {}
func (*Unnest) tableRef()    {}
