package state

import (
	"testing"
)

// TestKeyGroupOfIsFixed pins the hash (values computed independently, by
// FNV-1a 64 and murmur3's fmix64 written in Python): checkpoints store state by key group,
// so a change of KeyGroupOf would send restored keys to the wrong task.
func TestKeyGroupOfIsFixed(t *testing.T) {
	cases := []struct {
		key  string
		want uint64
	}{
		{"", 0xefd01f60ba992926},
		{"a", 0x82a2a958a9bece5b},
		{"nexmark", 0xa1097584ce223f1b},
	}
	for _, c := range cases {
		if got := Hash([]byte(c.key)); got != c.want {
			t.Errorf("Hash(%q) = %#x, want %#x", c.key, got, c.want)
		}
	}
}

func TestKeyGroupsSpread(t *testing.T) {
	const g = DefaultMaxParallelism
	counts := make([]int, g)
	for i := range 100000 {
		counts[KeyGroupOf([]byte{byte(i), byte(i >> 8), byte(i >> 16)}, g)]++
	}
	for kg, n := range counts {
		// 781 expected per group; a good hash stays well within 20%.
		if n < 625 || n > 940 {
			t.Fatalf("key group %d got %d of 100000 keys", kg, n)
		}
	}
}

func TestRangeOfMatchesTaskOf(t *testing.T) {
	for _, g := range []int{1, 7, 128, 1000} {
		for n := 1; n <= min(g, 40); n++ {
			next := 0
			for task := range n {
				r := RangeOf(task, n, g)
				if r.Start != next {
					t.Fatalf("g=%d n=%d task %d: range %v does not start at %d", g, n, task, r, next)
				}
				for kg := r.Start; kg < r.End; kg++ {
					if got := TaskOf(kg, n, g); got != task {
						t.Fatalf("g=%d n=%d: key group %d is in task %d's range %v but TaskOf says %d", g, n, kg, task, r, got)
					}
				}
				next = r.End
			}
			if next != g {
				t.Fatalf("g=%d n=%d: ranges end at %d", g, n, next)
			}
		}
	}
}

func TestKeyGroupRangeIntersect(t *testing.T) {
	a := KeyGroupRange{0, 64}
	if got := a.Intersect(KeyGroupRange{32, 128}); got != (KeyGroupRange{32, 64}) {
		t.Fatalf("got %v", got)
	}
	if got := a.Intersect(KeyGroupRange{64, 128}); got.Len() != 0 {
		t.Fatalf("got %v, want empty", got)
	}
}
