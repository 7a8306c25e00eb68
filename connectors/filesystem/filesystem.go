// Package filesystem is the filesystem connector: a bounded source that
// reads the files under a directory, and a sink whose writes are the
// two-phase commit of the seed article made with files.
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
// The tag is derived from the job and table names, so that several jobs may
// write into one directory without removing each other's files; the run id
// is random per run, so that restarted runs never reuse a name.
//
// PARTITIONED BY columns become "col=value" directories (Hive-style escaped;
// NULL is partition.default-name) and are not written into the files.
package filesystem

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/streamsql/streamsql/types"
)

// Encoder writes the fields of one row as one line, without the line
// terminator, appending to dst. Formats (json, csv, raw) implement it.
type Encoder interface {
	Encode(dst []byte, fields []types.Value) ([]byte, error)
}

// Decoder reads the fields of one row from one line (without terminator)
// into fields, which has one entry per data column. line is valid only
// during the call: values must not keep references into it.
type Decoder interface {
	Decode(line []byte, fields []types.Value) error
}

// Config is the connector's validated configuration, with Flink's option
// names.
type Config struct {
	// Path is path: a directory, as a plain path or a file:// URI.
	Path string
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
	// ColumnNames are the names of the table's physical columns.
	ColumnNames []string
	// DefaultPartitionName is partition.default-name, the directory value
	// of a NULL partition column (default __DEFAULT_PARTITION__).
	DefaultPartitionName string
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

// validate fills defaults and resolves the path.
func (c *Config) validate() error {
	dir, err := LocalPath(c.Path)
	if err != nil {
		return err
	}
	c.Path = dir
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
	for _, k := range c.PartitionKeys {
		if k < 0 || k >= len(c.ColumnNames) {
			return fmt.Errorf("%w: partition column index %d out of range", ErrConfig, k)
		}
	}
	return nil
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
		return "", fmt.Errorf("%w: path %q: scheme %q is not supported (use a plain path or file://)", ErrConfig, path, u.Scheme)
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

// escapePartitionValue escapes a partition value for a directory name the
// way Hive (and Flink's filesystem connector) do: characters that are unsafe
// in paths become %XX.
func escapePartitionValue(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unescapePartitionValue reverses escapePartitionValue.
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
