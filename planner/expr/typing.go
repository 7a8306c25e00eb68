package expr

import (
	"github.com/streamsql/streamsql/types"
)

// This file holds Flink's type rules: numeric widening, the DECIMAL
// precision and scale of arithmetic results (Flink's LogicalTypeMerging),
// the common type of several expressions (CASE, COALESCE, IN, comparisons)
// and which casts are allowed.

// numericRank orders the numeric kinds for widening.
func numericRank(k types.Kind) int {
	switch k {
	case types.KindTinyInt:
		return 1
	case types.KindSmallInt:
		return 2
	case types.KindInt:
		return 3
	case types.KindBigInt:
		return 4
	case types.KindDecimal:
		return 5
	case types.KindFloat:
		return 6
	case types.KindDouble:
		return 7
	}
	return 0
}

// intDigits is the DECIMAL precision that holds every value of an integer
// kind, as Flink's implicit integer-to-decimal conversion uses.
func intDigits(k types.Kind) int {
	switch k {
	case types.KindTinyInt:
		return 3
	case types.KindSmallInt:
		return 5
	case types.KindInt:
		return 10
	case types.KindBigInt:
		return 19
	}
	return 0
}

// asDecimalType returns t as a DECIMAL type: itself, or the decimal that
// holds every value of an integer type.
func asDecimalType(t types.Type) types.Type {
	if t.Kind == types.KindDecimal {
		return t
	}
	d := types.DecimalType(intDigits(t.Kind), 0)
	d.NotNull = t.NotNull
	return d
}

// decimalOf returns DECIMAL(p, s), its precision capped as Flink does.
func decimalOf(p, s int, notNull bool) types.Type {
	p, s = types.AdjustDecimalPrecision(p, s)
	t := types.DecimalType(p, s)
	t.NotNull = notNull
	return t
}

// arithmeticType returns the result type of a op b for op in + - * / %,
// following Flink: integers widen to the larger integer; any FLOAT/DOUBLE
// gives the wider approximate type; otherwise DECIMAL with the precision and
// scale of Flink's LogicalTypeMerging.
func arithmeticType(op string, a, b types.Type) (types.Type, bool) {
	if !a.IsNumeric() || !b.IsNumeric() {
		return types.Type{}, false
	}
	notNull := a.NotNull && b.NotNull
	ra, rb := numericRank(a.Kind), numericRank(b.Kind)
	switch {
	case a.Kind == types.KindDouble || b.Kind == types.KindDouble:
		return withNull(types.Double(), notNull), true
	case a.Kind == types.KindFloat || b.Kind == types.KindFloat:
		return withNull(types.Float(), notNull), true
	case a.IsInteger() && b.IsInteger():
		if op == "%" {
			// MOD takes the type of its second argument (Calcite's rule).
			return withNull(b, notNull), true
		}
		if ra >= rb {
			return withNull(a, notNull), true
		}
		return withNull(b, notNull), true
	}
	da, db := asDecimalType(a), asDecimalType(b)
	p1, s1, p2, s2 := da.Precision, da.Scale, db.Precision, db.Scale
	var rule func(p1, s1, p2, s2 int) (int, int)
	switch op {
	case "+", "-":
		rule = types.DecimalAddType
	case "*":
		rule = types.DecimalMulType
	case "/":
		rule = types.DecimalDivType
	case "%":
		rule = types.DecimalModType
	default:
		return types.Type{}, false
	}
	p, s := rule(p1, s1, p2, s2)
	return decimalOf(p, s, notNull), true
}

// roundDecimalType is the type of ROUND(DECIMAL(p, s), r) (Flink's
// findRoundDecimalType).
func roundDecimalType(p, s, r int, notNull bool) types.Type {
	if r >= s {
		return withNull(types.DecimalType(p, s), notNull)
	}
	if r < 0 {
		return withNull(types.DecimalType(min(types.MaxDecimalPrecision, 1+p-s), 0), notNull)
	}
	return withNull(types.DecimalType(1+p-s+r, r), notNull)
}

func withNull(t types.Type, notNull bool) types.Type {
	t.NotNull = notNull
	return t
}

// family groups kinds that compare and merge with each other.
type family uint8

