package cdc

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/formats/json"
	"github.com/streamsql/streamsql/types"
)

// pending is one row of the record being decoded: its kind and its
// physical values (a ROW value of the envelope, which does not alias the
// record).
type pending struct {
	kind types.RowKind
	vals []types.Value
}

// decoder decodes one format's envelopes with a json decoder over the
// envelope's fields, then makes the rows. Not safe for concurrent use.
type decoder struct {
	id     string
	env    factory.Decoder // json over the envelope
	envRow types.Row
	// filter reads only database and table (Canal's include options).
	filter    factory.Decoder
	filterRow types.Row
	n         int // physical fields
	names     []string
	ignore    bool

	// Positions in envRow (-1: not decoded). For Debezium with
	// schema-include, payload is the ROW holding the others.
	schema, payload                  int
	before, after, op                int
	source, tsMs                     int
	data, old, typ, db, table        int
	sqlType, pkNames, ts, es, pkMaxw int
	dbInclude, tableInclude          *regexp.Regexp
	metadata                         []string
	meta                             []types.Value // metadata of the current record
	rows                             []pending
	next                             int
	// nameIndex maps a physical field's name to its position; listed
	// marks the fields the current record's "old" lists (see oldKeys).
	nameIndex map[string]int
	listed    []bool
	// befores holds the UPDATE_BEFORE rows of the current record.
	befores []types.Value
}

func newDecoder(id string, ctx factory.FormatContext) (*decoder, error) {
	d := &decoder{id: id, n: len(ctx.Fields), ignore: ignoreParseErrors.Get(ctx.Options), metadata: ctx.Metadata,
		schema: -1, payload: -1, before: -1, after: -1, op: -1, source: -1, tsMs: -1,
		data: -1, old: -1, typ: -1, db: -1, table: -1, sqlType: -1, pkNames: -1, ts: -1, es: -1, pkMaxw: -1}
	readable := map[string]map[string]types.Type{Debezium: debeziumMetadata, Canal: canalMetadata, Maxwell: maxwellMetadata}[id]
	for _, k := range ctx.Metadata {
		if _, ok := readable[k]; !ok {
			return nil, fmt.Errorf("format '%s' has no metadata '%s'", id, k)
		}
	}
	d.nameIndex = make(map[string]int, len(ctx.Fields))
	for i, f := range ctx.Fields {
		d.names = append(d.names, f.Name)
		d.nameIndex[f.Name] = i
	}
	d.listed = make([]bool, len(ctx.Fields))
	phys := types.RowType(ctx.Fields...)
	var fields []types.Field
	add := func(pos *int, name string, t types.Type) {
		*pos = len(fields)
		fields = append(fields, types.Field{Name: name, Type: t})
	}
	wants := func(keys ...string) bool {
		for _, m := range ctx.Metadata {
			for _, k := range keys {
				if m == k {
					return true
				}
			}
		}
		return false
	}
	switch id {
	case Debezium:
		add(&d.before, "before", phys)
		add(&d.after, "after", phys)
		add(&d.op, "op", types.String())
		if wants("source.timestamp", "source.database", "source.schema", "source.table", "source.properties") {
			add(&d.source, "source", strMap)
		}
		if wants("ingestion-timestamp") {
			add(&d.tsMs, "ts_ms", types.BigInt())
		}
		if SchemaInclude.Get(ctx.Options) {
			inner := fields
			fields = nil
			if wants("schema") {
				add(&d.schema, "schema", types.String())
			}
			add(&d.payload, "payload", types.RowType(inner...))
		} else if wants("schema") {
			return nil, fmt.Errorf("metadata 'schema' of format '%s' needs 'debezium-json.schema-include' = 'true'", id)
		}
	case Canal:
		add(&d.data, "data", types.Array(phys))
		add(&d.old, "old", types.Array(phys))
		add(&d.typ, "type", types.String())
		add(&d.db, "database", types.String())
		add(&d.table, "table", types.String())
		if wants("sql-type") {
			add(&d.sqlType, "sqlType", intMap)
		}
		if wants("pk-names") {
			add(&d.pkNames, "pkNames", strArray)
		}
		if wants("ingestion-timestamp") {
			add(&d.ts, "ts", types.BigInt())
		}
		if wants("event-timestamp") {
			add(&d.es, "es", types.BigInt())
		}
		var err error
		if v, ok := DatabaseInclude.Lookup(ctx.Options); ok {
			if d.dbInclude, err = compileInclude(v); err != nil {
				return nil, err
			}
		}
		if v, ok := TableInclude.Lookup(ctx.Options); ok {
			if d.tableInclude, err = compileInclude(v); err != nil {
				return nil, err
			}
		}
	case Maxwell:
		add(&d.data, "data", phys)
		add(&d.old, "old", phys)
		add(&d.typ, "type", types.String())
		add(&d.db, "database", types.String())
		add(&d.table, "table", types.String())
		if wants("primary-key-columns") {
			add(&d.pkMaxw, "primary_key_columns", strArray)
		}
		if wants("ingestion-timestamp") {
			add(&d.ts, "ts", types.BigInt())
		}
	}
	if d.dbInclude != nil || d.tableInclude != nil {
		ff := []types.Field{{Name: "database", Type: types.String()}, {Name: "table", Type: types.String()}}
		f, err := json.NewDecoder(factory.FormatContext{Table: ctx.Table, Fields: ff, Options: ctx.Options})
		if err != nil {
			return nil, err
		}
		d.filter, d.filterRow = f, types.NewRow(2)
	}
	env, err := json.NewDecoder(factory.FormatContext{Table: ctx.Table, Fields: fields, Options: ctx.Options})
	if err != nil {
		return nil, err
	}
	if len(ctx.ReadFields) == len(ctx.Fields) || ctx.ReadRows != nil {
		// Projection: the row's unread fields, and the unread fields of
		// its ROW fields, are skipped in before, after, data and old
		// (Flink's change-event formats are projectable too).
		json.ProjectRows(env, phys, ctx.ReadFields, ctx.ReadRows)
	}
	d.env = env
	d.envRow = types.NewRow(len(fields))
	d.meta = make([]types.Value, len(ctx.Metadata))
	return d, nil
}

