package filesystem

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/connectors/internal/badrecord"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/internal/javatime"
	"github.com/streamsql/streamsql/types"
)

// Source reads every complete (not hidden) file under the configured path:
// json and raw one record per line, csv records that may span lines (see
// the package documentation). It is bounded. It implements connector.Source.
type Source struct {
	cfg     Config
	st      *store
	columns []types.Field // the table's physical columns
	data    []types.Field // the columns read from the files
	format  *factory.Format
	skipped atomic.Int64
}

// Source is a connector.Source (checked by the compiler).
var _ connector.Source = (*Source)(nil)

// NewSource returns a filesystem source for rows of the table's physical
// columns. Each reader decodes lines with its own decoder of format, made
// for the data columns (partition columns come from the directory names);
// a format that cannot decode them is reported here, as the format's
// *factory.UnsupportedTypeError.
func NewSource(cfg Config, columns []types.Field, format *factory.Format) (*Source, error) {
	if err := cfg.validate(columns); err != nil {
		return nil, err
	}
	if format == nil {
		return nil, fmt.Errorf("%w: a format is required", ErrConfig)
	}
	s := &Source{cfg: cfg, st: newStore(cfg), columns: columns, data: dataFields(columns, cfg.PartitionKeys), format: format}
	if _, err := format.NewDecoder(s.data); err != nil {
		return nil, err
	}
	return s, nil
}

// Skipped returns how many records the format asked to skip
// (factory.ErrSkipRecord: a record it could not decode with
// ignore-parse-errors set, or one that holds no row), over all readers.
func (s *Source) Skipped() int64 { return s.skipped.Load() }

// Bounded is true: the source reads the files present at start.
func (s *Source) Bounded() bool { return true }

// Splits returns one split per file, identified by its path relative to the
// source's directory (or key prefix), in lexical order.
func (s *Source) Splits(ctx context.Context) ([]connector.Split, error) {
	files, err := s.st.list(ctx)
	if err != nil {
		return nil, fmt.Errorf("filesystem source: listing %s: %w", s.st, err)
	}
	out := make([]connector.Split, len(files))
	for i, f := range files {
		out[i] = connector.Split{ID: f}
	}
	return out, nil
}

// Open returns a reader of the given files. A split's state is the byte
// offset of its next record (8 bytes, big endian).
func (s *Source) Open(_ context.Context, task connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	dec, err := s.format.NewDecoder(s.data)
	if err != nil {
		return nil, fmt.Errorf("filesystem source: %w", err)
	}
	// Reads of object storage run under the reader's own context, which
	// Close cancels: a Read's context may be cancelled to interrupt it,
	// and must not end the file's stream.
	rctx, cancel := context.WithCancel(context.Background())
	r := &fileReader{src: s, dec: dec, ctx: rctx, cancel: cancel, bad: badRecords{policy: s.cfg.BadRecordPolicy, table: s.cfg.Table, st: s.st,
		log: task.Logger, limit: badrecord.Log{Every: badrecord.LogInterval}}}
	if r.bad.log == nil {
		r.bad.log = slog.New(slog.DiscardHandler)
	}
	// A format whose records may span lines (csv: line breaks inside
	// quotes) says where each ends; nil: a record is a line.
	if r.sc, err = s.format.NewRecordScanner(); err != nil {
		return nil, fmt.Errorf("filesystem source: %w", err)
	}
	for _, sp := range splits {
		var off int64
		if sp.State != nil {
			if len(sp.State) != 8 {
				return nil, fmt.Errorf("filesystem source: file %s: checkpoint state has %d bytes, want 8", sp.ID, len(sp.State))
			}
			off = int64(binary.BigEndian.Uint64(sp.State))
		}
		part, err := s.partitionValues(sp.ID)
		if err != nil {
			return nil, err
		}
		r.files = append(r.files, &fileSplit{id: sp.ID, offset: off, part: part})
	}
	return r, nil
}

// partitionValues parses the col=value directories of a file's path into
// values of the partition columns, in PartitionKeys order.
func (s *Source) partitionValues(rel string) ([]types.Value, error) {
	keys := s.cfg.PartitionKeys
	if len(keys) == 0 {
		return nil, nil
	}
	found := map[string]string{}
	dirs := strings.Split(rel, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if k, v, ok := strings.Cut(d, "="); ok {
			found[k] = unescapePartitionValue(v)
		}
	}
	out := make([]types.Value, len(keys))
	for i, k := range keys {
		name := s.columns[k].Name
		raw, ok := found[name]
		if !ok {
			return nil, fmt.Errorf("filesystem source: file %s is not under a %s=... directory, but %s is a partition column", rel, name, name)
		}
		if raw == s.cfg.DefaultPartitionName {
			continue
		}
		v, err := parsePartitionValue(raw, s.columns[k].Type)
		if err != nil {
			return nil, fmt.Errorf("filesystem source: file %s: partition %s=%s: %w", rel, name, raw, err)
		}
		out[i] = v
	}
	return out, nil
}

