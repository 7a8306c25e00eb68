package filesystem_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/filesystem"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/job"
	"github.com/streamsql/streamsql/types"
)

// logLines returns the lines of the log file path that contain substr.
func logLines(t *testing.T, path, substr string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}

// badInput is a json input file: good records, records that are not JSON
// (the format cannot decode them) and records with a NULL id, which the
// sink's NOT NULL column rejects.
type badInput struct {
	text     string
	good     []string // the good records' lines, as the sink writes them
	bad      []int64  // byte offsets of the undecodable records
	badLines []int    // their line numbers
	rejected []int64  // byte offsets of the rejected records
	rejLines []int
}

// makeBadInput returns n records: record i (line i+1) is good, except
// every 5th from 2 is not JSON and every 7th from 3 has a NULL id.
func makeBadInput(n int) badInput {
	var in badInput
	var b strings.Builder
	for i := range n {
		off := int64(b.Len())
		switch {
		case i%5 == 2:
			fmt.Fprintf(&b, `{"id":%d,"name":`+"\n", i) // cut short
			in.bad, in.badLines = append(in.bad, off), append(in.badLines, i+1)
		case i%7 == 3:
			fmt.Fprintf(&b, `{"id":null,"name":"r%d"}`+"\n", i)
			in.rejected, in.rejLines = append(in.rejected, off), append(in.rejLines, i+1)
		default:
			line := fmt.Sprintf(`{"id":%d,"name":"n%d"}`, i, i)
			b.WriteString(line + "\n")
			in.good = append(in.good, line)
		}
	}
	in.text = b.String()
	return in
}

// badRecordSQL is a filesystem → filesystem job whose source has the
// given 'scan.bad-record.policy' ("" leaves it unset).
func badRecordSQL(in, out, policy, extra string) string {
	opt := ""
	if policy != "" {
		opt = `, 'scan.bad-record.policy' = '` + policy + `'`
	}
	return `CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = '` + in + `',
  'format' = 'json'` + opt + extra + `);
CREATE TABLE snk (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'filesystem', 'path' = '` + out + `', 'format' = 'json');
INSERT INTO snk SELECT id, name FROM src;
`
}