// fail is a decode error of the record, or a skip with ignore-parse-errors.
func (d *decoder) fail(format string, args ...any) error {
	err := &factory.DecodeError{Format: d.id, Err: fmt.Errorf(format, args...)}
	if d.ignore {
		return fmt.Errorf("%w: %v", factory.ErrSkipRecord, err)
	}
	return err
}

var errNoRow = fmt.Errorf("%w: the record holds no row", factory.ErrSkipRecord)

// Decode implements factory.Decoder: it fills row with the record's first
// row; Next returns the others.
func (d *decoder) Decode(data []byte, row *types.Row) error {
	d.rows = d.rows[:0]
	d.befores = d.befores[:0]
	d.next = 0
	if t := bytes.TrimSpace(data); len(t) == 4 && string(t) == "null" {
		// Flink fails on it (only an empty record, a Kafka tombstone, is
		// no row).
		return d.fail("the record is JSON null")
	}
	if d.filter != nil {
		// Canal's database.include and table.include are applied before
		// the rows are read, as in Flink: a record of another table is
		// skipped even when its rows would not decode.
		if err := d.filter.Decode(data, &d.filterRow); err != nil {
			return d.envError(err)
		}
		db, table := d.filterRow.Fields[0], d.filterRow.Fields[1]
		if d.dbInclude != nil && (db.IsNull() || !d.dbInclude.MatchString(db.Str())) ||
			d.tableInclude != nil && (table.IsNull() || !d.tableInclude.MatchString(table.Str())) {
			return errNoRow
		}
	}
	if err := d.env.Decode(data, &d.envRow); err != nil {
		return d.envError(err)
	}
	env := d.envRow.Fields
	var err error
	switch d.id {
	case Debezium:
		err = d.debezium(env)
	case Canal:
		err = d.canal(env, data)
	case Maxwell:
		err = d.maxwell(env, data)
	}
	if err != nil {
		return err
	}
	if len(d.rows) == 0 {
		return errNoRow
	}
	d.fill(row)
	return nil
}

