package types

import (
	"fmt"
	"testing"
)

// TestValueString checks that %v of a Value shows a list's elements (its
// slice header is held by pointer), as test keys made with %v rely on.
func TestValueString(t *testing.T) {
	row := List([]Value{Int64(2), Str("x"), {}, List([]Value{Bool(true)}), List(nil)})
	want := "{10 0 0  [{2 0 2  <nil>} {5 0 0 x <nil>} {0 0 0  <nil>} {10 0 0  [{1 0 1  <nil>}]} {10 0 0  []}]}"
	if got := fmt.Sprintf("%v", row); got != want {
		t.Errorf("%%v = %s, want %s", got, want)
	}
	if a, b := fmt.Sprint(List([]Value{Int64(1)})), fmt.Sprint(List([]Value{Int64(1)})); a != b {
		t.Errorf("equal lists print differently: %s, %s", a, b)
	}
}
