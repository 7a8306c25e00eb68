package lsm

import (
	"fmt"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/statetest"
)

// TestListTable: values appended (duplicates among them) come back as many
// times as they were appended (in byte order: the disk backend keeps a
// count per distinct value), DeleteIf and DeleteKey drop them, and a
// checkpoint restores them.
func TestListTable(t *testing.T) {
	files := statetest.NewMemFiles()
	b := open(t, files, 0)
	l := b.List("rows")
	key, kg := bigintKey(7)
	for _, v := range []string{"b", "a", "b", "c", "b"} {
		if err := l.Append(kg, key, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	other, okg := bigintKey(8)
	if err := l.Append(okg, other, []byte("z")); err != nil {
		t.Fatal(err)
	}
	values := func(l state.ListTable, kg int, key []byte) string {
		t.Helper()
		var got []string
		if err := l.RangeList(kg, key, func(v []byte) bool { got = append(got, string(v)); return true }); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(got)
	}
	if got := values(l, kg, key); got != "[a b b b c]" {
		t.Errorf("values %s, want [a b b b c]", got)
	}
	if err := l.DeleteIf(kg, key, func(v []byte) bool { return string(v) == "a" }); err != nil {
		t.Fatal(err)
	}
	h := cut(t, b, files, 1)
	if err := l.DeleteKey(okg, other); err != nil {
		t.Fatal(err)
	}
	if got := values(l, okg, other); got != "[]" {
		t.Errorf("a deleted key's values %s", got)
	}
	r := open(t, files, 0, h)
	rl := r.List("rows")
	if got := values(rl, kg, key); got != "[b b b c]" {
		t.Errorf("restored values %s, want [b b b c]", got)
	}
	if got := values(rl, okg, other); got != "[z]" {
		t.Errorf("restored values %s, want [z]", got)
	}
	var keys [][]byte
	if err := rl.Keys(kg, func(k []byte) bool { keys = append(keys, slices.Clone(k)); return true }); err != nil || len(keys) == 0 {
		t.Errorf("Keys: %d, %v", len(keys), err)
	}
	if err := b.List("ttl", state.TTL(1)).Append(kg, key, nil); err == nil {
		t.Error("a list table with a TTL appended")
	}
}
