package types

// Fits reports whether v is held the way a value of type t is (see the
// package documentation's table): NULL fits every type, an integer value
// any integer or interval type, a string CHAR and VARCHAR, a list ARRAY and
// ROW, and so on. It looks at v's representation only, not at its range,
// length or nested values: a cheap check that a row's fields are in the
// order and of the kinds its columns declare.
func (v Value) Fits(t Type) bool {
	if v.tag == tagNull {
		return true
	}
	return v.tag == tagOf(t.Kind)
}

// tagOf is the representation of values of kind k.
func tagOf(k Kind) tag {
	switch k {
	case KindBoolean:
		return tagBool
	case KindTinyInt, KindSmallInt, KindInt, KindBigInt, KindIntervalYearMonth, KindIntervalDayTime:
		return tagInt
	case KindFloat, KindDouble:
		return tagFloat
	case KindDecimal:
		return tagDecimal
	case KindChar, KindVarChar:
		return tagString
	case KindBinary, KindVarBinary:
		return tagBytes
	case KindDate:
		return tagDate
	case KindTime:
		return tagTime
	case KindTimestamp, KindTimestampLTZ:
		return tagTimestamp
	case KindArray, KindRow:
		return tagList
	case KindMap, KindMultiset:
		return tagMap
	}
	return tagNull // KindNull and KindInvalid hold only NULL
}

// HeldAs names how v is held, for messages: "NULL", "an integer", "a
// string", ...
func (v Value) HeldAs() string {
	return [...]string{tagNull: "NULL", tagBool: "a boolean", tagInt: "an integer", tagFloat: "a floating-point number",
		tagDecimal: "a decimal", tagString: "a string", tagBytes: "bytes", tagDate: "a date", tagTime: "a time of day",
		tagTimestamp: "a timestamp", tagList: "a list (ARRAY or ROW)", tagMap: "a map (MAP or MULTISET)"}[v.tag]
}