// parsePartitionValue reads a directory value as a column value.
func parsePartitionValue(raw string, t types.Type) (types.Value, error) {
	switch {
	case t.IsString():
		return types.Str(raw), nil
	case t.IsInteger():
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return types.Value{}, err
		}
		return types.Int64(n), nil
	case t.Kind == types.KindBoolean:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return types.Value{}, err
		}
		return types.Bool(b), nil
	case t.Kind == types.KindDouble || t.Kind == types.KindFloat:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return types.Value{}, err
		}
		return types.Float64(f), nil
	case t.Kind == types.KindDecimal:
		d, err := types.ParseDecimal(raw)
		if err == nil {
			d, err = d.Rescale(t.Precision, t.Scale)
		}
		if err != nil {
			return types.Value{}, err
		}
		return types.DecimalValue(d), nil
	case t.Kind == types.KindDate:
		tm, err := parseDate(raw)
		if err != nil {
			return types.Value{}, err
		}
		return types.DateValue(int32(tm)), nil
	}
	return types.Value{}, fmt.Errorf("partition columns of type %s are not supported", t)
}

// parseDate reads a DATE partition value: an ISO date (yyyy-MM-dd, as
// java.time's LocalDate.parse), the form the sink writes.
func parseDate(raw string) (int64, error) {
	days, ok := javatime.ParseDate(raw, javatime.ISODate)
	if !ok {
		return 0, errors.New("not a date (yyyy-MM-dd)")
	}
	return days, nil
}

type fileSplit struct {
	id     string
	offset int64
	part   []types.Value
}

type fileReader struct {
	bytes atomic.Int64 // bytes read, for metrics
	src   *Source
	dec   factory.Decoder
	files []*fileSplit
	cur   int
	f     io.ReadCloser
	br    *bufio.Reader
	// ctx is the reader's own context for reads of object storage;
	// cancel ends it (Close).
	ctx    context.Context
	cancel context.CancelFunc
	err    error                 // the error that stopped reading, returned by every later Read
	sc     factory.RecordScanner // nil: one record per line
	long   []byte                // a record longer than one ReadSlice
	bad    badRecords            // applies 'scan.bad-record.policy'
	// The file of the last batch Read returned, and the byte offset of
	// each of its rows' records (RowPosition, RejectRow).
	batchFile string
	rowOff    []int64
}

// The connector capabilities fileReader means to have (checked by the compiler).
var (
	_ connector.Reader           = (*fileReader)(nil)
	_ connector.BadRowHandler    = (*fileReader)(nil)
	_ connector.BadRecordCounter = (*fileReader)(nil)
	_ connector.ByteCounter      = (*fileReader)(nil)
	_ connector.RowPositioner    = (*fileReader)(nil)
)

// readBatch is the most rows one Read returns.
const readBatch = 512

// Read returns the next records of the current file as rows, moving on to the
// next file at the end of one; io.EOF after the last.
func (r *fileReader) Read(ctx context.Context) ([]types.Row, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	for r.cur < len(r.files) {
		fsp := r.files[r.cur]
		if r.f == nil {
			f, err := r.src.st.open(r.ctx, fsp.id, fsp.offset)
			if err != nil {
				return nil, fmt.Errorf("filesystem source: %w", err)
			}
			r.f, r.br = f, bufio.NewReaderSize(f, 64<<10)
		}
		rows, err := r.readRecords(fsp)
		if err != nil {
			// The rows before the failing record are returned first;
			// the offset stays at the start of that record.
			r.err = err
			if len(rows) > 0 {
				return rows, nil
			}
			return nil, err
		}
		if len(rows) > 0 {
			return rows, nil
		}
		r.f.Close()
		r.f, r.br = nil, nil
		r.cur++
	}
	return nil, io.EOF
}