// envError is an error of the envelope's json decoder, named as the
// format's.
func (d *decoder) envError(err error) error {
	var de *factory.DecodeError
	if errors.As(err, &de) && !errors.Is(err, factory.ErrSkipRecord) {
		c := *de
		c.Format = d.id
		return &c
	}
	return err // skipped: empty (a tombstone), or ignored
}

// Next implements factory.MultiRowDecoder.
func (d *decoder) Next(row *types.Row) bool {
	if d.next >= len(d.rows) {
		return false
	}
	d.fill(row)
	return true
}

func (d *decoder) fill(row *types.Row) {
	p := d.rows[d.next]
	d.next++
	w := d.n + len(d.meta)
	if cap(row.Fields) >= w {
		row.Fields = row.Fields[:w]
	} else {
		row.Fields = make([]types.Value, w)
	}
	row.Kind = p.kind
	copy(row.Fields, p.vals)
	clear(row.Fields[len(p.vals):d.n])
	copy(row.Fields[d.n:], d.meta)
}

func (d *decoder) add(kind types.RowKind, v types.Value) {
	d.rows = append(d.rows, pending{kind: kind, vals: v.List()})
}

func (d *decoder) debezium(env []types.Value) error {
	if d.payload >= 0 {
		if d.schema >= 0 {
			d.setMeta("schema", env[d.schema])
		}
		p := env[d.payload]
		if p.IsNull() {
			return d.fail(`the record has no "payload" (is debezium-json.schema-include right?)`)
		}
		env = p.List()
	}
	op := env[d.op]
	if op.IsNull() {
		return d.fail(`the record has no "op" field`)
	}
	before, after := env[d.before], env[d.after]
	switch op.Str() {
	case "c", "r":
		if after.IsNull() {
			return d.fail(`the "after" field of a %q message is null`, op.Str())
		}
		d.add(types.Insert, after)
	case "u":
		if before.IsNull() {
			return d.fail(`the "before" field of an UPDATE message is null; with Debezium's Postgres connector, set the table's REPLICA IDENTITY to FULL`)
		}
		if after.IsNull() {
			return d.fail(`the "after" field of an UPDATE message is null`)
		}
		d.add(types.UpdateBefore, before)
		d.add(types.UpdateAfter, after)
	case "d":
		if before.IsNull() {
			return d.fail(`the "before" field of a DELETE message is null; with Debezium's Postgres connector, set the table's REPLICA IDENTITY to FULL`)
		}
		d.add(types.Delete, before)
	default:
		return d.fail(`unknown "op" value %q`, op.Str())
	}
	if len(d.meta) > 0 {
		d.debeziumMeta(env)
	}
	return nil
}

func (d *decoder) debeziumMeta(env []types.Value) {
	var src *types.MapData
	if d.source >= 0 && !env[d.source].IsNull() {
		src = env[d.source].Map()
	}
	get := func(k string) types.Value {
		if src == nil {
			return types.Value{}
		}
		for i, key := range src.Keys {
			if key.Str() == k {
				return src.Values[i]
			}
		}
		return types.Value{}
	}
	for i, k := range d.metadata {
		var v types.Value
		switch k {
		case "schema":
			continue
		case "ingestion-timestamp":
			if d.tsMs >= 0 && !env[d.tsMs].IsNull() {
				v = timestamp(env[d.tsMs].Int64())
			}
		case "source.timestamp":
			if s := get("ts_ms"); !s.IsNull() {
				if ms, err := strconv.ParseInt(s.Str(), 10, 64); err == nil {
					v = timestamp(ms)
				}
			}
		case "source.database":
			v = get("db")
		case "source.schema":
			v = get("schema")
		case "source.table":
			if v = get("table"); v.IsNull() {
				v = get("collection")
			}
		case "source.properties":
			if src != nil {
				v = env[d.source]
			}
		}
		d.meta[i] = v
	}
}

func (d *decoder) setMeta(key string, v types.Value) {
	for i, k := range d.metadata {
		if k == key {
			d.meta[i] = v
		}
	}
}

