package expr

import (
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Expr is a node of the scalar-expression IR. The concrete nodes are
// [*Literal], [*ColumnRef], [*Call], [*Cast] and [*Case].
//
// Type returns the node's result type, nullability included. It is valid
// for literals and column references as built, and for the other nodes once
// [Resolve] has returned them. String renders the node as Flink SQL.
type Expr interface {
	Type() types.Type
	String() string
	isExpr()
}

// Literal is a constant of a known type. A NULL literal has a zero Val; its
// type is [types.Null] when untyped.
type Literal struct {
	Typ types.Type
	Val types.Value
}

// ColumnRef reads field Index of the input row. Name is used only for
// printing.
type ColumnRef struct {
	Index int
	Name  string
	Typ   types.Type
}

// Call applies a function or an operator to its arguments. Name is the
// upper-cased function name or one of the operator names listed in the
// package documentation ("+", "=", "AND", "IS NULL", "BETWEEN", "IN",
// "LIKE", "ITEM", ...). Unit is set for the forms that take a time unit:
// CEIL/FLOOR(x TO unit), EXTRACT(unit FROM x), TIMESTAMPADD and
// TIMESTAMPDIFF. Returning is set for JSON_VALUE(... RETURNING type); its
// zero value (KindInvalid) means the default, STRING.
type Call struct {
	Name      string
	Args      []Expr
	Unit      TimeUnit
	Returning types.Type

	typ  types.Type
	fn   *funcDef
	user *Function // a Go function's call (UserFn)
}

// Cast converts Expr to Target. A TRY_CAST (Try set) yields NULL where a
// CAST fails.
type Cast struct {
	Expr   Expr
	Target types.Type
	Try    bool
}

// When is one WHEN ... THEN ... branch of a [Case].
type When struct {
	Cond   Expr
	Result Expr
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE ...] END. With an
// Operand, each When.Cond is compared to it for equality (simple CASE);
// without, each When.Cond is a boolean condition (searched CASE). A nil Else
// means ELSE NULL.
type Case struct {
	Operand Expr
	Whens   []When
	Else    Expr

	typ types.Type
}

func (*Literal) isExpr()   {}
func (*ColumnRef) isExpr() {}
func (*Call) isExpr()      {}
func (*Cast) isExpr()      {}
func (*Case) isExpr()      {}

// Type returns the literal's type.
func (l *Literal) Type() types.Type { return l.Typ }

// Type returns the column's type.
func (c *ColumnRef) Type() types.Type { return c.Typ }

// Type returns the call's result type; it is valid after [Resolve].
func (c *Call) Type() types.Type { return c.typ }

// Type returns the target type, NOT NULL when the operand is NOT NULL
// (except for TRY_CAST, which is always nullable).
func (c *Cast) Type() types.Type {
	t := c.Target
	t.NotNull = !c.Try && c.Expr != nil && c.Expr.Type().NotNull
	return t
}

// Type returns the CASE's result type; it is valid after [Resolve].
func (c *Case) Type() types.Type { return c.typ }

// TimeUnit is a unit of the temporal forms: CEIL/FLOOR(x TO unit),
// EXTRACT(unit FROM x), TIMESTAMPADD(unit, n, t) and TIMESTAMPDIFF(unit, a, b).
type TimeUnit uint8

// The time units. UnitNone marks a Call without a unit.
const (
	UnitNone TimeUnit = iota
	UnitMillennium
	UnitCentury
	UnitDecade
	UnitYear
	UnitQuarter
	UnitMonth
	UnitWeek
	UnitDay
	UnitHour
	UnitMinute
	UnitSecond
	UnitMillisecond
	UnitMicrosecond
	UnitNanosecond
	UnitDayOfWeek
	UnitDayOfYear
	UnitEpoch
)

var unitNames = [...]string{
	UnitNone: "", UnitMillennium: "MILLENNIUM", UnitCentury: "CENTURY", UnitDecade: "DECADE",
	UnitYear: "YEAR", UnitQuarter: "QUARTER", UnitMonth: "MONTH", UnitWeek: "WEEK", UnitDay: "DAY",
	UnitHour: "HOUR", UnitMinute: "MINUTE", UnitSecond: "SECOND", UnitMillisecond: "MILLISECOND",
	UnitMicrosecond: "MICROSECOND", UnitNanosecond: "NANOSECOND", UnitDayOfWeek: "DOW",
	UnitDayOfYear: "DOY", UnitEpoch: "EPOCH",
}

// String returns the SQL keyword of the unit.
func (u TimeUnit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return "TimeUnit(" + strconv.Itoa(int(u)) + ")"
}

// ParseTimeUnit returns the unit named by the SQL keyword s (case-insensitive).
func ParseTimeUnit(s string) (TimeUnit, bool) {
	s = strings.ToUpper(s)
	for i, n := range unitNames {
		if i > 0 && n == s {
			return TimeUnit(i), true
		}
	}
	switch s {
	case "DAYOFWEEK":
		return UnitDayOfWeek, true
	case "DAYOFYEAR":
		return UnitDayOfYear, true
	}
	return UnitNone, false
}

// Constructors for building IR by hand (the planner and tests).

// Lit returns a literal of type t holding v.
func Lit(t types.Type, v types.Value) *Literal { return &Literal{Typ: t, Val: v} }

// NullLit returns an untyped NULL literal.
func NullLit() *Literal { return &Literal{Typ: types.Null()} }

// Col returns a reference to field index of the input row.
func Col(index int, name string, t types.Type) *ColumnRef {
	return &ColumnRef{Index: index, Name: name, Typ: t}
}

// Fn returns a call of name (upper-cased) on args.
func Fn(name string, args ...Expr) *Call {
	return &Call{Name: strings.ToUpper(name), Args: args}
}

// FnUnit returns a call of name with a time unit.
func FnUnit(name string, unit TimeUnit, args ...Expr) *Call {
	return &Call{Name: strings.ToUpper(name), Args: args, Unit: unit}
}

// CastTo returns CAST(e AS t).
func CastTo(e Expr, t types.Type) *Cast { return &Cast{Expr: e, Target: t} }

// TryCastTo returns TRY_CAST(e AS t).
func TryCastTo(e Expr, t types.Type) *Cast { return &Cast{Expr: e, Target: t, Try: true} }

// AddInterval returns t + amount units, the IR of Flink's interval
// arithmetic: `ts - INTERVAL '5' SECOND` is AddInterval(ts, -5, UnitSecond)
// and `d + INTERVAL '1' MONTH` is AddInterval(d, 1, UnitMonth). streamsql has
// no INTERVAL type; the front end lowers interval literals to this call
// (TIMESTAMPADD), which has the same semantics (months clamp to the end of
// the month; fractional seconds become milliseconds).
func AddInterval(t Expr, amount int64, unit TimeUnit) *Call {
	return FnUnit("TIMESTAMPADD", unit, Lit(types.BigInt().NotNullable(), types.Int64(amount)), t)
}
