package heap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/state"
	"github.com/streamsql/streamsql/state/statetest"
)

// upperCodec keeps values in upper case in memory and in lower case in
// snapshots; Cut counts its cuts, and a conversion of a value starting
// with "bad" fails.
type upperCodec struct{ cuts int }

func (c *upperCodec) Internal(dst, v []byte) ([]byte, error) {
	return append(dst, bytes.ToUpper(v)...), nil
}

func (c *upperCodec) Cut() func(dst, v []byte) ([]byte, error) {
	c.cuts++
	return func(dst, v []byte) ([]byte, error) {
		if bytes.HasPrefix(v, []byte("BAD")) {
			return dst, errors.New("a bad value")
		}
		return append(dst, bytes.ToLower(v)...), nil
	}
}

// TestRecode: a value table with a codec holds its restored values in the
// operator's form and writes every value into snapshots in the plain one,
// so that a backend without the codec restores them as written; a failed
// conversion fails the snapshot's write; a table with a TTL refuses one.
func TestRecode(t *testing.T) {
	files := statetest.NewMemFiles()
	snap := func(b *Backend, id int64) (state.Handle, error) {
		s, err := b.Snapshot(id)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Release()
		return s.Write(context.Background(), files, fmt.Sprintf("chk-%d/", id))
	}
	restore := func(h state.Handle) *Backend {
		return openTest(t, state.Config{Restore: []state.Handle{h}, Files: files})
	}
	get := func(tab state.ValueTable, i int64) string {
		k, kg := bigintKey(i)
		v, ok, err := tab.Get(kg, k)
		if err != nil || !ok {
			t.Fatalf("key %d: %v, %v", i, ok, err)
		}
		return string(v)
	}

	b := openTest(t, state.Config{})
	tab := b.Value("v")
	for i := range int64(300) {
		k, kg := bigintKey(i)
		if err := tab.Put(kg, k, fmt.Appendf(nil, "value-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := snap(b, 1)
	if err != nil {
		t.Fatal(err)
	}

	r := restore(h)
	c := &upperCodec{}
	rtab := r.Value("v")
	if err := rtab.(state.Recoder).Recode(c); err != nil {
		t.Fatal(err)
	}
	if got := get(rtab, 7); got != "VALUE-7" {
		t.Fatalf("a restored value after Recode: %q, want it converted", got)
	}
	k, kg := bigintKey(1000)
	if err := rtab.Put(kg, k, []byte("NEW")); err != nil {
		t.Fatal(err)
	}
	h2, err := snap(r, 2)
	if err != nil {
		t.Fatal(err)
	}
	if c.cuts != 1 {
		t.Fatalf("%d cuts for one snapshot", c.cuts)
	}
	plain := restore(h2).Value("v")
	for i := range int64(300) {
		if got, want := get(plain, i), fmt.Sprintf("value-%d", i); got != want {
			t.Fatalf("key %d restored without the codec: %q, want %q", i, got, want)
		}
	}
	if got := get(plain, 1000); got != "new" {
		t.Fatalf("a value written in the operator's form restored without the codec: %q, want %q", got, "new")
	}

	if err := rtab.Put(kg, k, []byte("BAD")); err != nil {
		t.Fatal(err)
	}
	if _, err := snap(r, 3); err == nil || !strings.Contains(err.Error(), "a bad value") {
		t.Fatalf("a snapshot whose conversion failed: %v", err)
	}

	if err := rtab.(state.Recoder).Recode(c); err == nil {
		t.Error("a second codec was taken")
	}
	timed := openTest(t, state.Config{}).Value("t", state.TTL(time.Hour))
	if err := timed.(state.Recoder).Recode(&upperCodec{}); err == nil {
		t.Error("a table with a TTL took a codec")
	}
}