// readRecords decodes the next records of the current file, at most
// readBatch; none at its end.
func (r *fileReader) readRecords(fsp *fileSplit) ([]types.Row, error) {
	nData := len(r.src.data)
	// One allocation for the fields of the whole batch; rows slice it.
	slab := make([]types.Value, nData*readBatch)
	rows := make([]types.Row, 0, readBatch)
	begin := fsp.offset
	defer func() { r.bytes.Add(fsp.offset - begin) }()
	r.batchFile, r.rowOff = fsp.id, r.rowOff[:0]
	for len(rows) < readBatch {
		rec, content, err := r.next()
		if len(rec) > 0 {
			start := fsp.offset
			if r.sc != nil {
				// Only at the end of the file: say, a quote never closed.
				if open := r.sc.Unterminated(); open != nil {
					if derr := r.bad.decodeFailed(fsp.id, start, open); derr != nil {
						return rows, derr
					}
					fsp.offset += int64(len(rec)) // skipped: the rest of the file
					return rows, nil
				}
			}
			fsp.offset += int64(len(rec))
			if len(content) == 0 {
				continue
			}
			n := len(rows)
			row := types.Row{Fields: slab[n*nData : (n+1)*nData : (n+1)*nData]}
			if derr := r.dec.Decode(content, &row); derr != nil {
				if errors.Is(derr, factory.ErrSkipRecord) {
					clear(row.Fields)
					r.src.skipped.Add(1)
					continue
				}
				clear(row.Fields)
				if derr := r.bad.decodeFailed(fsp.id, start, derr); derr != nil {
					fsp.offset = start
					return rows, derr
				}
				continue
			}
			row.Fields = r.merge(row.Fields, fsp.part)
			rows = append(rows, row)
			r.rowOff = append(r.rowOff, start)
			if multi, ok := r.dec.(factory.MultiRowDecoder); ok {
				// A change event may hold more rows (a Debezium UPDATE is
				// an UPDATE_BEFORE and an UPDATE_AFTER): all of them go in
				// this batch, so that a checkpoint's offset never falls
				// inside a record. Past the slab they get fields of their own.
				for {
					n := len(rows)
					var more types.Row
					if n < readBatch {
						more.Fields = slab[n*nData : (n+1)*nData : (n+1)*nData]
					} else {
						more.Fields = make([]types.Value, nData)
					}
					if !multi.Next(&more) {
						break
					}
					more.Fields = r.merge(more.Fields, fsp.part)
					rows = append(rows, more)
					r.rowOff = append(r.rowOff, start)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, fmt.Errorf("filesystem source: reading %s: %w", fsp.id, err)
		}
	}
	return rows, nil
}

// next reads the next record of the current file: rec is all its bytes,
// content the record without its line terminator. Both are valid until the
// next call. At the end of the file err is io.EOF, possibly with a last
// record that has no line terminator.
//
// Without a record scanner (json, raw) a record is a line. With one (csv) a
// record ends at the first line feed the scanner says ends it; the lines
// of a record that spans lines are collected in r.long, which is reused.
func (r *fileReader) next() (rec, content []byte, err error) {
	multi := false
	if r.sc != nil {
		r.sc.Reset()
	}
	for {
		chunk, err := r.br.ReadSlice('\n')
		end := false
		if len(chunk) > 0 {
			if r.sc != nil {
				// ReadSlice returns at most one line feed, at the end.
				_, end = r.sc.Feed(chunk)
			} else {
				end = chunk[len(chunk)-1] == '\n'
			}
		}
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			// The reader fails; the state still names this record's start.
			return nil, nil, err
		}
		if end || errors.Is(err, io.EOF) {
			rec = chunk
			if multi {
				r.long = append(r.long, chunk...)
				rec = r.long
			}
			return rec, r.content(rec, end), err
		}
		// The record goes on: keep what ReadSlice returned, which the
		// next call overwrites.
		if !multi {
			multi = true
			r.long = r.long[:0]
		}
		r.long = append(r.long, chunk...)
	}
}

// content strips the line terminator of a record that ended with one.
func (r *fileReader) content(rec []byte, ended bool) []byte {
	if r.sc == nil {
		return bytes.TrimRight(rec, "\r\n")
	}
	if ended {
		return rec[:len(rec)-r.sc.Terminator()]
	}
	return rec
}

// merge places the data fields and the partition values at their column
// positions.
func (r *fileReader) merge(data, part []types.Value) []types.Value {
	keys := r.src.cfg.PartitionKeys
	if len(keys) == 0 {
		return data
	}
	out := make([]types.Value, len(r.src.columns))
	di := 0
	for i := range out {
		if j := slices.Index(keys, i); j >= 0 {
			out[i] = part[j]
			continue
		}
		out[i] = data[di]
		di++
	}
	return out
}

// RowPosition implements connector.RowPositioner: the file, line and byte
// offset of the record row i of the last batch was decoded from.
func (r *fileReader) RowPosition(i int) string {
	if i < 0 || i >= len(r.rowOff) {
		return ""
	}
	return position(r.src.st, r.batchFile, r.rowOff[i])
}

// RejectRow implements connector.BadRowHandler: under
// 'scan.bad-record.policy' = 'skip' the record of row i of the last batch,
// which the pipeline rejected with err, is skipped, counted and logged.
func (r *fileReader) RejectRow(i int, err error) bool {
	if i < 0 || i >= len(r.rowOff) {
		return false
	}
	return r.bad.rejected(r.batchFile, r.rowOff[i], err)
}

// BadRecords implements connector.BadRecordCounter: the records
// 'scan.bad-record.policy' skipped so far (the source has no dead letters).
func (r *fileReader) BadRecords() (skipped, deadLettered int64) {
	return r.bad.skipped.Load(), 0
}

// Bytes returns the bytes the reader has read from files
// (connector.ByteCounter).
func (r *fileReader) Bytes() int64 { return r.bytes.Load() }

// Snapshot returns each file's next byte offset.
func (r *fileReader) Snapshot(int64) ([]connector.SplitState, error) {
	out := make([]connector.SplitState, len(r.files))
	for i, f := range r.files {
		out[i] = connector.SplitState{ID: f.id, State: binary.BigEndian.AppendUint64(nil, uint64(f.offset))}
	}
	return out, nil
}

// Close closes the current file, and logs how many skipped records it
// did not log.
func (r *fileReader) Close() error {
	r.bad.close()
	defer r.cancel()
	if r.f != nil {
		return r.f.Close()
	}
	return nil
}
