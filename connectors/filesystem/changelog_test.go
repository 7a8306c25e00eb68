package filesystem

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	_ "github.com/streamsql/streamsql/formats/cdc"
	"github.com/streamsql/streamsql/types"
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

// TestChangelogFormatSinkWritesEveryKind writes +I, -U, +U and -D rows with
// debezium-json (the planner sends an updating query's rows to a
// filesystem sink with a changelog format, as Flink does) and reads them
// back as the changes they are; with json, which writes inserts only, a -U row is
// an error naming the format.
func TestChangelogFormatSinkWritesEveryKind(t *testing.T) {
	dir := t.TempDir()
	format := func(name string) *factory.Format {
		v, err := factory.Default.Validate(factory.Table{Name: "t", Options: map[string]string{
			"connector": "filesystem", "path": dir, "format": name,
		}})
		if err != nil {
			t.Fatal(err)
		}
		return optFormat.Get(v.Config)
	}
	s, err := NewSink(Config{Path: dir, Table: "out"}, columns, format("debezium-json"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Open(ctx, connector.TaskInfo{Job: "job", Index: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	kinded := func(k types.RowKind, id int64, name string) types.Row {
		r := row(id, name)
		r.Kind = k
		return r
	}
	in := []types.Row{kinded(types.Insert, 1, "a"), kinded(types.UpdateBefore, 1, "a"), kinded(types.UpdateAfter, 1, "b"),
		kinded(types.Insert, 2, "x"), kinded(types.Delete, 2, "x")}
	if err := w.Write(ctx, in); err != nil {
		t.Fatalf("writing a changelog with debezium-json: %v", err)
	}
	cs, err := w.PreCommit(ctx, 1)
	if err != nil || len(cs) != 1 {
		t.Fatalf("PreCommit = %d committables, %v; want 1", len(cs), err)
	}
	cm, err := s.Committer(ctx, "job")
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Commit(ctx, cs[0]); err != nil {
		t.Fatal(err)
	}
	w.Close()
	src, err := NewSource(Config{Path: dir}, columns, format("debezium-json"))
	if err != nil {
		t.Fatal(err)
	}
	splits, err := src.Splits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var states []connector.SplitState
	for _, sp := range splits {
		states = append(states, connector.SplitState{ID: sp.ID})
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
	// debezium-json writes -U as a delete and +U as a create, as Flink's
	// does.
	want := []string{"+I 1|a", "-D 1|a", "+I 1|b", "+I 2|x", "-D 2|x"}
	if !slices.Equal(got, want) {
		t.Fatalf("read back %q, want %q", got, want)
	}

	js, err := NewSink(Config{Path: t.TempDir(), Table: "out"}, columns, format("json"))
	if err != nil {
		t.Fatal(err)
	}
	jw, err := js.Open(ctx, connector.TaskInfo{Job: "job", Index: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer jw.Close()
	if err := jw.Write(ctx, in[:2]); err == nil || !strings.Contains(err.Error(), "format 'json' writes inserts only") {
		t.Fatalf("writing a -U row with json: %v, want an error naming the format", err)
	}
}
