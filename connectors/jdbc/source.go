package jdbc

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// defaultFetch is the number of rows a Read returns at most when
// scan.fetch-size is not set.
const defaultFetch = 1000

// Source reads a table with a bounded scan: one split, or
// scan.partition.num splits of ranges of scan.partition.column.
type Source struct {
	cfg Config
}

// Source is a connector.Source (checked by the compiler).
var _ connector.Source = (*Source)(nil)

// NewSource returns the source of cfg.
func NewSource(cfg Config) (*Source, error) {
	if cfg.PartitionColumn != "" && !containsField(cfg.Fields, cfg.PartitionColumn) {
		return nil, fmt.Errorf("%w: scan.partition.column %s of table %s is not one of its columns", ErrConfig, cfg.PartitionColumn, cfg.Table)
	}
	return &Source{cfg: cfg}, nil
}

func containsField(fields []types.Field, name string) bool {
	for _, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

// Bounded reports true: the scan ends.
func (s *Source) Bounded() bool { return true }

// Splits returns the scan's splits: "all", or "p<i>" for each partition.
func (s *Source) Splits(ctx context.Context) ([]connector.Split, error) {
	if s.cfg.PartitionColumn == "" {
		return []connector.Split{{ID: "all"}}, nil
	}
	out := make([]connector.Split, s.cfg.PartitionNum)
	for i := range out {
		out[i] = connector.Split{ID: "p" + strconv.Itoa(i)}
	}
	return out, nil
}

// bounds returns the inclusive range of partition i, as Flink's
// NumericBetweenParametersProvider splits [lower, upper] into num ranges:
// the first (upper-lower+1) % num ranges are one longer.
func (s *Source) bounds(i int) (lo, hi int64) {
	n := int64(s.cfg.PartitionNum)
	span := s.cfg.PartitionUpper - s.cfg.PartitionLower + 1
	size, extra := span/n, span%n
	lo = s.cfg.PartitionLower
	for j := int64(0); j < int64(i); j++ {
		lo += size
		if j < extra {
			lo++
		}
	}
	hi = lo + size - 1
	if int64(i) < extra {
		hi++
	}
	return lo, hi
}

// query returns the SELECT of a split, skipping offset rows. Rows are
// ordered (by the primary key, else by every column) so that a restored
// reader skips exactly the rows it already returned.
func (s *Source) query(split string, offset int64) (string, []any) {
	d := s.cfg.DB.Dialect
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, f := range s.cfg.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.quote(f.Name))
	}
	b.WriteString(" FROM " + d.QuoteTable(s.cfg.TableName))
	var args []any
	if split != "all" {
		i, _ := strconv.Atoi(strings.TrimPrefix(split, "p"))
		lo, hi := s.bounds(i)
		b.WriteString(" WHERE " + d.quote(s.cfg.PartitionColumn) + " BETWEEN " + d.Placeholder(1) + " AND " + d.Placeholder(2))
		args = append(args, lo, hi)
	}
	b.WriteString(" ORDER BY ")
	order := s.cfg.PrimaryKey
	if len(order) == 0 {
		for _, f := range s.cfg.Fields {
			order = append(order, f.Name)
		}
	}
	for i, c := range order {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.quote(c))
	}
	if offset > 0 {
		if d == postgres {
			b.WriteString(" OFFSET " + strconv.FormatInt(offset, 10))
		} else {
			b.WriteString(" LIMIT 18446744073709551615 OFFSET " + strconv.FormatInt(offset, 10))
		}
	}
	return b.String(), args
}

// splitState is a split's checkpointed progress: the rows returned so
// far, and whether the split is done.
type splitState struct {
	Offset int64 `json:"offset"`
	Done   bool  `json:"done"`
}

