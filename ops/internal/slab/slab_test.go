package slab

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestSlabsReusedOnlyAfterReuse: without Reuse every slab is new; with it,
// the rows after a Release are cut from the same slabs, in order, and no
// more than Kept slabs are kept.
func TestSlabsReusedOnlyAfterReuse(t *testing.T) {
	var s Slabs
	a := s.Take(4)
	a[0] = types.Int64(1)
	s.Release()
	if b := s.Take(4); &b[0] == &a[0] {
		t.Fatal("a slab was reused without Reuse")
	}
	var r Slabs
	r.Reuse()
	first := r.Take(4)
	r.Release()
	if again := r.Take(4); &again[0] != &first[0] {
		t.Fatal("after Reuse and Release the next row is not cut from the first slab")
	}
	r.Release()
	perSlab := 4096 / (4 * 24)
	for range (Kept + 2) * perSlab {
		r.Take(4)
	}
	if len(r.kept) != Kept {
		t.Errorf("%d slabs kept, want at most %d", len(r.kept), Kept)
	}
	if f := r.Take(3); len(f) != 3 || cap(f) != 3 {
		t.Errorf("Take(3): len %d cap %d", len(f), cap(f))
	}
}
