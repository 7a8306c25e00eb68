package types

import (
	"math"
	"testing"
)

func TestComparator(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		t    Type
		a, b Value
		want int
	}{
		{"int", BigInt(), Int64(-3), Int64(2), -1},
		{"double NaN above all", Double(), Float64(nan), Float64(math.Inf(1)), 1},
		{"double -0 = 0", Double(), Float64(math.Copysign(0, -1)), Float64(0), 0},
		{"decimal", DecimalType(10, 2), DecimalValue(NewDecimal(150, 2)), DecimalValue(NewDecimal(15, 1)), 0},
		{"string by byte", String(), Str("B"), Str("a"), -1},
		{"timestamp", TimestampType(3), TimestampValue(Timestamp{Millis: 5}), TimestampValue(Timestamp{Millis: 5, NanoOfMilli: 1}), -1},
		{"array: NULL first", Array(Int()), List([]Value{{}}), List([]Value{Int64(1)}), -1},
		{"array: shorter first", Array(Int()), List([]Value{Int64(1)}), List([]Value{Int64(1), Int64(0)}), -1},
		{"row by field", RowType(Field{Name: "a", Type: Int()}, Field{Name: "b", Type: String()}),
			List([]Value{Int64(1), Str("b")}), List([]Value{Int64(1), Str("a")}), 1},
		{"map in any order", Map(Int(), String()),
			MapValue(&MapData{Keys: []Value{Int64(1), Int64(2)}, Values: []Value{Str("x"), Str("y")}}),
			MapValue(&MapData{Keys: []Value{Int64(2), Int64(1)}, Values: []Value{Str("y"), Str("x")}}), 0},
		{"multiset counts differ", Multiset(String()),
			MapValue(&MapData{Keys: []Value{Str("a")}, Values: []Value{Int64(1)}}),
			MapValue(&MapData{Keys: []Value{Str("a")}, Values: []Value{Int64(2)}}), 1},
	}
	for _, c := range cases {
		if got := Comparator(c.t)(c.a, c.b); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}

func TestNullsFirst(t *testing.T) {
	cmp := Comparator(Int())
	if NullsFirst(Value{}, Int64(math.MinInt64), cmp) != -1 || NullsFirst(Int64(0), Value{}, cmp) != 1 || NullsFirst(Value{}, Value{}, cmp) != 0 {
		t.Fatal("NULL is not first")
	}
}