func (d *decoder) canal(env []types.Value, raw []byte) error {
	if env[d.typ].IsNull() {
		return d.fail(`the record has no "type" field`)
	}
	typ := env[d.typ].Str()
	switch typ {
	case "INSERT", "UPDATE", "DELETE":
	case "CREATE":
		return errNoRow // a DDL event
	default:
		return d.fail(`unknown "type" value %q`, typ)
	}
	if env[d.data].IsNull() {
		return d.fail(`the "data" field of a %s message is null`, typ)
	}
	data := env[d.data].List()
	switch typ {
	case "INSERT":
		for _, v := range data {
			d.add(types.Insert, v)
		}
	case "DELETE":
		for _, v := range data {
			d.add(types.Delete, v)
		}
	case "UPDATE":
		if env[d.old].IsNull() {
			return d.fail(`the "old" field of an UPDATE message is null`)
		}
		old := env[d.old].List()
		if len(old) < len(data) {
			return d.fail(`the "old" field of an UPDATE message has %d rows, "data" %d`, len(old), len(data))
		}
		// As Flink (JsonNode.findValue over "old"): a field named in any
		// row of "old", at any depth, counts as changed.
		if err := oldKeys(raw, d.nameIndex, d.listed); err != nil {
			return d.fail("reading the \"old\" field: %v", err)
		}
		for i, v := range data {
			d.update(old[i], v)
		}
	}
	if len(d.meta) > 0 {
		for i, k := range d.metadata {
			var v types.Value
			switch k {
			case "database":
				v = env[d.db]
			case "table":
				v = env[d.table]
			case "sql-type":
				v = env[d.sqlType]
			case "pk-names":
				v = env[d.pkNames]
			case "ingestion-timestamp":
				if !env[d.ts].IsNull() {
					v = timestamp(env[d.ts].Int64())
				}
			case "event-timestamp":
				if !env[d.es].IsNull() {
					v = timestamp(env[d.es].Int64())
				}
			}
			d.meta[i] = v
		}
	}
	return nil
}

// update adds the UPDATE_BEFORE and UPDATE_AFTER rows of after, the
// before-row being old with each NULL field that "old" does not list
// (d.listed) taken from after (unchanged).
func (d *decoder) update(old, after types.Value) {
	bv := old.List()
	av := after.List()
	// The before-rows of a record share one buffer, reused by the next
	// record (fill copies the values out).
	start := len(d.befores)
	d.befores = append(d.befores, make([]types.Value, d.n)...)
	before := d.befores[start : start+d.n : start+d.n]
	copy(before, bv)
	for f := range before {
		if before[f].IsNull() && f < len(av) && !d.listed[f] {
			before[f] = av[f]
		}
	}
	d.rows = append(d.rows, pending{kind: types.UpdateBefore, vals: before}, pending{kind: types.UpdateAfter, vals: av})
}

func (d *decoder) maxwell(env []types.Value, raw []byte) error {
	if env[d.typ].IsNull() {
		return d.fail(`the record has no "type" field`)
	}
	typ := env[d.typ].Str()
	data := env[d.data]
	switch typ {
	case "insert", "update", "delete":
		if data.IsNull() {
			return d.fail(`the "data" field of a %s message is null`, typ)
		}
	default:
		return d.fail(`unknown "type" value %q`, typ)
	}
	switch typ {
	case "insert":
		d.add(types.Insert, data)
	case "delete":
		d.add(types.Delete, data)
	case "update":
		old := env[d.old]
		if old.IsNull() {
			return d.fail(`the "old" field of an update message is null`)
		}
		if err := oldKeys(raw, d.nameIndex, d.listed); err != nil {
			return d.fail("reading the \"old\" field: %v", err)
		}
		d.update(old, data)
	}
	if len(d.meta) > 0 {
		for i, k := range d.metadata {
			var v types.Value
			switch k {
			case "database":
				v = env[d.db]
			case "table":
				v = env[d.table]
			case "primary-key-columns":
				v = env[d.pkMaxw]
			case "ingestion-timestamp":
				if !env[d.ts].IsNull() {
					v = timestamp(env[d.ts].Int64() * 1000) // Maxwell's ts is in seconds
				}
			}
			d.meta[i] = v
		}
	}
	return nil
}
