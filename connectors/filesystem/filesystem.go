// Package filesystem is the filesystem connector: a bounded source that
// reads the files under a directory, and a sink whose writes are the
// two-phase commit of the seed article made with files. Importing the
// package registers it in factory.Default as 'filesystem'.
//
//	CREATE TABLE events (id BIGINT, name STRING, dt STRING)
//	PARTITIONED BY (dt)
//	WITH (
//	  'connector' = 'filesystem',
//	  'path'      = 'file:///data/events',
//	  'format'    = 'json',
//	  'sink.rolling-policy.file-size' = '64mb'
//	)
//
// # Options
//
//   - path (String, required): the directory, a plain path or a file:// URI,
//     or a bucket and key prefix of S3-compatible object storage,
//     s3://bucket/prefix (see "Object storage" below).
//   - format (required): json, csv or raw. json and raw files hold one
//     record per line; a csv record may span lines when a quoted field
//     contains line breaks (see Source). The format's options are written
//     with its prefix: 'json.ignore-parse-errors' = 'true'.
//   - sink.rolling-policy.file-size (MemorySize, default 128mb): the
//     largest part file before rolling.
//   - sink.rolling-policy.rollover-interval (Duration, default 30 min):
//     the longest a part file stays open before rolling.
//   - sink.rolling-policy.check-interval (Duration, default 1 min): how
//     often the rollover interval is checked (on writes).
//   - partition.default-name (String, default __DEFAULT_PARTITION__): the
//     directory value of a NULL or empty partition value; reading it back
//     gives NULL.
//   - sink.parallelism (Integer, default: the upstream operator's).
//   - scan.bad-record.policy (Enum, default fail): fail or skip a record
//     the format cannot decode or whose row the job rejects (see Source).
//   - sink.partition-commit.policy.kind (String): success-file commits the
//     partitions of a partitioned table (see "Partition commit");
//     sink.partition-commit.trigger (process-time, the default, or
//     partition-time),
//     sink.partition-commit.delay (default 0), .success-file.name (default
//     _SUCCESS), .watermark-time-zone (default UTC), and
//     partition.time-extractor.timestamp-pattern and -formatter, as Flink's.
//
// The PARTITIONED BY columns come from the table's schema
// (factory.Schema.PartitionKeys); they must be string, integer, BOOLEAN,
// FLOAT, DOUBLE, DECIMAL or DATE columns, and at least one column must not
// be one.
//
// # Source
//
// The source lists the files under path when the job starts, skipping
// hidden files and directories (names starting with "." or "_"), and reads
// them one split per file. A record is a line, unless the format frames
// its records itself (factory.RecordScanner): a csv record ends at the
// first line feed outside a quoted field, as the csv format's scanner
// finds it with the format's quote-character (or disable-quote-character),
// escape-character and allow-comments options, so that the line breaks
// the csv encoder (like Flink's) writes inside quotes read back; a comment
// record (allow-comments) ends at its line's end. A line terminator is "\n"
// or "\r\n" (a lone "\r" does not end a record); empty lines are skipped.
// Records are read as a stream: a record that spans lines is collected in
// a buffer the reader reuses.
//
// A split's checkpoint state is the byte offset of its next record, always
// a record's start. Records the format asks to skip (factory.ErrSkipRecord:
// json's null records, anything unparsable with ignore-parse-errors) are
// dropped and counted (Source.Skipped). A record the format reports bad (a
// *factory.DecodeError) goes by scan.bad-record.policy (badrecord.go):
// under fail (the default) the read fails with a *DecodeError naming the
// file, the record's byte offset and line, after the rows before that
// record have been returned; under skip the record is counted
// (BadRecords) and logged at a bounded rate, and the offset moves past it,
// so a restored reader does not read it again. A csv quoted field still
// open at the end of a file is such a record (wrapping
// csv.ErrUnterminatedQuote), even with ignore-parse-errors; skip skips the
// rest of the file. Rows the pipeline rejects (a NULL for a NOT NULL sink
// column) go by the same policy (RejectRow), and their errors name the
// file, line and byte offset of their record (RowPosition). Partition
// columns take their values from the col=value directories.
//
// # Sink protocol
//
// Each sink task writes rows into an in-progress file, hidden from readers
// by its name (".part-<tag>-<run>-<task>-<n><ext>.inprogress"). The file is
// rolled — flushed, fsynced and closed, but left in-progress — when it
// reaches sink.rolling-policy.file-size or has been open for
// sink.rolling-policy.rollover-interval (checked every
// sink.rolling-policy.check-interval), and always at a checkpoint barrier.
// Rolled files are pre-committed work: each becomes a Committable naming the
// in-progress file and its final name ("part-<tag>-<run>-<task>-<n><ext>").
//
//   - Commit renames the in-progress file to its final name and fsyncs the
//     directory. A file already renamed counts as committed; a file that is
//     gone under both names is reported as lost (connector.ErrCommitLost).
//   - Abort deletes the in-progress file.
//   - Recover commits the pending renames of the restored checkpoint, then
//     deletes every in-progress file of this sink (same tag) that no
//     pending committable owns: leftovers of a run that died.
//
// A reader listing the directory therefore only ever sees complete files,
// provided it skips hidden files (names starting with "." or "_"), as this
// package's source and Flink's do.
//
// The tag is derived from the job's name and the sink's id in the job
// (connector.TaskInfo.Sink; the table's name when there is none), plus a
// hash of the exact pair, so that several jobs, and several INSERTs of one
// job into one table, may write into one directory without removing each
// other's files; the run id is random per run, so that restarted runs
// never reuse a name. The directories of a checkpoint's in-progress files
// are fsynced before its committables are returned.
//
// PARTITIONED BY columns become "col=value" directories (Hive-style escaped;
// NULL and the empty string are partition.default-name) and are not written
// into the files. New directories are fsynced into their parents.
//
// # Object storage
//
// With path = 's3://bucket/prefix' (s3a:// too) the files are objects
// under the prefix, and the job's s3.* settings configure the client
// (factory.JobContext.S3; docs/s3.md). The source lists the objects under
// the prefix (strongly consistent listings), skipping those with a hidden
// path segment and folder markers, and reads each from its byte offset
// with a ranged GET: every format it reads locally, resumed the same way.
//
// The sink's in-progress file is an uncompleted multipart upload of the
// file's final key, which no listing or read shows (Flink's recoverable
// writer for S3 works the same way). Rows collect in a buffer of one part
// (5 MiB, S3's minimum; one per open file); each full buffer is uploaded
// as the next part. Rolling (file size, rollover interval, checkpoint)
// uploads the rest as the last part: pre-commit is every part uploaded,
// and the committable records the bucket, key, upload id and each part's
// number, ETag and size.
//
//   - Commit completes the upload: the object appears, whole. An upload
//     that is no longer there was completed before when the object exists
//     with the parts' size (a commit retried after a crash): success;
//     otherwise the work is lost (connector.ErrCommitLost).
//   - Abort aborts the upload.
//   - Recover completes the pending uploads, then aborts every upload
//     under the prefix whose file name has this sink's tag and that no
//     pending committable owns.
//
// Partition directories are key segments (col=value/); there are no
// directories to create or fsync.
//
// # Partition commit
//
// Files are committed at every checkpoint whatever the options. With
// 'sink.partition-commit.policy.kind' = 'success-file' on a partitioned
// table, a partition is also committed — an empty file named
// 'sink.partition-commit.success-file.name' (_SUCCESS) written into its
// directory, telling readers it is complete — once its trigger is due:
// process-time when the clock passed the time the committer first heard
// of the partition plus 'sink.partition-commit.delay'; partition-time when
// the watermark passed the time in the partition's values plus the delay
// (read by partition.time-extractor.*, checked against Flink's
// DefaultPartTimeExtractor): the runtime hands each writer its watermark
// (connector.WatermarkWriter), the writer's report carries it, and the
// committer compares the least of a checkpoint's reports. Every pending
// partition is committed when the input ends
// (connector.InputEnder), as Flink does at the end of a bounded input.
//
// A partition is committed only after every file written into it up to
// then, by any task, is committed: each writer ends its committables with a
// report (the partitions it wrote, its watermark, whether its input ended),
// the runtime commits a checkpoint's committables in (checkpoint, task,
// position) order, and the committer acts only once it has the reports of
// every task of a checkpoint. The pending partitions are kept in
// "_streamsql-partitions-<tag>.json" at the table's root (hidden from
// readers; replaced atomically, or one object put), written before the
// report that changed them is acknowledged, so that a restarted job commits
// what an earlier run left pending (partcommit.go). A partition that gets
// rows after its commit is committed again, as in Flink.
//
// # Crash tests
//
// The package's tests run datagen → filesystem jobs under the runtime in a
// child process and SIGKILL it at each of the runtime's failure points
// (three times each) and at random times, restart it until it finishes,
// and check that the committed files hold every generated row exactly once,
// that no in-progress file is left, and that every partition of the sink
// that commits partitions (success-file, 30 ms delay) has its success file
// and nothing is left pending:
//
//	go test -run Crash -v ./connectors/filesystem/
//	STREAMSQL_SOAK=1 go test -run CrashAtRandomTimes -v ./connectors/filesystem/  # 100 kills
//
// TestS3CrashAtRandomTimes does the same to a Kafka → s3:// job with its
// checkpoints on s3://, against the S3 server scripts/test.sh starts, and
// TestS3ServerRestartMidRun kills and restarts the S3 server itself under
// a running job (docs/s3.md).
package filesystem

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connectors/internal/badrecord"
	"github.com/streamsql/streamsql/internal/s3fs"
	"github.com/streamsql/streamsql/types"
)

