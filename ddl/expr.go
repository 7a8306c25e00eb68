package ddl

import "github.com/streamsql/streamsql/types"

// Expr is a scalar expression. The concrete types are *Literal,
// *IntervalLit, *ColumnRef, *Call, *Symbol, *Binary, *Unary, *Cast, *Case,
// *In, *Between, *Like, *Is, *Subscript, *FieldAccess, *Over (an OVER
// window call) and the subquery expressions *ScalarSubquery, *Exists,
// *InQuery and *Quantified. Every node carries the position of its first
// character (for operators: the operator) in the user's original text.
//
// Special call syntax is lowered to plain *Call nodes with upper-cased
// names, so that a function library sees only calls:
//
//	CEIL(x TO DAY), FLOOR(x TO HOUR)  Call CEIL/FLOOR (x, Symbol DAY)
//	EXTRACT(DAY FROM x)               Call EXTRACT (Symbol DAY, x)
//	TIMESTAMPADD(DAY, n, ts)          Call TIMESTAMPADD (Symbol DAY, n, ts)
//	TIMESTAMPDIFF(DAY, a, b)          Call TIMESTAMPDIFF (Symbol DAY, a, b)
//	POSITION(a IN b)                  Call POSITION (a, b)
//	SUBSTRING(s FROM i FOR n)         Call SUBSTRING (s, i[, n])
//	TRIM(BOTH c FROM s)               Call TRIM (Symbol BOTH|LEADING|TRAILING, c, s);
//	                                  TRIM(s) is TRIM (Symbol BOTH, ' ', s)
//	ARRAY[a, b], MAP[k, v], ROW(a, b) Call ARRAY / MAP / ROW
//	(a, b) outside IN and VALUES      Call ROW
//	CURRENT_TIMESTAMP, LOCALTIMESTAMP Call with no arguments (NoParens set)
//	COUNT(*)                          Call COUNT with Star set
//	COUNT(DISTINCT a) FILTER (WHERE c) Call COUNT with Distinct and Filter set
//	f(...) OVER w                     Over{Call f, Window}
//	NOT EXISTS (query)                Unary NOT of Exists
type Expr interface {
	// Position returns where the expression starts.
	Position() Pos
	expr()
}

// LiteralKind classifies literals.
type LiteralKind uint8

// The literal kinds.
const (
	NullLit      LiteralKind = iota // NULL: Type is types.Null(); UNKNOWN: BOOLEAN (nullable)
	BoolLit                         // TRUE, FALSE: BOOLEAN NOT NULL
	IntLit                          // 42: INT NOT NULL, or BIGINT NOT NULL beyond INT; Value.Int64
	DecimalLit                      // 1.50 (and integers beyond BIGINT): DECIMAL(p, s) NOT NULL; Value.Decimal
	DoubleLit                       // 1e3: DOUBLE NOT NULL; Value.Float64
	StringLit                       // 'abc': CHAR(n) NOT NULL (n in characters); Value.Str
	BinaryLit                       // X'0AFF': BINARY(n) NOT NULL; Value.Bytes
	DateLit                         // DATE '2024-01-31': DATE NOT NULL; Value.Date
	TimeLit                         // TIME '12:00:00.5': TIME(p) NOT NULL; Value.Time
	TimestampLit                    // TIMESTAMP '2024-01-31 12:00:00.123': TIMESTAMP(p) NOT NULL; Value.Timestamp
)

// Literal is a constant with its Flink type and its value in the row
// model's representation.
type Literal struct {
	Pos  Pos
	Kind LiteralKind
	Type types.Type
	// Value holds the constant (the zero Value for NULL).
	Value types.Value
	// Text is the literal's source text (after ${NAME} substitution).
	Text string
}

// IntervalLit is INTERVAL '5' SECOND, INTERVAL '1 12:00' DAY TO MINUTE,
// INTERVAL '1-6' YEAR TO MONTH, ... Its type is types.IntervalYearMonth()
// (Months) or types.IntervalDayTime() (Millis); the value has its sign
// applied.
type IntervalLit struct {
	Pos Pos
	// From and To are the units as upper-case keywords (YEAR, MONTH, DAY,
	// HOUR, MINUTE, SECOND); To is "" for a single-unit interval.
	From, To string
	Type     types.Type
	Months   int64 // for year-month intervals
	Millis   int64 // for day-time intervals
	Text     string
}

// ColumnRef is a column reference: col, or qualifier.col (and longer dotted
// paths). The planner resolves which leading parts name a table and which
// trailing parts are ROW field accesses.
type ColumnRef struct {
	Pos   Pos
	Parts []string
}

