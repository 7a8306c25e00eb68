// Package types is streamsql's shared data model: Flink's logical type system
// (the column types a CREATE TABLE declares) and the row value model that
// flows through the runtime.
//
// The types to learn first: [Type] (a logical type: a [Kind] and its
// parameters), [Value] (one field, the zero Value being NULL) and [Row]
// (a change kind and positional fields). [Decimal] and [Timestamp] are the
// exact values behind DECIMAL and the TIMESTAMP types.
//
// Every other package uses these types: ddl produces them from SQL text, the
// planner type-checks expressions with them, formats encode and decode rows of
// them, and connectors written by embedders receive rows of them.
//
// # Logical types
//
// A [Type] is a value: a [Kind], nullability, and the parameters that kind
// takes (length, precision, scale, element, key and value types, row fields).
// [Type.String] prints the type the way Flink's summary string does, for
// example "DECIMAL(10, 2) NOT NULL" or "ROW<`a` INT, `b` STRING>".
//
// # Values
//
// A [Row] is a change kind ([RowKind], as Flink's RowKind) and positional
// fields of type [Value]. A Value is a small tagged union that holds every
// scalar without allocating; the zero Value is SQL NULL. The Go
// representation of each logical type is fixed:
//
//	BOOLEAN                      Value.Bool
//	TINYINT, SMALLINT, INT,      Value.Int64 (range checked by the producer
//	BIGINT                       against the column type)
//	FLOAT, DOUBLE                Value.Float64 (FLOAT holds a float32 exactly)
//	DECIMAL(p, s)                Value.Decimal: exact, unscaled integer + scale
//	CHAR, VARCHAR, STRING        Value.Str
//	BINARY, VARBINARY, BYTES     Value.Bytes
//	DATE                         Value.Date: days since 1970-01-01
//	TIME(p)                      Value.Time: nanoseconds since midnight
//	TIMESTAMP(p)                 Value.Timestamp: a local date-time, stored as
//	                             if it were UTC (Flink's TimestampData)
//	TIMESTAMP_LTZ(p)             Value.Timestamp: an instant since the epoch
//	ARRAY<T>, MULTISET<T>'s keys Value.List: []Value
//	MAP<K, V>, MULTISET<T>       Value.Map: *MapData (parallel key and value
//	                             lists; a multiset maps element to INT count)
//	ROW<...>                     Value.List: []Value in field order
//	INTERVAL YEAR TO MONTH       Value.Int64: months
//	INTERVAL DAY TO SECOND       Value.Int64: milliseconds
//
// Which accessor is valid follows from the column's declared Type, which the
// holder of a Row always knows; Values do not carry their logical type.
package types