// committedLines returns the lines of the visible files under dir, sorted.
func committedLines(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			out = append(out, sc.Text())
		}
		return sc.Err()
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runBadRecordJob(t *testing.T, sql string, logs io.Writer) (*job.Job, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if logs == nil {
		logs = io.Discard
	}
	j, err := job.Compile(ctx, "bad.sql", sql, job.Options{Registry: job.NewRegistry(),
		Set:    map[string]string{"restart-strategy.type": "none", "execution.checkpointing.dir": filepath.Join(t.TempDir(), "ckpt")},
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return j, j.Run(ctx)
}

// TestBadRecordOptions: the policy's values, its refusal of dead-letter
// and of bad values naming table, option and the supported values, and
// the contradiction with Flink's 'json.ignore-parse-errors'.
func TestBadRecordOptions(t *testing.T) {
	dir := t.TempDir()
	reg := factory.Default.Clone()
	ctx := context.Background()
	for _, opts := range []map[string]string{
		{"scan.bad-record.policy": "fail"},
		{"scan.bad-record.policy": "skip"},
		{"scan.bad-record.policy": "SKIP"},
		{"scan.bad-record.policy": "skip", "json.ignore-parse-errors": "true"},
		{"json.ignore-parse-errors": "true"},
		{"scan.bad-record.policy": "fail", "json.ignore-parse-errors": "false"},
	} {
		if _, _, err := reg.CreateSource(ctx, fsTable(dir, opts)); err != nil {
			t.Errorf("%v: %v", opts, err)
		}
	}
	for _, c := range []struct {
		opts map[string]string
		want []string
	}{
		{map[string]string{"scan.bad-record.policy": "dead-letter"}, []string{"cat.db.files", "scan.bad-record.policy", "dead-letter", "fail", "skip"}},
		{map[string]string{"scan.bad-record.policy": "drop"}, []string{"cat.db.files", "scan.bad-record.policy", "drop", "fail", "skip"}},
		{map[string]string{"scan.bad-record.policy": "fail", "json.ignore-parse-errors": "true"},
			[]string{"cat.db.files", "'json.ignore-parse-errors' = 'true' contradicts 'scan.bad-record.policy' = 'fail'"}},
		{map[string]string{"scan.bad-record.dead-letter.topic": "t"}, []string{"cat.db.files", "scan.bad-record.dead-letter.topic"}},
	} {
		_, _, err := reg.CreateSource(ctx, fsTable(dir, c.opts))
		var te *factory.TableError
		if !errors.As(err, &te) {
			t.Errorf("%v: got %v, want a table error", c.opts, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not contain %q", c.opts, err, w)
			}
		}
	}
	// A Config made in code is checked too.
	_, err := filesystem.NewSource(filesystem.Config{Path: dir, Table: "t", BadRecordPolicy: 2}, nil, nil)
	if !errors.Is(err, filesystem.ErrConfig) || !strings.Contains(err.Error(), "'scan.bad-record.policy' = 'dead-letter'") {
		t.Errorf("NewSource with the dead-letter policy: %v", err)
	}
}

// TestBadRecordPolicyFail: by default the job fails at the first bad
// record, naming the file, its byte offset and line and the format's
// reason; the good records before it are not lost to a later run (the
// filesystem sink commits only at checkpoints, so nothing is written).
func TestBadRecordPolicyFail(t *testing.T) {
	for _, policy := range []string{"", "fail"} {
		dir := t.TempDir()
		in := makeBadInput(10)
		writeFile(t, filepath.Join(dir, "in"), "a.json", in.text)
		_, err := runBadRecordJob(t, badRecordSQL(filepath.Join(dir, "in"), filepath.Join(dir, "out"), policy, ""), nil)
		want := fmt.Sprintf("file a.json, record at byte offset %d (line %d): json: ", in.bad[0], in.badLines[0])
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("policy %q: job error %v; want it to contain %q", policy, err, want)
		}
	}
}

// TestBadRecordNotNullFail: a NULL for the NOT NULL sink column fails the
// job by default, naming the file, line and byte offset of its record.
func TestBadRecordNotNullFail(t *testing.T) {
	dir := t.TempDir()
	text := `{"id":1,"name":"a"}` + "\n" + `{"id":null,"name":"b"}` + "\n"
	writeFile(t, filepath.Join(dir, "in"), "a.json", text)
	_, err := runBadRecordJob(t, badRecordSQL(filepath.Join(dir, "in"), filepath.Join(dir, "out"), "fail", ""), nil)
	for _, w := range []string{"id", "file a.json line 2 (byte offset 20)"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("job error %v; want it to contain %q", err, w)
		}
	}
}

