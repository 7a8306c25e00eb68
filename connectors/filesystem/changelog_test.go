package filesystem

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	_ "github.com/streamsql/streamsql/formats/cdc"
)

// TestChangeEventFileKeepsEveryRow reads a debezium-json file whose UPDATE
// events hold two rows each: every row, with its kind, in file order, also
// when a record's rows do not fit the batch they start in.
func TestChangeEventFileKeepsEveryRow(t *testing.T) {
	dir := t.TempDir()
	var text []byte
	var want []string
	// Enough updates that some record straddles the end of a batch.
	for i := range readBatch + 3 {
		id := string(rune('a' + i%26))
		text = append(text, `{"before":{"id":1,"name":"`+id+`0"},"after":{"id":1,"name":"`+id+`1"},"op":"u"}`+"\n"...)
		want = append(want, "-U 1|"+id+"0", "+U 1|"+id+"1")
	}
	text = append(text, `{"before":null,"after":{"id":2,"name":"x"},"op":"c"}`+"\n"...)
	text = append(text, `{"before":{"id":2,"name":"x"},"after":null,"op":"d"}`+"\n"...)
	want = append(want, "+I 2|x", "-D 2|x")
	if err := os.WriteFile(filepath.Join(dir, "changes.json"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := factory.Default.Validate(factory.Table{Name: "t", Options: map[string]string{
		"connector": "filesystem", "path": dir, "format": "debezium-json",
	}})
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(Config{Path: dir}, columns, optFormat.Get(v.Config))
	if err != nil {
		t.Fatal(err)
	}
	splits, err := src.Splits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var states []connector.SplitState
	for _, s := range splits {
		states = append(states, connector.SplitState{ID: s.ID})
	}
	r, err := src.Open(ctx, connector.TaskInfo{}, states)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		rows, err := r.Read(ctx)
		for _, rw := range rows {
			got = append(got, rw.Kind.String()+" "+rowString(rw, columns))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("read %d rows, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
}