// Config is the connector's validated configuration, with Flink's option
// names.
type Config struct {
	// Path is path: a directory, as a plain path or a file:// URI, or a
	// bucket and key prefix of S3-compatible object storage,
	// s3://bucket/prefix.
	Path string
	// S3 configures the S3 client of an s3:// path: the job's s3.*
	// settings (factory.JobContext.S3).
	S3 s3fs.Config
	// Table is the table's catalog name. With the job's name it makes the
	// tag in the sink's file names, so that several jobs and tables can
	// share a directory.
	Table string
	// Extension is appended to part file names, for example ".json".
	Extension string
	// FileSize is sink.rolling-policy.file-size (default 128 MiB).
	FileSize int64
	// RolloverInterval is sink.rolling-policy.rollover-interval (default 30 min).
	RolloverInterval time.Duration
	// CheckInterval is sink.rolling-policy.check-interval (default 1 min).
	CheckInterval time.Duration
	// PartitionKeys are the PARTITIONED BY columns, as indexes into the
	// table's physical columns, in declaration order.
	PartitionKeys []int
	// Parallelism is sink.parallelism; 0 lets the runtime choose.
	Parallelism int
	// DefaultPartitionName is partition.default-name, the directory value
	// of a NULL or empty partition value (default __DEFAULT_PARTITION__).
	DefaultPartitionName string
	// BadRecordPolicy is scan.bad-record.policy: what a reader does with a
	// record the format cannot decode, and with a record whose row the
	// pipeline rejects for its data (badrecord.Fail, the default, or
	// badrecord.Skip).
	BadRecordPolicy badrecord.Policy
	// Commit is the sink's partition commit (sink.partition-commit.*,
	// partition.time-extractor.*).
	Commit PartitionCommit
}