// TestBadRecordPolicySkip: skip drops the records the format cannot
// decode and those whose row the NOT NULL column rejects, counts them in
// the task's metrics, writes every good record once, and logs at a
// bounded rate naming file, line and byte offset.
func TestBadRecordPolicySkip(t *testing.T) {
	dir := t.TempDir()
	in := makeBadInput(200)
	writeFile(t, filepath.Join(dir, "in"), "a.json", in.text)
	writeFile(t, filepath.Join(dir, "in", "sub"), "b.json", in.text)
	logPath := filepath.Join(dir, "job.log")
	logs, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	start := time.Now()
	j, err := runBadRecordJob(t, badRecordSQL(filepath.Join(dir, "in"), filepath.Join(dir, "out"), "skip", ""), logs)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	var skipped, dead int64
	readers := 0
	for _, ts := range j.Status().Tasks {
		skipped += ts.BadSkipped
		dead += ts.DeadLettered
		if ts.BadSkipped > 0 {
			readers++
		}
	}
	if want := int64(2 * (len(in.bad) + len(in.rejected))); skipped != want || dead != 0 {
		t.Errorf("skipped %d, dead-lettered %d; want %d skipped", skipped, dead, want)
	}
	want := slices.Concat(in.good, in.good)
	slices.Sort(want)
	if got := committedLines(t, filepath.Join(dir, "out")); !slices.Equal(got, want) {
		t.Errorf("output has %d lines, want the %d good records", len(got), len(want))
	}
	lines := logLines(t, logPath, "filesystem source: skipped a record (table 'default_catalog.default_database.src', 'scan.bad-record.policy' = 'skip')")
	if len(lines) == 0 {
		t.Fatal("nothing logged about skipped records")
	}
	first := fmt.Sprintf(".json line=%d offset=%d reason=decode", in.badLines[0], in.bad[0])
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, first) }) {
		t.Errorf("messages %q; want one about the first bad record, containing %q", lines, first)
	}
	// Every skipped record is accounted for: each message is about one
	// and counts those not logged before it, and a reader that ends says
	// how many it did not log since its last message.
	var accounted int64
	for _, l := range logLines(t, logPath, "filesystem source: skipped") {
		m := notLogged.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("message without the count of those not logged: %q", l)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		if strings.Contains(l, "skipped a record") {
			n++
		}
		accounted += n
	}
	if accounted != skipped {
		t.Errorf("the messages account for %d skipped records, want %d", accounted, skipped)
	}
	// Each reader logs its first bad record at once, then at most one
	// message per 10 s.
	if limit := readers * (1 + int(elapsed/(10*time.Second))); len(lines) > limit {
		t.Errorf("%d messages from %d readers in %v; want at most %d (one per 10 s each)", len(lines), readers, elapsed, limit)
	}
}

// notLogged finds the count of records a message says were not logged.
var notLogged = regexp.MustCompile(`not_logged_since_last_message=(\d+)`)

// TestBadRecordSkipCSVLines: csv records may span lines; the line a bad
// record is reported on counts every line feed before it, and a quote
// left open at the end of a file is a bad record skip skips.
func TestBadRecordSkipCSVLines(t *testing.T) {
	dir := t.TempDir()
	text := "1,\"a\nb\",1.00,1\n" + "x,c,2.00,2\n" + "3,d,3.00,3\n" + "4,\"open,4.00,4\n"
	writeFile(t, dir, "a.csv", text)
	reg := factory.Default.Clone()
	ctx := context.Background()
	src, _, err := reg.CreateSource(ctx, fsTable(dir, map[string]string{"format": "csv"}))
	if err != nil {
		t.Fatal(err)
	}
	r := openAll(t, src)
	var derr *filesystem.DecodeError
	for err == nil {
		_, err = r.Read(ctx)
	}
	r.Close()
	if !errors.As(err, &derr) || derr.Line != 3 || derr.Offset != 15 || !strings.Contains(err.Error(), "(line 3): csv:") {
		t.Fatalf("fail: read error %v; want a DecodeError at line 3, byte offset 15, with the format's reason", err)
	}
	src, _, err = reg.CreateSource(ctx, fsTable(dir, map[string]string{"format": "csv", "scan.bad-record.policy": "skip"}))
	if err != nil {
		t.Fatal(err)
	}
	r = openAll(t, src)
	got := drain(t, r, []types.Type{types.BigInt(), types.String(), types.DecimalType(10, 2), types.Int()})
	if want := []string{"+I[1, a\nb, 1.00, 1]", "+I[3, d, 3.00, 3]"}; !slices.Equal(got, want) {
		t.Errorf("skip read %q, want %q", got, want)
	}
	if s, d := r.(connector.BadRecordCounter).BadRecords(); s != 2 || d != 0 {
		t.Errorf("BadRecords() = %d, %d; want 2 skipped (a bad id, a quote open at the end)", s, d)
	}
	// The state after the skipped quote is the end of the file.
	st, err := r.Snapshot(1)
	if err != nil || len(st) != 1 || string(st[0].State) != string([]byte{0, 0, 0, 0, 0, 0, 0, byte(len(text))}) {
		t.Errorf("state after the file %v, %v; want its end, %d", st, err, len(text))
	}
}
