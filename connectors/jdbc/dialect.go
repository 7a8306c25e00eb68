package jdbc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamsql/streamsql/types"
)

// Dialect is what differs between the databases: quoting, upsert syntax,
// the catalog queries and the two-phase commit statements.
type Dialect struct {
	// Name is "postgresql" or "mysql".
	Name string
	// Product is the name shown in messages.
	Product string
	// quote quotes one identifier.
	quote func(string) string
	// upsertTail returns what follows INSERT ... VALUES ... to update the
	// row of a conflicting key.
	upsertTail func(cols, keys []string) string
	// compatible lists, for each Flink type kind, the column data types
	// (information_schema.columns.data_type, lower case) it may be
	// written to and read from.
	compatible map[types.Kind][]string
}

var postgres = &Dialect{
	Name:    "postgresql",
	Product: "PostgreSQL",
	quote:   pgQuote,
	upsertTail: func(cols, keys []string) string {
		var b strings.Builder
		b.WriteString(" ON CONFLICT (")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pgQuote(k))
		}
		b.WriteString(") DO ")
		set := 0
		for _, c := range cols {
			if slices.Contains(keys, c) {
				continue
			}
			if set == 0 {
				b.WriteString("UPDATE SET ")
			} else {
				b.WriteString(", ")
			}
			set++
			q := pgQuote(c)
			b.WriteString(q + " = EXCLUDED." + q)
		}
		if set == 0 {
			b.WriteString("NOTHING")
		}
		return b.String()
	},
	compatible: map[types.Kind][]string{
		types.KindBoolean:      {"boolean"},
		types.KindTinyInt:      {"smallint", "integer", "bigint", "numeric"},
		types.KindSmallInt:     {"smallint", "integer", "bigint", "numeric"},
		types.KindInt:          {"integer", "bigint", "numeric"},
		types.KindBigInt:       {"bigint", "numeric"},
		types.KindFloat:        {"real", "double precision"},
		types.KindDouble:       {"double precision"},
		types.KindDecimal:      {"numeric"},
		types.KindChar:         {"character", "character varying", "text"},
		types.KindVarChar:      {"character varying", "text", "character", "json", "jsonb", "uuid"},
		types.KindBinary:       {"bytea"},
		types.KindVarBinary:    {"bytea"},
		types.KindDate:         {"date"},
		types.KindTime:         {"time without time zone"},
		types.KindTimestamp:    {"timestamp without time zone"},
		types.KindTimestampLTZ: {"timestamp with time zone"},
	},
}

var mysqlDialect = &Dialect{
	Name:    "mysql",
	Product: "MySQL/MariaDB",
	quote:   myQuote,
	upsertTail: func(cols, keys []string) string {
		var b strings.Builder
		b.WriteString(" ON DUPLICATE KEY UPDATE ")
		set := 0
		for _, c := range cols {
			if slices.Contains(keys, c) {
				continue
			}
			if set > 0 {
				b.WriteString(", ")
			}
			set++
			q := myQuote(c)
			b.WriteString(q + " = VALUES(" + q + ")")
		}
		if set == 0 {
			// Every column is a key column: updating one to itself is
			// MySQL's way of doing nothing.
			q := myQuote(keys[0])
			b.WriteString(q + " = " + q)
		}
		return b.String()
	},
	compatible: map[types.Kind][]string{
		types.KindBoolean:      {"tinyint", "bit", "boolean"},
		types.KindTinyInt:      {"tinyint", "smallint", "mediumint", "int", "bigint", "decimal"},
		types.KindSmallInt:     {"smallint", "mediumint", "int", "bigint", "decimal"},
		types.KindInt:          {"int", "bigint", "decimal"},
		types.KindBigInt:       {"bigint", "decimal"},
		types.KindFloat:        {"float", "double"},
		types.KindDouble:       {"double"},
		types.KindDecimal:      {"decimal"},
		types.KindChar:         {"char", "varchar", "text", "tinytext", "mediumtext", "longtext"},
		types.KindVarChar:      {"varchar", "char", "text", "tinytext", "mediumtext", "longtext", "json", "enum"},
		types.KindBinary:       {"binary", "varbinary", "blob", "tinyblob", "mediumblob", "longblob"},
		types.KindVarBinary:    {"varbinary", "binary", "blob", "tinyblob", "mediumblob", "longblob"},
		types.KindDate:         {"date"},
		types.KindTime:         {"time"},
		types.KindTimestamp:    {"datetime", "timestamp"},
		types.KindTimestampLTZ: {"timestamp", "datetime"},
	},
}

func pgQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func myQuote(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// QuoteTable quotes a table name that may be qualified (schema.table).
func (d *Dialect) QuoteTable(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = d.quote(p)
	}
	return strings.Join(parts, ".")
}