// Call is a function call with an upper-cased name. The aggregate call
// forms keep their clauses here:
//
//	name([ALL|DISTINCT] args) [WITHIN GROUP (ORDER BY ...)] [FILTER (WHERE cond)]
//
// The parser accepts them on any call, as Calcite does; the planner
// decides which functions take them.
type Call struct {
	Pos  Pos
	Name string
	Args []Expr
	// Star is set for COUNT(*).
	Star bool
	// NoParens is set for niladic functions written without parentheses
	// (CURRENT_TIMESTAMP, CURRENT_DATE, LOCALTIMESTAMP, ...).
	NoParens bool
	// Distinct is set for name(DISTINCT args), at DistinctPos (of the
	// keyword). ALL, the default, is not recorded.
	Distinct    bool
	DistinctPos Pos
	// WithinGroup are the items of WITHIN GROUP (ORDER BY ...), at
	// WithinGroupPos (of WITHIN); nil when absent.
	WithinGroup    []OrderItem
	WithinGroupPos Pos
	// Filter is the condition of FILTER (WHERE cond), at FilterPos (of
	// FILTER); nil when absent.
	Filter    Expr
	FilterPos Pos
	// Returning is the type of JSON_VALUE(... RETURNING type), at
	// ReturningPos; its Kind is KindInvalid when absent.
	Returning    types.Type
	ReturningPos Pos
	// OnNull is the ON NULL clause of JSON_OBJECT, JSON_ARRAY,
	// JSON_OBJECTAGG and JSON_ARRAYAGG: "NULL", "ABSENT", or "" when not
	// written. JSON_OBJECT's and JSON_OBJECTAGG's arguments are then key,
	// value, key, value, ...
	OnNull string
}

// Over is Call OVER window: an aggregate or ranking function (ROW_NUMBER,
// RANK, ...) over a window of rows, written inline (OVER (PARTITION BY
// ...)) or by name (OVER w, Window.Ref set).
type Over struct {
	Pos    Pos // of OVER
	Call   *Call
	Window *WindowSpec
}

// ScalarSubquery is (query) used as a value: a query of one column and at
// most one row.
type ScalarSubquery struct {
	Pos   Pos // of '('
	Query Query
}

// Exists is EXISTS (query). NOT EXISTS is a Unary NOT of it.
type Exists struct {
	Pos   Pos // of EXISTS
	Query Query
}

// InQuery is Expr [NOT] IN (query); IN with a list of values is *In.
type InQuery struct {
	Pos   Pos // of IN (or NOT)
	Expr  Expr
	Not   bool
	Query Query
}

// Quantified is Left op ANY|SOME|ALL (query): a comparison with every row
// of a one-column query. Op is a comparison (OpEq, OpNe, OpLt, OpLe, OpGt,
// OpGe); Quantifier is "ANY", "SOME" or "ALL".
type Quantified struct {
	Pos        Pos // of the operator
	Op         BinaryOp
	Quantifier string
	Left       Expr
	Query      Query
}

// Symbol is a keyword argument of a special call: a time unit (YEAR,
// QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND, ...) or a
// TRIM mode (BOTH, LEADING, TRAILING). Name is upper-case.
type Symbol struct {
	Pos  Pos
	Name string
}

// BinaryOp is a binary operator.
type BinaryOp string

// The binary operators.
const (
	OpAdd               BinaryOp = "+"
	OpSub               BinaryOp = "-"
	OpMul               BinaryOp = "*"
	OpDiv               BinaryOp = "/"
	OpMod               BinaryOp = "%"
	OpConcat            BinaryOp = "||"
	OpEq                BinaryOp = "="
	OpNe                BinaryOp = "<>"
	OpLt                BinaryOp = "<"
	OpLe                BinaryOp = "<="
	OpGt                BinaryOp = ">"
	OpGe                BinaryOp = ">="
	OpAnd               BinaryOp = "AND"
	OpOr                BinaryOp = "OR"
	OpIsDistinctFrom    BinaryOp = "IS DISTINCT FROM"
	OpIsNotDistinctFrom BinaryOp = "IS NOT DISTINCT FROM"
)

// Binary is Left Op Right. Pos is the operator's position.
type Binary struct {
	Pos         Pos
	Op          BinaryOp
	Left, Right Expr
}

// UnaryOp is a prefix operator.
type UnaryOp string

// The unary operators.
const (
	OpNot  UnaryOp = "NOT"
	OpNeg  UnaryOp = "-"
	OpPlus UnaryOp = "+"
)

// Unary is Op Expr.
type Unary struct {
	Pos  Pos
	Op   UnaryOp
	Expr Expr
}

// Cast is CAST(Expr AS Type), or TRY_CAST (Try set), which yields NULL
// instead of failing.
type Cast struct {
	Pos     Pos
	Try     bool
	Expr    Expr
	Type    types.Type
	TypePos Pos
}

// When is one WHEN cond THEN result branch.
type When struct {
	Pos    Pos
	Cond   Expr
	Result Expr
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE ...] END. With an Operand
// (simple CASE) each When.Cond is compared with it for equality.
type Case struct {
	Pos     Pos
	Operand Expr // nil for a searched CASE
	Whens   []When
	Else    Expr // nil when absent (NULL)
}

