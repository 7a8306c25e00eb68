package filesystem_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connector"
	_ "github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/connectors/filesystem"
	"github.com/streamsql/streamsql/factory"
	_ "github.com/streamsql/streamsql/formats"
	"github.com/streamsql/streamsql/internal/javafmt"
	"github.com/streamsql/streamsql/option"
	"github.com/streamsql/streamsql/types"
)

var schema = factory.Schema{Columns: []factory.Column{
	{Name: "id", Type: types.BigInt()},
	{Name: "name", Type: types.String()},
	{Name: "amount", Type: types.DecimalType(10, 2)},
	{Name: "bucket", Type: types.Int()},
	{Name: "doubled", Type: types.BigInt(), Kind: factory.Computed, Expr: "id * 2"},
}}

// partitionKeysForTest is a pseudo option of fsTable: its ';'-separated
// value becomes the schema's PARTITIONED BY columns.
const partitionKeysForTest = "(partitioned by)"

func fsTable(dir string, opts map[string]string) factory.Table {
	all := map[string]string{"connector": "filesystem", "path": dir, "format": "json"}
	sch := schema
	for k, v := range opts {
		switch {
		case k == partitionKeysForTest:
			sch.PartitionKeys = strings.Split(v, ";")
		case v == "":
			delete(all, k)
		default:
			all[k] = v
		}
	}
	return factory.Table{Name: "cat.db.files", Schema: sch, Options: all}
}

