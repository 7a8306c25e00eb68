package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/connector"
	"github.com/streamsql/streamsql/types"
)

// The jdbc source is a lookup source: the right input of a lookup join
// (FOR SYSTEM_TIME AS OF a processing-time attribute) looks its rows up
// by key with one SELECT per key, as Flink's JdbcRowDataLookupFunction
// does. Caching (lookup.cache) and retries (lookup.max-retries) are the
// lookup join operator's (ops/lookup); this file only queries.

var _ connector.LookupSource = (*Source)(nil)

// OpenLookup returns a lookuper of the table's rows by the columns keys
// (indexes into the table's physical columns), over a connection pool of
// its own that Close closes.
func (s *Source) OpenLookup(ctx context.Context, task connector.TaskInfo, keys []int) (connector.Lookuper, error) {
	fields := s.cfg.Fields
	for _, k := range keys {
		if k < 0 || k >= len(fields) {
			return nil, fmt.Errorf("jdbc table %s: no lookup key column %d", s.cfg.Table, k)
		}
	}
	db, err := connect(ctx, s.cfg)
	if err != nil {
		return nil, err
	}
	d := s.cfg.DB.Dialect
	have, err := d.TableColumns(ctx, db, s.cfg.TableName)
	if err == nil {
		err = d.CheckColumns(s.cfg.TableName, fields, have)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("jdbc table %s: %w", s.cfg.Table, err)
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.quote(f.Name))
	}
	b.WriteString(" FROM " + d.QuoteTable(s.cfg.TableName) + " WHERE ")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(d.quote(fields[k].Name) + " = " + d.typedPlaceholder(i+1, fields[k].Type))
	}
	stmt, err := db.PrepareContext(ctx, b.String())
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("jdbc table %s: preparing the lookup: %w", s.cfg.Table, err)
	}
	return &lookuper{s: s, db: db, stmt: stmt, keys: keys}, nil
}

// lookuper runs the lookup statement; database/sql makes it safe for
// concurrent use (a connection per lookup in flight).
type lookuper struct {
	s    *Source
	db   *sql.DB
	stmt *sql.Stmt
	keys []int
}

// Lookup appends the rows whose key columns equal key.
func (l *lookuper) Lookup(ctx context.Context, key []types.Value, dst []types.Row) ([]types.Row, error) {
	fields := l.s.cfg.Fields
	args := make([]any, len(key))
	for i, v := range key {
		if v.IsNull() {
			return dst, nil // = NULL matches no row
		}
		a, err := arg(l.s.cfg.DB.Dialect, fields[l.keys[i]].Type, v)
		if err != nil {
			return dst, err
		}
		args[i] = a
	}
	rows, err := l.stmt.QueryContext(ctx, args...)
	if err != nil {
		return dst, fmt.Errorf("jdbc table %s: lookup: %w", l.s.cfg.Table, err)
	}
	defer rows.Close()
	vals := make([]any, len(fields))
	ptrs := make([]any, len(fields))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return dst, fmt.Errorf("jdbc table %s: lookup: %w", l.s.cfg.Table, err)
		}
		row := types.NewRow(len(fields))
		for i, f := range fields {
			v, err := fromDB(f.Type, vals[i])
			if err != nil {
				return dst, fmt.Errorf("jdbc table %s: lookup: column %s: %w", l.s.cfg.Table, f.Name, err)
			}
			row.Fields[i] = v
		}
		dst = append(dst, row)
	}
	if err := rows.Err(); err != nil {
		return dst, fmt.Errorf("jdbc table %s: lookup: %w", l.s.cfg.Table, err)
	}
	return dst, nil
}

// Close closes the statement and the connections.
func (l *lookuper) Close() error {
	l.stmt.Close()
	return l.db.Close()
}