const (
	famOther family = iota
	famNull
	famBool
	famNumeric
	famString
	famBinary
	famDate
	famTime
	famTimestamp
	famArray
	famMap
	famRow
)

func familyOf(t types.Type) family {
	switch {
	case t.Kind == types.KindNull:
		return famNull
	case t.Kind == types.KindBoolean:
		return famBool
	case t.IsNumeric():
		return famNumeric
	case t.IsString():
		return famString
	case t.IsBinary():
		return famBinary
	case t.Kind == types.KindDate:
		return famDate
	case t.Kind == types.KindTime:
		return famTime
	case t.IsTimestamp():
		return famTimestamp
	case t.Kind == types.KindArray || t.Kind == types.KindMultiset:
		return famArray
	case t.Kind == types.KindMap:
		return famMap
	case t.Kind == types.KindRow:
		return famRow
	}
	return famOther
}

// commonType returns the least restrictive type of ts (Flink's
// LogicalTypeMerging.findCommonType, restricted to what implicit
// conversion allows): NULL merges with anything; integers widen; integers
// and DECIMAL merge to a DECIMAL wide enough for both; anything with
// FLOAT/DOUBLE gives DOUBLE (FLOAT when no DOUBLE); CHAR and VARCHAR merge
// to the longer VARCHAR (CHAR when all are CHAR of one length); TIMESTAMP
// and TIMESTAMP_LTZ merge to TIMESTAMP_LTZ; the precision is the largest.
// DATE does not merge with TIMESTAMP (Flink refuses DATE < TIMESTAMP).
// ARRAYs, MAPs and ROWs (of as many fields) merge element-wise, each
// element type nullable when it is on either side; ROW field names are the
// first type's. The result is nullable when any input is.
func commonType(ts ...types.Type) (types.Type, bool) { return mergeTypes(false, ts) }

// leastRestrictive is [commonType] as Flink's planner (Calcite's
// leastRestrictive) types CASE results and the elements of ARRAY[...] and
// MAP[...]. It differs for TIMESTAMP with TIMESTAMP_LTZ: the precision is
// the largest, and the kind is the later operand's when the precisions
// differ, the earlier one's when they are equal (ARRAY[ts(3), ltz(3)] is
// ARRAY<TIMESTAMP(3)>, ARRAY[ltz(3), ts(0)] is ARRAY<TIMESTAMP(3)>, as
// Flink 1.20 computes them).
func leastRestrictive(ts ...types.Type) (types.Type, bool) { return mergeTypes(true, ts) }

func mergeTypes(calcite bool, ts []types.Type) (types.Type, bool) {
	var out types.Type
	have := false
	notNull := true
	for _, t := range ts {
		notNull = notNull && t.NotNull
		if t.Kind == types.KindNull {
			notNull = false
			continue
		}
		if !have {
			out, have = t, true
			continue
		}
		m, ok := merge2(out, t, calcite)
		if !ok {
			return types.Type{}, false
		}
		out = m
	}
	if !have {
		return types.Null(), true
	}
	out.NotNull = notNull
	if out.Kind == types.KindRow && !notNull {
		out = nullableRow(out)
	}
	return out, true
}