// TestFilesystemFactoryValidation checks each kind of mistake is reported
// with the factory's typed error, for the source and the sink alike.
func TestFilesystemFactoryValidation(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		opts  map[string]string
		check func(error) bool
	}{
		{"path and format missing", map[string]string{"path": "", "format": ""}, func(err error) bool {
			var e *option.MissingOptionsError
			return errors.As(err, &e) && slices.Equal(e.Keys, []string{"format", "path"})
		}},
		{"typo with suggestion", map[string]string{"sink.rolling-policy.file-sise": "1mb"}, func(err error) bool {
			var e *option.UnsupportedOptionsError
			return errors.As(err, &e) && e.Suggestions["sink.rolling-policy.file-sise"] == "sink.rolling-policy.file-size"
		}},
		{"format option typo", map[string]string{"json.ignore-parse-error": "true"}, func(err error) bool {
			var e *option.UnsupportedOptionsError
			return errors.As(err, &e) && e.Suggestions["json.ignore-parse-error"] == "json.ignore-parse-errors"
		}},
		{"other format's option", map[string]string{"csv.field-delimiter": ";"}, func(err error) bool {
			var e *option.UnsupportedOptionsError
			return errors.As(err, &e) && slices.Contains(e.Keys, "csv.field-delimiter")
		}},
		{"size not a size", map[string]string{"sink.rolling-policy.file-size": "big"}, invalidKey("sink.rolling-policy.file-size")},
		{"interval not a duration", map[string]string{"sink.rolling-policy.rollover-interval": "soon"}, invalidKey("sink.rolling-policy.rollover-interval")},
		{"zero check interval", map[string]string{"sink.rolling-policy.check-interval": "0 s"}, ruleKey("sink.rolling-policy.check-interval")},
		{"zero file size", map[string]string{"sink.rolling-policy.file-size": "0"}, ruleKey("sink.rolling-policy.file-size")},
		{"parallelism 0", map[string]string{"sink.parallelism": "0"}, ruleKey("sink.parallelism")},
		{"Flink option not supported yet", map[string]string{"auto-compaction": "true"}, func(err error) bool {
			return ruleKey("auto-compaction")(err) && strings.Contains(err.Error(), "not supported yet")
		}},
		{"metastore policy", map[string]string{"sink.partition-commit.policy.kind": "metastore,success-file"}, func(err error) bool {
			return ruleKey("sink.partition-commit.policy.kind")(err) && strings.Contains(err.Error(), "Hive")
		}},
		{"custom policy", map[string]string{"sink.partition-commit.policy.kind": "custom", "sink.partition-commit.policy.class": "a.B"}, func(err error) bool {
			return ruleKey("sink.partition-commit.policy.class")(err) && strings.Contains(err.Error(), "custom partition commit policies are not supported yet")
		}},
		{"unknown trigger", map[string]string{"sink.partition-commit.trigger": "whenever"}, invalidKey("sink.partition-commit.trigger")},
		{"negative delay", map[string]string{"sink.partition-commit.delay": "-1 min"}, func(err error) bool {
			return invalidKey("sink.partition-commit.delay")(err) || ruleKey("sink.partition-commit.delay")(err)
		}},
		{"bad time zone", map[string]string{"sink.partition-commit.watermark-time-zone": "Mars/Olympus"}, ruleKey("sink.partition-commit.watermark-time-zone")},
		{"success file in a subdirectory", map[string]string{"sink.partition-commit.success-file.name": "a/_OK"}, ruleKey("sink.partition-commit.success-file.name")},
		{"custom time extractor", map[string]string{"partition.time-extractor.kind": "custom"}, ruleKey("partition.time-extractor.kind")},
		{"bad timestamp formatter", map[string]string{"partition.time-extractor.timestamp-formatter": "yyyy-'MM"}, ruleKey("partition.time-extractor.timestamp-formatter")},
		{"parallelism not a number", map[string]string{"sink.parallelism": "x"}, invalidKey("sink.parallelism")},
		{"unsupported scheme", map[string]string{"path": "gs://bucket/t"}, ruleKey("path")},
		{"bad bucket", map[string]string{"path": "s3://Bad_Bucket/t"}, ruleKey("path")},
		{"default partition name with slash", map[string]string{"partition.default-name": "a/b"}, ruleKey("partition.default-name")},
		{"unknown format", map[string]string{"format": "parquet"}, func(err error) bool {
			var e *factory.UnknownFactoryError
			return errors.As(err, &e) && e.Key == "format" && e.Identifier == "parquet"
		}},
		{"partition key not a column", map[string]string{partitionKeysForTest: "bukket"}, isConfigErr},
		{"partition key computed", map[string]string{partitionKeysForTest: "doubled"}, isConfigErr},
		{"every column a partition", map[string]string{partitionKeysForTest: "id;name;amount;bucket"}, isConfigErr},
		{"partition key twice", map[string]string{partitionKeysForTest: "bucket;bucket"}, isConfigErr},
		{"avro container files", map[string]string{"format": "avro"}, func(err error) bool {
			return isConfigErr(err) && strings.Contains(err.Error(), "not supported yet")
		}},
		{"format cannot hold the columns", map[string]string{"format": "raw"}, func(err error) bool {
			return errors.As(err, new(*factory.UnsupportedTypeError))
		}},
	}
	reg := factory.Default.Clone()
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, srcErr := reg.CreateSource(ctx, fsTable(dir, c.opts))
			_, _, sinkErr := reg.CreateSink(ctx, fsTable(dir, c.opts))
			for _, err := range []error{srcErr, sinkErr} {
				var te *factory.TableError
				if !errors.As(err, &te) || !c.check(err) {
					t.Errorf("got %v", err)
				}
			}
		})
	}
}

func invalidKey(key string) func(error) bool {
	return func(err error) bool {
		var e *option.InvalidValueError
		return errors.As(err, &e) && e.Key == key
	}
}

func ruleKey(key string) func(error) bool {
	return func(err error) bool {
		var e *option.RuleError
		return errors.As(err, &e) && slices.Contains(e.Keys, key)
	}
}

func isConfigErr(err error) bool { return errors.Is(err, filesystem.ErrConfig) }

func openAll(t *testing.T, src connector.Source) connector.Reader {
	t.Helper()
	ctx := context.Background()
	splits, err := src.Splits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	states := make([]connector.SplitState, len(splits))
	for i, s := range splits {
		states[i] = connector.SplitState{ID: s.ID}
	}
	r, err := src.Open(ctx, connector.TaskInfo{Job: "job", Table: "t", Parallelism: 1}, states)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// drain reads r to the end, formatting rows as the print sink does.
func drain(t *testing.T, r connector.Reader, colTypes []types.Type) []string {
	t.Helper()
	defer r.Close()
	var out []string
	for {
		rows, err := r.Read(context.Background())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			out = append(out, javafmt.FormatRow(row, colTypes))
		}
	}
}