// ErrConfig is wrapped by configuration errors.
var ErrConfig = errors.New("invalid filesystem configuration")

// Defaults of Flink's options.
const (
	DefaultFileSize             = 128 << 20
	DefaultRolloverInterval     = 30 * time.Minute
	DefaultCheckInterval        = time.Minute
	DefaultPartitionDefaultName = "__DEFAULT_PARTITION__"
)

// validate fills defaults, resolves the path and checks the partition
// columns against the table's physical columns.
func (c *Config) validate(columns []types.Field) error {
	if err := c.resolvePath(); err != nil {
		return err
	}
	if c.BadRecordPolicy != badrecord.Fail && c.BadRecordPolicy != badrecord.Skip {
		return fmt.Errorf("%w: table '%s': '%s' = '%s' is not supported by the filesystem source: want fail or skip",
			ErrConfig, c.Table, badrecord.Key, c.BadRecordPolicy)
	}
	if c.FileSize <= 0 {
		c.FileSize = DefaultFileSize
	}
	if c.RolloverInterval <= 0 {
		c.RolloverInterval = DefaultRolloverInterval
	}
	if c.CheckInterval <= 0 {
		c.CheckInterval = DefaultCheckInterval
	}
	if c.DefaultPartitionName == "" {
		c.DefaultPartitionName = DefaultPartitionDefaultName
	}
	if c.Commit.Trigger == "" {
		c.Commit.Trigger = triggerProcessTime
	}
	if c.Commit.SuccessFileName == "" {
		c.Commit.SuccessFileName = DefaultSuccessFileName
	}
	for i, k := range c.PartitionKeys {
		if k < 0 || k >= len(columns) {
			return fmt.Errorf("%w: partition column index %d out of range", ErrConfig, k)
		}
		if slices.Contains(c.PartitionKeys[:i], k) {
			return fmt.Errorf("%w: partition column %s is listed twice", ErrConfig, columns[k].Name)
		}
		if !partitionType(columns[k].Type) {
			return fmt.Errorf("%w: partition column %s has type %s; partition columns must be string, integer, BOOLEAN, FLOAT, DOUBLE, DECIMAL or DATE columns", ErrConfig, columns[k].Name, columns[k].Type)
		}
	}
	if len(c.PartitionKeys) > 0 && len(c.PartitionKeys) >= len(columns) {
		return fmt.Errorf("%w: every column is a partition column; the files need at least one other column", ErrConfig)
	}
	return nil
}