// In is Expr [NOT] IN (List...).
type In struct {
	Pos  Pos // of IN (or NOT)
	Expr Expr
	Not  bool
	List []Expr
}

// Between is Expr [NOT] BETWEEN [SYMMETRIC] Low AND High.
type Between struct {
	Pos       Pos
	Expr      Expr
	Not       bool
	Symmetric bool
	Low, High Expr
}

// Like is Expr [NOT] LIKE Pattern [ESCAPE Escape], or SIMILAR TO when
// Similar is set.
type Like struct {
	Pos     Pos
	Expr    Expr
	Not     bool
	Similar bool
	Pattern Expr
	Escape  Expr // nil when absent
}

// Is is Expr IS [NOT] NULL|TRUE|FALSE|UNKNOWN.
type Is struct {
	Pos  Pos
	Expr Expr
	Not  bool
	// What is "NULL", "TRUE", "FALSE" or "UNKNOWN".
	What string
}

// Subscript is Expr[Index]: an ARRAY element (1-based) or a MAP value.
type Subscript struct {
	Pos   Pos // of '['
	Expr  Expr
	Index Expr
}

// FieldAccess is Expr.Field on an expression that is not a plain column
// path, such as m['k'].f or (CAST(x AS ROW<f INT>)).f.
type FieldAccess struct {
	Pos   Pos // of the field name
	Expr  Expr
	Field string
}

// Position implements Expr.
func (e *Literal) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *IntervalLit) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *ColumnRef) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Call) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Symbol) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Binary) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Unary) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Cast) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Case) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *In) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Between) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Like) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Is) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Subscript) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *FieldAccess) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Over) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *ScalarSubquery) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Exists) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *InQuery) Position() Pos { return e.Pos }

// Position implements Expr.
func (e *Quantified) Position() Pos { return e.Pos }

func (*Literal) expr()        {}
func (*IntervalLit) expr()    {}
func (*ColumnRef) expr()      {}
func (*Call) expr()           {}
func (*Symbol) expr()         {}
func (*Binary) expr()         {}
func (*Unary) expr()          {}
func (*Cast) expr()           {}
func (*Case) expr()           {}
func (*In) expr()             {}
func (*Between) expr()        {}
func (*Like) expr()           {}
func (*Is) expr()             {}
func (*Subscript) expr()      {}
func (*FieldAccess) expr()    {}
func (*Over) expr()           {}
func (*ScalarSubquery) expr() {}
func (*Exists) expr()         {}
func (*InQuery) expr()        {}
func (*Quantified) expr()     {}

// Walk calls fn for e and then, if fn returns true, for each of e's
// sub-expressions in source order, depth first. A nil e is skipped. Walk
// does not enter queries nested in an expression (subqueries): their
// expressions belong to another scope.
func Walk(e Expr, fn func(Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	switch e := e.(type) {
	case *Call:
		for _, a := range e.Args {
			Walk(a, fn)
		}
		walkOrder(e.WithinGroup, fn)
		Walk(e.Filter, fn)
	case *Over:
		if e.Call != nil {
			Walk(e.Call, fn)
		}
		if w := e.Window; w != nil {
			for _, p := range w.PartitionBy {
				Walk(p, fn)
			}
			walkOrder(w.OrderBy, fn)
			if f := w.Frame; f != nil {
				Walk(f.Start.Offset, fn)
				Walk(f.End.Offset, fn)
			}
		}
	case *InQuery:
		Walk(e.Expr, fn)
	case *Quantified:
		Walk(e.Left, fn)
	case *Binary:
		Walk(e.Left, fn)
		Walk(e.Right, fn)
	case *Unary:
		Walk(e.Expr, fn)
	case *Cast:
		Walk(e.Expr, fn)
	case *Case:
		Walk(e.Operand, fn)
		for _, w := range e.Whens {
			Walk(w.Cond, fn)
			Walk(w.Result, fn)
		}
		Walk(e.Else, fn)
	case *In:
		Walk(e.Expr, fn)
		for _, a := range e.List {
			Walk(a, fn)
		}
	case *Between:
		Walk(e.Expr, fn)
		Walk(e.Low, fn)
		Walk(e.High, fn)
	case *Like:
		Walk(e.Expr, fn)
		Walk(e.Pattern, fn)
		Walk(e.Escape, fn)
	case *Is:
		Walk(e.Expr, fn)
	case *Subscript:
		Walk(e.Expr, fn)
		Walk(e.Index, fn)
	case *FieldAccess:
		Walk(e.Expr, fn)
	}
}

func walkOrder(items []OrderItem, fn func(Expr) bool) {
	for _, it := range items {
		Walk(it.Expr, fn)
	}
}