func merge2(a, b types.Type, calcite bool) (types.Type, bool) {
	fa, fb := familyOf(a), familyOf(b)
	if fa != fb {
		return types.Type{}, false
	}
	switch fa {
	case famBool:
		return a, true
	case famNumeric:
		ra, rb := numericRank(a.Kind), numericRank(b.Kind)
		switch {
		case ra >= 6 || rb >= 6:
			if ra > rb {
				return a.Nullable(), true
			}
			return b.Nullable(), true
		case a.Kind == types.KindDecimal || b.Kind == types.KindDecimal:
			da, db := asDecimalType(a), asDecimalType(b)
			s := max(da.Scale, db.Scale)
			ip := max(da.Precision-da.Scale, db.Precision-db.Scale)
			return decimalOf(ip+s, s, false), true
		case ra >= rb:
			return a.Nullable(), true
		default:
			return b.Nullable(), true
		}
	case famString, famBinary:
		l := max(a.Length, b.Length)
		if a.Kind == b.Kind && (a.Kind == types.KindChar || a.Kind == types.KindBinary) {
			if a.Length == b.Length {
				return a.Nullable(), true
			}
		}
		if fa == famString {
			return types.VarChar(l), true
		}
		return types.VarBinary(l), true
	case famDate:
		return a.Nullable(), true
	case famTime:
		return types.Time(max(a.Precision, b.Precision)), true
	case famTimestamp:
		k := a.Kind
		switch {
		case calcite:
			if a.Precision != b.Precision {
				k = b.Kind
			}
		case b.Kind == types.KindTimestampLTZ:
			k = b.Kind
		}
		return types.Type{Kind: k, Precision: max(a.Precision, b.Precision)}, true
	case famArray:
		if a.Kind != b.Kind {
			return types.Type{}, false // ARRAY and MULTISET do not merge
		}
		e, ok := mergeTypes(calcite, []types.Type{*a.Elem, *b.Elem})
		if !ok {
			return types.Type{}, false
		}
		return types.Type{Kind: a.Kind, Elem: &e}, true
	case famMap:
		k, ok := mergeTypes(calcite, []types.Type{*a.Elem, *b.Elem})
		if !ok {
			return types.Type{}, false
		}
		v, ok := mergeTypes(calcite, []types.Type{*a.Value, *b.Value})
		if !ok {
			return types.Type{}, false
		}
		return types.Map(k, v), true
	case famRow:
		if len(a.Fields) != len(b.Fields) {
			return types.Type{}, false
		}
		fields := make([]types.Field, len(a.Fields))
		for i := range a.Fields {
			t, ok := mergeTypes(calcite, []types.Type{a.Fields[i].Type, b.Fields[i].Type})
			if !ok {
				return types.Type{}, false
			}
			fields[i] = types.Field{Name: a.Fields[i].Name, Type: t}
		}
		return types.RowType(fields...), true
	}
	return types.Type{}, false
}

// nullableRow returns the nullable ROW type t with every field nullable,
// nested ROWs included: a common type that is a nullable ROW has nullable
// fields in Flink (ARRAY[ROW(1, 'a'), NULL] is ARRAY<ROW<`EXPR$0` INT,
// `EXPR$1` CHAR(1)>>).
func nullableRow(t types.Type) types.Type {
	t.NotNull = false
	fields := make([]types.Field, len(t.Fields))
	for i, f := range t.Fields {
		if f.Type.Kind == types.KindRow {
			f.Type = nullableRow(f.Type)
		} else {
			f.Type = f.Type.Nullable()
		}
		fields[i] = f
	}
	t.Fields = fields
	return t
}

// comparable reports whether values of a and b can be compared with =, <
// and the like (after implicit widening to their common type).
func comparableTypes(a, b types.Type) bool {
	if a.Kind == types.KindNull || b.Kind == types.KindNull {
		return true
	}
	_, ok := merge2(a, b, false)
	return ok
}

// castAllowed reports whether CAST(from AS to) is valid (Flink's explicit
// cast rules, for the types streamsql represents).
func castAllowed(from, to types.Type) bool {
	if from.Kind == types.KindNull {
		return true
	}
	ff, ft := familyOf(from), familyOf(to)
	if ff == ft {
		if ff == famArray {
			return castAllowed(*from.Elem, *to.Elem)
		}
		if ff == famMap {
			return castAllowed(*from.Elem, *to.Elem) && castAllowed(*from.Value, *to.Value)
		}
		if ff == famRow {
			if len(from.Fields) != len(to.Fields) {
				return false
			}
			for i := range from.Fields {
				if !castAllowed(from.Fields[i].Type, to.Fields[i].Type) {
					return false
				}
			}
		}
		return true
	}
	if ft == famString {
		return ff != famOther
	}
	switch ff {
	case famString:
		switch ft {
		case famBool, famNumeric, famBinary, famDate, famTime, famTimestamp:
			return true
		}
	case famBool:
		return ft == famNumeric
	case famNumeric:
		// Flink 1.20 rejects numeric <-> TIMESTAMP_LTZ casts and
		// recommends TO_TIMESTAMP_LTZ.
		return ft == famBool
	case famDate:
		return ft == famTimestamp
	case famTimestamp:
		return ft == famDate || ft == famTime
	case famBinary:
		return false
	}
	return false
}