// resolvePath checks the path: an s3:// URI stays as it is, a local one
// becomes a plain path.
func (c *Config) resolvePath() error {
	if s3fs.IsURI(c.Path) {
		if _, err := s3fs.ParseURI(c.Path); err != nil {
			return fmt.Errorf("%w: path: %v", ErrConfig, err)
		}
		if !s3fs.HasClient() {
			return fmt.Errorf("%w: path: %v", ErrConfig, s3fs.ErrNoClient)
		}
		return nil
	}
	dir, err := LocalPath(c.Path)
	if err != nil {
		return err
	}
	c.Path = dir
	return nil
}

// CheckPath reports an error when path cannot name the table's files: a
// plain path, a file:// URI or an s3:// URI.
func CheckPath(path string) error {
	c := Config{Path: path}
	return c.resolvePath()
}

// LocalPath turns path (a plain path or a file:// URI) into a local path.
func LocalPath(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("%w: 'path' is required", ErrConfig)
	}
	if !strings.Contains(path, "://") {
		return path, nil
	}
	u, err := url.Parse(path)
	if err != nil {
		return "", fmt.Errorf("%w: path %q is not a valid URI: %v", ErrConfig, path, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("%w: path %q: scheme %q is not supported (use a plain path, file:// or s3://)", ErrConfig, path, u.Scheme)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("%w: path %q names host %q; only local files are supported", ErrConfig, path, u.Host)
	}
	return u.Path, nil
}

// hidden reports whether a file name is hidden from readers.
func hidden(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// appendEscapedPartitionValue appends partition value s escaped for a
// directory name the way Hive (and Flink's filesystem connector) do:
// characters that are unsafe in paths become %XX.
func appendEscapedPartitionValue(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for len(s) > 0 {
		// The run of characters kept as they are, appended whole.
		i := 0
		for i < len(s) && !partitionEscaped[s[i]] {
			i++
		}
		b = append(b, s[:i]...)
		if i == len(s) {
			break
		}
		c := s[i]
		b = append(b, '%', hex[c>>4], hex[c&0xf])
		s = s[i+1:]
	}
	return b
}

// partitionEscaped marks the bytes appendEscapedPartitionValue escapes:
// control characters, DEL and "#%'*/:=?\{[]^.
var partitionEscaped = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t[0x7f] = true
	for _, c := range []byte("\"#%'*/:=?\\{[]^") {
		t[c] = true
	}
	return t
}()

// unescapePartitionValue reverses appendEscapedPartitionValue.
func unescapePartitionValue(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	v, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return v
}

// partitionType reports whether a column of type t can be a partition
// column: its values must round-trip through a directory name.
func partitionType(t types.Type) bool {
	switch {
	case t.IsString(), t.IsInteger():
		return true
	}
	switch t.Kind {
	case types.KindBoolean, types.KindFloat, types.KindDouble, types.KindDecimal, types.KindDate:
		return true
	}
	return false
}

// dataFields returns the columns that are not partition columns: the
// fields the format encodes and decodes.
func dataFields(columns []types.Field, partitionKeys []int) []types.Field {
	out := make([]types.Field, 0, len(columns)-len(partitionKeys))
	for i, c := range columns {
		if !slices.Contains(partitionKeys, i) {
			out = append(out, c)
		}
	}
	return out
}