// splitTable returns the schema ("" for the connection's default) and the
// table of a possibly qualified name.
func splitTable(name string) (schema, table string) {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// TableColumns returns the data types (lower case) of the columns of
// table, by column name, from information_schema. An empty map means the
// table does not exist or has no columns the user may see.
func (d *Dialect) TableColumns(ctx context.Context, db *sql.DB, table string) (map[string]string, error) {
	schema, name := splitTable(table)
	var q string
	args := []any{name}
	switch {
	case schema != "":
		q = "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? AND table_schema = ?"
		args = append(args, schema)
	case d == postgres:
		q = "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? AND table_schema = current_schema()"
	default:
		q = "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? AND table_schema = DATABASE()"
	}
	if d == postgres {
		q = strings.Replace(strings.Replace(q, "?", "$1", 1), "?", "$2", 1)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var col, typ string
		if err := rows.Scan(&col, &typ); err != nil {
			return nil, err
		}
		out[col] = strings.ToLower(typ)
	}
	return out, rows.Err()
}

// CheckColumns checks the table's physical fields against the target
// table's columns: each must exist and have a type the field's Flink type
// maps to. The error names the column and both types.
func (d *Dialect) CheckColumns(table string, fields []types.Field, have map[string]string) error {
	if len(have) == 0 {
		return fmt.Errorf("%w: %s table %s does not exist, or the user may not see its columns", ErrSchema, d.Product, table)
	}
	var errs []error
	for _, f := range fields {
		dbType, ok := lookupColumn(have, f.Name)
		if !ok {
			names := make([]string, 0, len(have))
			for n := range have {
				names = append(names, n)
			}
			slices.Sort(names)
			errs = append(errs, fmt.Errorf("%w: column %s of the Flink table has no column in %s table %s (its columns: %s)",
				ErrSchema, f.Name, d.Product, table, strings.Join(names, ", ")))
			continue
		}
		ok2, known := d.compatible[f.Type.Kind]
		if !known {
			errs = append(errs, fmt.Errorf("%w: column %s: Flink type %s is not supported by the jdbc connector yet", ErrSchema, f.Name, f.Type.Kind))
			continue
		}
		if !slices.Contains(ok2, dbType) {
			errs = append(errs, fmt.Errorf("%w: column %s: Flink type %s does not map to %s type %s (it maps to %s)",
				ErrSchema, f.Name, f.Type.Kind, d.Product, dbType, strings.Join(ok2, ", ")))
		}
	}
	return errors.Join(errs...)
}

// lookupColumn finds a column by name, exactly or else ignoring case (an
// unquoted PostgreSQL name is folded to lower case, MySQL's are not case
// sensitive).
func lookupColumn(have map[string]string, name string) (string, bool) {
	if t, ok := have[name]; ok {
		return t, true
	}
	for k, t := range have {
		if strings.EqualFold(k, name) {
			return t, true
		}
	}
	return "", false
}

// ErrSchema is wrapped by errors about the target table's columns.
var ErrSchema = errors.New("jdbc table schema mismatch")

// Placeholder returns the n-th (from 1) bind parameter.
func (d *Dialect) Placeholder(n int) string {
	if d == postgres {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}

// maxParams is the most bind parameters one statement may carry
// (PostgreSQL's protocol limit is 65535).
const maxParams = 60000

// typedPlaceholder returns the n-th bind parameter for a value of type t.
// PostgreSQL gets a cast where arg sends text for a non-text type
// (decimals, dates, times, timestamps): the extended protocol sends text
// parameters typed as text, which the server does not assign to a numeric
// or date column without one.
func (d *Dialect) typedPlaceholder(n int, t types.Type) string {
	p := d.Placeholder(n)
	if d != postgres {
		return p
	}
	switch t.Kind {
	case types.KindDecimal:
		return p + "::numeric"
	case types.KindDate:
		return p + "::date"
	case types.KindTime:
		return p + "::time"
	case types.KindTimestamp:
		return p + "::timestamp"
	case types.KindTimestampLTZ:
		return p + "::timestamptz"
	}
	return p
}

// insertSQL returns INSERT INTO table (cols) VALUES (...), ... for rows
// rows, with the upsert tail when keys are set.
func (d *Dialect) insertSQL(table string, cols, keys []string, typs []types.Type, rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(d.QuoteTable(table))
	b.WriteString(" (")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.quote(c))
	}
	b.WriteString(") VALUES ")
	n := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(d.typedPlaceholder(n, typs[i]))
			n++
		}
		b.WriteByte(')')
	}
	if len(keys) > 0 {
		b.WriteString(d.upsertTail(cols, keys))
	}
	return b.String()
}

// deleteSQL returns DELETE FROM table WHERE (k1 = ? AND k2 = ?) OR ... for
// rows keys.
func (d *Dialect) deleteSQL(table string, keys []string, typs []types.Type, rows int) string {
	var b strings.Builder
	b.WriteString("DELETE FROM ")
	b.WriteString(d.QuoteTable(table))
	b.WriteString(" WHERE ")
	n := 1
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('(')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(" AND ")
			}
			b.WriteString(d.quote(k) + " = " + d.typedPlaceholder(n, typs[i]))
			n++
		}
		b.WriteByte(')')
	}
	return b.String()
}

// isUnknownXact reports whether err says that a prepared transaction does
// not exist (PostgreSQL: undefined_object; MySQL: XAER_NOTA).
func isUnknownXact(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "42704"
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1397
	}
	return false
}

// isPermanent reports whether a write error will not go away by retrying:
// constraint violations, type errors, missing tables or privileges.
func isPermanent(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code[:2] {
		case "08", "40", "53", "57", "58", "XX":
			return false // connection, rollback, resources, shutdown, system
		}
		return true
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1205, 1213, 1040, 1053, 2006, 2013:
			return false // lock timeout, deadlock, connections, shutdown, gone
		}
		return true
	}
	return false
}
