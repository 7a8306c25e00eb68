package print

import (
	"bytes"
	"context"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

func TestSinkPrefixes(t *testing.T) {
	row := types.Row{Fields: []types.Value{types.Int64(7)}}
	cases := []struct {
		id          string
		index, para int
		want        string
	}{
		{"", 0, 1, "+I[7]\n"},
		{"", 1, 2, "2> +I[7]\n"},
		{"orders", 0, 1, "orders> +I[7]\n"},
		{"orders", 2, 3, "orders:3> +I[7]\n"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		s := NewTo(Config{Identifier: c.id}, []types.Type{types.BigInt()}, &out)
		w, err := s.Open(context.Background(), connector.TaskInfo{Index: c.index, Parallelism: c.para})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(context.Background(), []types.Row{row}); err != nil {
			t.Fatal(err)
		}
		if cs, err := w.PreCommit(context.Background(), 1); err != nil || cs != nil {
			t.Fatalf("PreCommit = %v, %v; want no committables", cs, err)
		}
		if got := out.String(); got != c.want {
			t.Errorf("identifier %q task %d/%d printed %q, want %q", c.id, c.index, c.para, got, c.want)
		}
	}
}