// Open returns a reader of the splits.
func (s *Source) Open(ctx context.Context, task connector.TaskInfo, splits []connector.SplitState) (connector.Reader, error) {
	r := &Reader{s: s}
	for _, sp := range splits {
		st := splitState{}
		if sp.State != nil {
			if err := json.Unmarshal(sp.State, &st); err != nil {
				return nil, fmt.Errorf("jdbc table %s: split %s: bad checkpoint state %q: %w", s.cfg.Table, sp.ID, sp.State, err)
			}
		}
		r.splits = append(r.splits, &readSplit{id: sp.ID, st: st})
	}
	db, err := connect(ctx, s.cfg)
	if err != nil {
		return nil, err
	}
	r.db = db
	have, err := s.cfg.DB.Dialect.TableColumns(ctx, db, s.cfg.TableName)
	if err == nil {
		err = s.cfg.DB.Dialect.CheckColumns(s.cfg.TableName, s.cfg.Fields, have)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("jdbc table %s: %w", s.cfg.Table, err)
	}
	r.ctx, r.cancel = context.WithCancel(ctx)
	return r, nil
}

type readSplit struct {
	id string
	st splitState
}

// Reader reads its splits one after the other, each with one query.
type Reader struct {
	s      *Source
	db     *sql.DB
	splits []*readSplit
	cur    int
	rows   *sql.Rows
	// ctx bounds the open query; it is the reader's (derived from Open's,
	// which ends with the run), not a Read's, so that an interrupted Read
	// does not end the query.
	ctx    context.Context
	cancel context.CancelFunc
}

// Reader is a connector.Reader (checked by the compiler).
var _ connector.Reader = (*Reader)(nil)

// Read returns up to scan.fetch-size rows; io.EOF when every split is done.
func (r *Reader) Read(ctx context.Context) ([]types.Row, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	limit := r.s.cfg.FetchSize
	if limit <= 0 {
		limit = defaultFetch
	}
	fields := r.s.cfg.Fields
	var out []types.Row
	for len(out) < limit {
		for r.cur < len(r.splits) && r.splits[r.cur].st.Done {
			r.cur++
		}
		if r.cur == len(r.splits) {
			break
		}
		sp := r.splits[r.cur]
		if r.rows == nil {
			q, args := r.s.query(sp.id, sp.st.Offset)
			rows, err := r.db.QueryContext(r.ctx, q, args...)
			if err != nil {
				return nil, fmt.Errorf("jdbc table %s: split %s: %w", r.s.cfg.Table, sp.id, err)
			}
			r.rows = rows
		}
		if !r.rows.Next() {
			err := r.rows.Err()
			r.rows.Close()
			r.rows = nil
			if err != nil {
				return nil, fmt.Errorf("jdbc table %s: split %s: %w", r.s.cfg.Table, sp.id, err)
			}
			sp.st.Done = true
			continue
		}
		vals := make([]any, len(fields))
		ptrs := make([]any, len(fields))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("jdbc table %s: split %s, row %d: %w", r.s.cfg.Table, sp.id, sp.st.Offset+1, err)
		}
		row := types.NewRow(len(fields))
		for i, f := range fields {
			v, err := fromDB(f.Type, vals[i])
			if err != nil {
				return nil, fmt.Errorf("jdbc table %s: split %s, row %d, column %s: %w", r.s.cfg.Table, sp.id, sp.st.Offset+1, f.Name, err)
			}
			row.Fields[i] = v
		}
		out = append(out, row)
		sp.st.Offset++
		if ctx.Err() != nil {
			break
		}
	}
	if len(out) == 0 && r.cur == len(r.splits) {
		return nil, io.EOF
	}
	return out, nil
}

// Snapshot returns each split's progress.
func (r *Reader) Snapshot(int64) ([]connector.SplitState, error) {
	out := make([]connector.SplitState, len(r.splits))
	for i, sp := range r.splits {
		b, err := json.Marshal(sp.st)
		if err != nil {
			return nil, err
		}
		out[i] = connector.SplitState{ID: sp.id, State: b}
	}
	return out, nil
}

// Close ends the open query and closes the connections.
func (r *Reader) Close() error {
	if r.rows != nil {
		r.rows.Close()
		r.rows = nil
	}
	if r.cancel != nil {
		r.cancel()
	}
	return r.db.Close()
}
