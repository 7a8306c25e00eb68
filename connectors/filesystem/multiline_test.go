package filesystem

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/csv"
	"github.com/streamsql/streamsql/types"
)

// multilineValues are STRING values that the csv format writes quoted and
// spanning lines.
var multilineValues = []string{"a\nb", "c\r\nd", "q\"\"\n\"x", "\n", "\r\n", "end\n\n", "#not a comment\n#x", "plain"}

// TestCSVRoundTripLineBreaks writes rows whose STRING values contain line
// breaks through the sink and reads them back through the source.
func TestCSVRoundTripLineBreaks(t *testing.T) {
	dir := t.TempDir()
	s := newSink(t, Config{Path: dir, Extension: ".csv"})
	w, err := s.Open(ctx, connector.TaskInfo{Job: "job", Index: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	var rows []types.Row
	var want []string
	for i, v := range multilineValues {
		rows = append(rows, row(int64(i), v))
		want = append(want, strings.Join([]string{string(rune('0' + i)), v}, ","))
	}
	if err := w.Write(ctx, rows); err != nil {
		t.Fatal(err)
	}
	cs, err := w.PreCommit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	cm, _ := s.Committer(ctx, "job")
	for _, c := range cs {
		if err := cm.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(want)
	if got := readRows(t, dir, Config{}, columns); !slices.Equal(got, want) {
		t.Fatalf("read back %q\nwant %q", got, want)
	}
}

// csvFormatWith is the csv format with the given csv.* options.
func csvFormatWith(t *testing.T, opts map[string]string) *factory.Format {
	t.Helper()
	o := map[string]string{"connector": "filesystem", "path": "/unused", "format": "csv"}
	maps.Copy(o, opts)
	v, err := factory.Default.Validate(factory.Table{Name: "t", Options: o})
	if err != nil {
		t.Fatal(err)
	}
	return optFormat.Get(v.Config)
}

// readAll reads every split of a source from its start, or from the given
// states, and returns the rows as "f|g" strings and the error that ended
// the read, if any.
func readAll(t *testing.T, src *Source, states []connector.SplitState) ([]string, error) {
	t.Helper()
	if states == nil {
		splits, err := src.Splits(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range splits {
			states = append(states, connector.SplitState{ID: s.ID})
		}
	}
	r, err := src.Open(ctx, connector.TaskInfo{}, states)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for {
		rows, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		for _, rw := range rows {
			out = append(out, rowString(rw, src.columns))
		}
		if err != nil {
			return out, err
		}
	}
}

// rowString writes a row of src's columns (integer and string columns) as
// its fields joined by "|".
func rowString(rw types.Row, cols []types.Field) string {
	var parts []string
	for i, f := range rw.Fields {
		switch {
		case f.IsNull():
			parts = append(parts, "null")
		case cols[i].Type.IsString():
			parts = append(parts, f.Str())
		default:
			parts = append(parts, strconv.FormatInt(f.Int64(), 10))
		}
	}
	return strings.Join(parts, "|")
}

// streamDeviations are the golden cases (options, input) where the source
// deliberately reads a file differently from Flink's filesystem csv reader.
var streamDeviations = map[string]string{
	"[csv.allow-comments=false csv.ignore-parse-errors=false] 1a,1\n\n2b,2\r\n":                         "empty lines are skipped (Flink fails on them unless allow-comments is set)",
	"[csv.allow-comments=false csv.escape-character=\\ csv.ignore-parse-errors=false] 1a,1\n\n2b,2\r\n": "empty lines are skipped (Flink fails on them unless allow-comments is set)",
}

func init() {
	for _, o := range []string{"csv.allow-comments=false", "csv.allow-comments=true", "csv.allow-comments=false csv.escape-character=\\", "csv.allow-comments=true csv.escape-character=\\"} {
		streamDeviations["["+o+" csv.ignore-parse-errors=false] x,1\r\"y\r\",2\n"] =
			"a lone carriage return does not end a record: records end at line feeds"
	}
}

// TestFlinkStreamGolden reads the files of formats/csv/testdata/flink/stream.txt,
// which Flink's filesystem csv reader (CsvReaderFormat) read with the rows
// listed, and checks that the source reads the same rows, and fails where
// Flink fails.
func TestFlinkStreamGolden(t *testing.T) {
	f, err := os.Open("../../formats/csv/testdata/flink/stream.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type gcase struct {
		opts  map[string]string
		key   string
		input []byte
		rows  []string
		fails bool
	}
	var cases []gcase
	var opts map[string]string
	var optText string
	var cur *gcase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		word, rest, _ := strings.Cut(sc.Text(), " ")
		switch word {
		case "options":
			opts, optText = map[string]string{}, rest
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				opts[k] = v
			}
		case "case":
			if rest != "ROW<`f` STRING, `g` INT>" {
				t.Fatalf("unexpected row type %s", rest)
			}
			cases = append(cases, gcase{opts: opts})
			cur = &cases[len(cases)-1]
		case "input":
			cur.input, err = base64.StdEncoding.DecodeString(rest)
			if err != nil {
				t.Fatal(err)
			}
			cur.key = "[" + optText + "] " + string(cur.input)
		case "row":
			var spec []*string
			if err := json.Unmarshal([]byte(rest), &spec); err != nil || len(spec) != 2 {
				t.Fatalf("row %s: %v", rest, err)
			}
			s := "null"
			if spec[0] != nil {
				b, err := base64.StdEncoding.DecodeString(*spec[0])
				if err != nil {
					t.Fatal(err)
				}
				s = string(b)
			}
			g := "null"
			if spec[1] != nil {
				g = *spec[1]
			}
			cur.rows = append(cur.rows, s+"|"+g)
		case "error":
			cur.fails = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 40 {
		t.Fatalf("read %d cases, want at least 40", len(cases))
	}
	seen := map[string]bool{}
	cols := []types.Field{{Name: "f", Type: types.String()}, {Name: "g", Type: types.Int()}}
	for _, c := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "data.csv"), c.input, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := NewSource(Config{Path: dir}, cols, csvFormatWith(t, c.opts))
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, src, nil)
		var problem string
		switch {
		case c.fails && err == nil:
			problem = fmt.Sprintf("Flink fails after %q, we read %q", c.rows, got)
		case !c.fails && err != nil:
			problem = fmt.Sprintf("Flink reads %q, we read %q and fail: %v", c.rows, got, err)
		case !slices.Equal(got, c.rows):
			problem = fmt.Sprintf("Flink reads %q, we read %q (error %v)", c.rows, got, err)
		}
		if err != nil && !errors.As(err, new(*DecodeError)) {
			problem = fmt.Sprintf("error %v is not a *DecodeError", err)
		}
		if reason, ok := streamDeviations[c.key]; ok {
			seen[c.key] = true
			if problem == "" {
				t.Errorf("%q: listed as a deviation (%s) but we now read as Flink", c.key, reason)
			}
			continue
		}
		if problem != "" {
			t.Errorf("%q: %s", c.key, problem)
		}
	}
	for k := range streamDeviations {
		if !seen[k] {
			t.Errorf("deviation %q matches no golden case", k)
		}
	}
}

// TestCSVRestoreBeforeMultilineRecord checkpoints a reader in the middle of
// a file, where the next record spans lines, and checks that the state is
// that record's exact offset and that a restored reader reads every
// remaining row once.
func TestCSVRestoreBeforeMultilineRecord(t *testing.T) {
	dir := t.TempDir()
	var file []byte
	var want []string
	var boundary int
	for i := range readBatch + 10 {
		v := fmt.Sprintf("v%d", i)
		rec := fmt.Sprintf("%d,%s\n", i, v)
		if i == readBatch {
			boundary = len(file)
			v = "first\r\nsecond \"quoted\"\n\nthird,"
			rec = fmt.Sprintf("%d,\"first\r\nsecond \"\"quoted\"\"\n\nthird,\"\r\n", i)
		}
		file = append(file, rec...)
		want = append(want, fmt.Sprintf("%d|%s", i, v))
	}
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(Config{Path: dir}, columns, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := src.Open(ctx, connector.TaskInfo{}, []connector.SplitState{{ID: "a.csv"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first, err := r.Read(ctx)
	if err != nil || len(first) != readBatch {
		t.Fatalf("first Read = %d rows, %v; want %d", len(first), err, readBatch)
	}
	var got []string
	for _, rw := range first {
		got = append(got, rowString(rw, columns))
	}
	state, err := r.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	if off := binary.BigEndian.Uint64(state[0].State); off != uint64(boundary) {
		t.Fatalf("state offset %d, want %d (the start of the multi-line record)", off, boundary)
	}
	rest, err := readAll(t, src, state)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, rest...)
	if !slices.Equal(got, want) {
		t.Fatalf("read %d rows, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	if rest[0] != want[readBatch] {
		t.Fatalf("restored reader read %q first, want %q", rest[0], want[readBatch])
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestCSVFileBoundaries reads records that span lines at the start and end
// of files, the last without a line terminator, across several files.
func TestCSVFileBoundaries(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.csv": "1,\"a\nfirst\"\n2,\"a last\n\"",
		"b.csv": "3,\"b\r\nonly\"\r\n",
		"c.csv": "4,\"\"\"\n\"\"\"\n5,x",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := NewSource(Config{Path: dir}, columns, csvFormat(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, src, nil)
	want := []string{"1|a\nfirst", "2|a last\n", "3|b\r\nonly", "4|\"\n\"", "5|x"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("read %q, %v; want %q", got, err, want)
	}
}

// TestCSVUnterminatedQuote checks that a quote never closed before the end
// of the file is a DecodeError at the record's offset, after the rows
// before it, also with ignore-parse-errors.
func TestCSVUnterminatedQuote(t *testing.T) {
	for _, ignore := range []string{"false", "true"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte("1,x\n2,\"y\n\n3,z\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := NewSource(Config{Path: dir}, columns, csvFormatWith(t, map[string]string{"csv.ignore-parse-errors": ignore}))
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, src, nil)
		var de *DecodeError
		if !errors.As(err, &de) || de.File != "a.csv" || de.Offset != 4 || !errors.Is(err, csv.ErrUnterminatedQuote) {
			t.Fatalf("ignore-parse-errors=%s: error %v, want a DecodeError of a.csv at offset 4 wrapping csv.ErrUnterminatedQuote", ignore, err)
		}
		if !slices.Equal(got, []string{"1|x"}) {
			t.Errorf("ignore-parse-errors=%s: rows before the error %q, want [1|x]", ignore, got)
		}
		if !strings.Contains(err.Error(), "file a.csv, record at byte offset 4") {
			t.Errorf("message %q does not name the file and offset", err)
		}
	}
}

// TestCSVOptionsShapeRecords checks that the record ends follow the csv
// options: another quote character, quoting disabled, the escape character
// and comments.
func TestCSVOptionsShapeRecords(t *testing.T) {
	cases := []struct {
		opts map[string]string
		file string
		want []string
	}{
		{map[string]string{"csv.quote-character": "'"}, "1,'a\n\"b'\n2,\"c\n", []string{"1|a\n\"b", "2|\"c"}},
		{map[string]string{"csv.quote-character": "'"}, "1,'a\n", nil},
		{map[string]string{"csv.quote-character": "'"}, "1,'a\n\"b'\n", []string{"1|a\n\"b"}},
		{map[string]string{"csv.disable-quote-character": "true"}, "1,\"a\n2,b\"\n", []string{"1|\"a", "2|b\""}},
		{map[string]string{"csv.escape-character": "\\"}, "1,a\\\nb\n2,\"c\\\"\nd\"\n", []string{"1|a\nb", "2|c\"\nd"}},
		{map[string]string{"csv.allow-comments": "true"}, "# it's \"open\n1,\"#a\n#b\"\n#\n", []string{"1|#a\n#b"}},
		{map[string]string{"csv.field-delimiter": "|"}, "1|\"a|\nb\"\n", []string{"1|a|\nb"}},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := NewSource(Config{Path: dir}, columns, csvFormatWith(t, c.opts))
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, src, nil)
		if c.want == nil {
			if err == nil {
				t.Errorf("%v %q: read %q, want an error", c.opts, c.file, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%v %q: read %q, %v; want %q", c.opts, c.file, got, err, c.want)
		}
	}
}

// TestJSONAndRawStayLineBased checks that json and raw files are still one
// record per line: quotes do not join lines.
func TestJSONAndRawStayLineBased(t *testing.T) {
	format := func(name string) *factory.Format {
		v, err := factory.Default.Validate(factory.Table{Name: "t", Options: map[string]string{
			"connector": "filesystem", "path": "/unused", "format": name}})
		if err != nil {
			t.Fatal(err)
		}
		return optFormat.Get(v.Config)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("\"a\nb\"\r\n\nc\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(Config{Path: dir}, []types.Field{{Name: "s", Type: types.String()}}, format("raw"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, src, nil)
	if want := []string{"\"a", "b\"", "c\""}; err != nil || !slices.Equal(got, want) {
		t.Errorf("raw: read %q, %v; want %q", got, err, want)
	}

	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte("{\"id\":1,\"name\":\"x\\ny\"}\r\n{\"id\":2,\"name\":\"\\\"\"}\n{\"id\":3,\"name\":\"a\nb\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err = NewSource(Config{Path: dir}, columns, format("json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err = readAll(t, src, nil)
	var de *DecodeError
	if want := []string{"1|x\ny", "2|\""}; !slices.Equal(got, want) || !errors.As(err, &de) || de.Offset != 45 {
		t.Errorf("json: read %q, %v; want %q, then a DecodeError at offset 45 (a raw line break splits the third record)", got, err, want)
	}
}
