package errlist

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestFlatten(t *testing.T) {
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	wrapped := fmt.Errorf("w: %w", c)
	for _, tc := range []struct {
		name string
		err  error
		want []error
	}{
		{"nil", nil, nil},
		{"single", a, []error{a}},
		{"joined", errors.Join(a, b), []error{a, b}},
		{"nested, in order", errors.Join(a, errors.Join(b, wrapped)), []error{a, b, wrapped}},
		{"wrapped error kept whole", wrapped, []error{wrapped}},
	} {
		if got := Flatten(tc.err); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Flatten = %v, want %v", tc.name, got, tc.want)
		}
	}
}
