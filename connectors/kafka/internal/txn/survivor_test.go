package txn

import "testing"

func TestInstanceOf(t *testing.T) {
	for _, c := range []struct {
		base, id, inst string
		ok             bool
	}{
		{"job", "job-a-0-1", "a", true},
		{"job", "job-orders-0-2-7", "orders-0", true}, // a StatefulSet pod name
		{"job", "job-0-1", "", false},                 // <base>-<task>-<slot>: no instance
		{"job", "jobs-a-0-1", "", false},
		{"job", "job-a-x-1", "", false},
		{"job", "job-a-01-1", "", false},
		{"job", "job-a-1", "", false},
	} {
		inst, ok := instanceOf(c.base, c.id)
		if inst != c.inst || ok != c.ok {
			t.Errorf("instanceOf(%q, %q) = %q, %v; want %q, %v", c.base, c.id, inst, ok, c.inst, c.ok)
		}
	}
}