// TestDatagenToFilesystemRoundTrip writes datagen's rows through the
// factory-created filesystem sink (json, partitioned by bucket, small
// files), commits them, and reads them back through the factory-created
// source: the same rows, each once.
func TestDatagenToFilesystemRoundTrip(t *testing.T) {
	reg := factory.Default.Clone()
	ctx := context.Background()
	dir := t.TempDir()
	gen, _, err := reg.CreateSource(ctx, factory.Table{Name: "gen", Schema: schema, Options: map[string]string{
		"connector": "datagen", "rows-per-second": "0", "seed": "7",
		"fields.id.kind": "sequence", "fields.id.start": "1", "fields.id.end": "3000",
		"fields.name.length": "12", "fields.name.var-len": "true", "fields.name.null-rate": "0.1",
		"fields.bucket.min": "0", "fields.bucket.max": "3", "fields.bucket.null-rate": "0.05",
	}})
	if err != nil {
		t.Fatal(err)
	}
	out := fsTable("file://"+dir, map[string]string{"sink.rolling-policy.file-size": "16kb"})
	out.Schema.PartitionKeys = []string{"bucket"}
	sink, _, err := reg.CreateSink(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	twoPhase := sink.(connector.TwoPhaseSink)
	committer, err := twoPhase.Committer(ctx, "job")
	if err != nil {
		t.Fatal(err)
	}
	if err := committer.Recover(ctx, nil); err != nil {
		t.Fatal(err)
	}
	w, err := sink.Open(ctx, connector.TaskInfo{Job: "job", Table: out.Name, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	colTypes := []types.Type{types.BigInt(), types.String(), types.DecimalType(10, 2), types.Int()}
	var want []string
	r := openAll(t, gen)
	checkpoint := int64(0)
	for {
		rows, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			want = append(want, javafmt.FormatRow(row, colTypes))
		}
		if err := w.Write(ctx, rows); err != nil {
			t.Fatal(err)
		}
		checkpoint++
		cs, err := w.PreCommit(ctx, checkpoint)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if err := committer.Commit(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	r.Close()
	written := w.(connector.ByteCounter).Bytes()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var size int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, _ := d.Info()
			size += info.Size()
		}
		return err
	})
	if written != size || size == 0 {
		t.Errorf("the writer counted %d bytes, the files hold %d", written, size)
	}
	if len(want) != 3000 {
		t.Fatalf("datagen produced %d rows, want 3000", len(want))
	}
	for _, d := range []string{"bucket=0", "bucket=3", "bucket=__DEFAULT_PARTITION__"} {
		if _, err := os.Stat(filepath.Join(dir, d)); err != nil {
			t.Errorf("partition directory %s: %v", d, err)
		}
	}
	src, _, err := reg.CreateSource(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	reader := openAll(t, src)
	got := drain(t, reader, colTypes)
	if n := reader.(connector.ByteCounter).Bytes(); n != size {
		t.Errorf("the reader counted %d bytes, the files hold %d", n, size)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("read back %d rows, wrote %d; first read %q, first written %q", len(got), len(want), got[:min(3, len(got))], want[:3])
	}
	// The files hold json without the partition column.
	matches, _ := filepath.Glob(filepath.Join(dir, "bucket=1", "part-job_cat_db_files_*.json"))
	if len(matches) == 0 {
		t.Fatalf("no part files named part-job_cat_db_files_<hash>-*.json in bucket=1")
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != '{' || strings.Contains(string(b), `"bucket"`) {
		t.Errorf("file content does not look like json rows without the partition column: %.80s", b)
	}
}

// TestSkippedRecordsAreCounted reads a json file with ignore-parse-errors:
// the bad and empty records are skipped and counted, the others read.
func TestSkippedRecordsAreCounted(t *testing.T) {
	dir := t.TempDir()
	data := `{"id":1,"name":"a"}` + "\n" + `{"id":` + "\n" + "null\n" + `{"id":2,"name":"b"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "data.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := factory.Default.Clone()
	src, _, err := reg.CreateSource(context.Background(), fsTable(dir, map[string]string{"json.ignore-parse-errors": "true"}))
	if err != nil {
		t.Fatal(err)
	}
	colTypes := []types.Type{types.BigInt(), types.String(), types.DecimalType(10, 2), types.Int()}
	got := drain(t, openAll(t, src), colTypes)
	want := []string{"+I[1, a, null, null]", "+I[2, b, null, null]"}
	if !slices.Equal(got, want) {
		t.Fatalf("read %q, want %q", got, want)
	}
	if n := src.(*filesystem.Source).Skipped(); n != 2 {
		t.Fatalf("Skipped() = %d, want 2 (a bad record and a null one)", n)
	}
	// Without ignore-parse-errors the bad record fails the read, naming
	// the file and the line's offset.
	src, _, err = reg.CreateSource(context.Background(), fsTable(dir, nil))
	if err != nil {
		t.Fatal(err)
	}
	r := openAll(t, src)
	defer r.Close()
	var de *filesystem.DecodeError
	for {
		_, err := r.Read(context.Background())
		if err == nil {
			continue
		}
		if !errors.As(err, &de) || de.File != "data.json" || de.Offset != int64(len(`{"id":1,"name":"a"}`)+1) {
			t.Fatalf("read error %v, want a DecodeError at data.json offset 20", err)
		}
		break
	}
}

// TestEveryTypeRoundTripsThroughJSON generates every column type datagen
// supports, writes it as json through the filesystem sink and reads it
// back: the values read equal the values written.
func TestEveryTypeRoundTripsThroughJSON(t *testing.T) {
	cols := []factory.Column{
		{Name: "b", Type: types.Boolean()},
		{Name: "ti", Type: types.TinyInt()},
		{Name: "si", Type: types.SmallInt()},
		{Name: "i", Type: types.Int()},
		{Name: "bi", Type: types.BigInt()},
		{Name: "f", Type: types.Float()},
		{Name: "d", Type: types.Double()},
		{Name: "dec", Type: types.DecimalType(12, 3)},
		{Name: "c", Type: types.Char(4)},
		{Name: "vc", Type: types.VarChar(9)},
		{Name: "s", Type: types.String()},
		{Name: "bin", Type: types.Binary(3)},
		{Name: "vb", Type: types.Bytes()},
		{Name: "dt", Type: types.Date()},
		{Name: "tm", Type: types.Time(0)}, // Flink's json writes TIME as HH:mm:ss
		{Name: "ts", Type: types.TimestampType(6)},
		{Name: "ltz", Type: types.TimestampLTZ(3)},
		{Name: "arr", Type: types.Array(types.Int())},
		{Name: "m", Type: types.Map(types.String(), types.BigInt())},
		{Name: "ms", Type: types.Multiset(types.String())},
		{Name: "r", Type: types.RowType(types.Field{Name: "x", Type: types.Int()}, types.Field{Name: "y", Type: types.String()})},
	}
	schema := factory.Schema{Columns: cols}
	colTypes := make([]types.Type, len(cols))
	for i, c := range cols {
		colTypes[i] = c.Type
	}
	reg := factory.Default.Clone()
	ctx := context.Background()
	gen, _, err := reg.CreateSource(ctx, factory.Table{Name: "gen", Schema: schema, Options: map[string]string{
		"connector": "datagen", "rows-per-second": "0", "number-of-rows": "200", "seed": "3",
		"fields.s.length": "20", "fields.vb.length": "5", "fields.s.null-rate": "0.2",
		"fields.dt.max-past": "3650 d", "fields.ts.max-past": "1 d", "fields.ltz.max-past": "1 d",
	}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := factory.Table{Name: "out", Schema: schema, Options: map[string]string{"connector": "filesystem", "path": dir, "format": "json"}}
	sink, _, err := reg.CreateSink(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	cm, _ := sink.(connector.TwoPhaseSink).Committer(ctx, "job")
	w, err := sink.Open(ctx, connector.TaskInfo{Job: "job", Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	r := openAll(t, gen)
	for {
		rows, err := r.Read(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			want = append(want, javafmt.FormatRow(row, colTypes))
		}
		if err := w.Write(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	cs, err := w.PreCommit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if err := cm.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	src, _, err := reg.CreateSource(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, openAll(t, src), colTypes)
	if len(got) != len(want) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d read back as\n%s\nwritten as\n%s", i, got[i], want[i])
		}
	}
}
