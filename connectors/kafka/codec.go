package kafka

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connectors/kafka/internal/produce"
	"github.com/streamsql/streamsql/factory"
	"github.com/streamsql/streamsql/types"
)

// errSkipRow is returned (possibly wrapped) by a recordEncoder for a row
// that produces no record, such as an UPDATE_BEFORE row of upsert-kafka.
// The writer drops the row.
var errSkipRow = produce.ErrSkipRow

// layout maps a table's rows onto Kafka records: which row positions the
// key and value formats handle and where the metadata columns are.
//
// The rows of a source have one field per physical and metadata column,
// in schema order (computed columns are not the connector's). The rows of
// a sink have one field per physical and non-virtual metadata column, in
// schema order.
type layout struct {
	table       string
	keyFormat   *factory.Format // nil: records have no key
	valueFormat *factory.Format
	keyFields   []types.Field // as the key format sees them (key.fields-prefix stripped)
	valueFields []types.Field
	upsert      bool

	srcWidth int
	// srcRead says which source row positions the job reads
	// (factory.Context.ReadFields); nil: all. The formats decode only
	// those (see formatRead).
	srcRead []bool
	// srcRows narrows the ROW fields the job reads in part
	// (factory.Context.ReadRows); nil: whole.
	srcRows  []*factory.RowRead
	srcKey   []int // source row positions of the key fields
	srcValue []int
	srcMeta  []metadataColumn
	// srcFormatMeta are the value format's metadata columns
	// ('value.<key>'): fmtMetaKeys[i] goes to row position srcFormatMeta[i].
	srcFormatMeta []int
	fmtMetaKeys   []string
	sinkWidth     int
	sinkKey       []int
	sinkValue     []int
	sinkMeta      []metadataColumn
}

// layoutSpec is what the options say about the mapping.
type layoutSpec struct {
	keyFormat, valueFormat *factory.Format
	keyFields              []string // key.fields, or the primary key (upsert-kafka)
	keyPrefix              string
	exceptKey              bool
	upsert                 bool
}

// newLayout checks the schema against spec and computes the mapping. It
// does not create decoders or encoders (each task creates its own).
func newLayout(ctx factory.Context, spec layoutSpec) (*layout, error) {
	l := &layout{table: ctx.Table, keyFormat: spec.keyFormat, valueFormat: spec.valueFormat, upsert: spec.upsert}
	type phys struct {
		field    types.Field
		src, snk int
	}
	var physical []phys
	byName := map[string]int{}
	for _, c := range ctx.Schema.Columns {
		switch c.Kind {
		case factory.Physical:
			byName[c.Name] = len(physical)
			physical = append(physical, phys{types.Field{Name: c.Name, Type: c.Type}, l.srcWidth, l.sinkWidth})
			l.srcWidth++
			l.sinkWidth++
		case factory.Metadata:
			key := c.MetadataKey
			if key == "" {
				key = c.Name
			}
			if fk, ok := strings.CutPrefix(key, "value."); ok && spec.valueFormat != nil {
				if _, ok := spec.valueFormat.Factory.ReadableMetadata[fk]; ok {
					// The value format's metadata (debezium-json's
					// source.table, ...): read only.
					l.fmtMetaKeys = append(l.fmtMetaKeys, fk)
					l.srcFormatMeta = append(l.srcFormatMeta, l.srcWidth)
					l.srcWidth++
					continue
				}
			}
			mk, err := parseMetadataKey(key)
			if err != nil {
				return nil, fmt.Errorf("column '%s': %w", c.Name, err)
			}
			if !metadataTypeFits(mk, c.Type) {
				return nil, fmt.Errorf("column '%s' of type %s cannot hold Kafka metadata '%s' of type %s", c.Name, c.Type, mk, mk.MetadataType())
			}
			l.srcMeta = append(l.srcMeta, metadataColumn{Key: mk, Index: l.srcWidth})
			l.srcWidth++
			if !c.Virtual {
				l.sinkMeta = append(l.sinkMeta, metadataColumn{Key: mk, Index: l.sinkWidth})
				l.sinkWidth++
			}
		}
	}
	if len(ctx.ReadFields) == l.srcWidth && !ctx.ReadsAll() {
		l.srcRead = ctx.ReadFields
	}
	if len(ctx.ReadRows) == l.srcWidth {
		l.srcRows = ctx.ReadRows
	}
	inKey := make([]bool, len(physical))
	for _, name := range spec.keyFields {
		i, ok := byName[name]
		if !ok {
			what := "'key.fields'"
			if spec.upsert {
				what = "the PRIMARY KEY"
			}
			return nil, fmt.Errorf("column '%s' of %s is not a physical column of the table", name, what)
		}
		if inKey[i] {
			return nil, fmt.Errorf("column '%s' appears twice in 'key.fields'", name)
		}
		inKey[i] = true
		f := physical[i].field
		if spec.keyPrefix != "" {
			stripped, ok := strings.CutPrefix(name, spec.keyPrefix)
			if !ok {
				return nil, fmt.Errorf("all key fields must be prefixed with '%s' when option 'key.fields-prefix' is set, but field '%s' is not prefixed",
					spec.keyPrefix, name)
			}
			f.Name = stripped
		}
		l.keyFields = append(l.keyFields, f)
		l.srcKey = append(l.srcKey, physical[i].src)
		l.sinkKey = append(l.sinkKey, physical[i].snk)
	}
	for i, p := range physical {
		if spec.exceptKey && inKey[i] {
			continue
		}
		l.valueFields = append(l.valueFields, p.field)
		l.srcValue = append(l.srcValue, p.src)
		l.sinkValue = append(l.sinkValue, p.snk)
	}
	return l, nil
}

// metadataTypeFits reports whether a column of type t can hold metadata k
// (Flink allows any type the metadata's type casts to; here: the same
// family, with integers of any width).
func metadataTypeFits(k metadataKey, t types.Type) bool {
	switch k {
	case metaTopic, metaTimestampType:
		return t.IsString()
	case metaPartition, metaOffset, metaLeaderEpoch:
		return t.IsInteger()
	case metaTimestamp:
		return t.IsTimestamp()
	case metaHeaders:
		return t.Kind == types.KindMap && t.Elem != nil && t.Elem.IsString() && t.Value != nil && t.Value.IsBinary()
	}
	return false
}

// rowDecoder decodes records into source rows with the table's formats.
// One per reader: format decoders are not safe for concurrent use.
type rowDecoder struct {
	l        *layout
	key      factory.Decoder // nil: no key format
	value    factory.Decoder
	keyRow   types.Row
	valueRow types.Row
	multi    factory.MultiRowDecoder // value, when its records may hold several rows
	keyed    bool                    // the last record had a key, decoded into keyRow
	// live holds the keys (record key bytes) whose latest record this
	// reader saw is a value (upsert-kafka only): their next value is an
	// UPDATE_AFTER, a value of any other key an INSERT.
	live map[string]struct{}
	// direct is the first source row position of the value fields (and
	// the format's metadata after them) when they occupy one run of
	// positions in order and the format decodes one row per record: the
	// value is then decoded in place into the row, without the copy
	// through valueRow (-1: not so).
	direct int
	view   types.Row // the in-place view's Row, kept to spare an allocation
}

// newDecoder returns the Decoder of one reader.
func (l *layout) newDecoder() (decodeFunc, error) {
	d, err := l.newRowDecoder()
	if err != nil {
		return nil, err
	}
	return d.decode, nil
}

// newValueDecoder returns the Decoder of one reader and, when its key or
// value format can reuse the memory of nested values
// (factory.ValueRecycler), the function that tells them to.
func (l *layout) newValueDecoder() (decodeFunc, func(), error) {
	d, err := l.newRowDecoder()
	if err != nil {
		return nil, nil, err
	}
	var rs []factory.ValueRecycler
	for _, dec := range []factory.Decoder{d.key, d.value} {
		if r, ok := dec.(factory.ValueRecycler); ok {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return d.decode, nil, nil
	}
	return d.decode, func() {
		for _, r := range rs {
			r.RecycleValues()
		}
	}, nil
}

// multiRow reports whether the value format's records may hold several
// rows (a changelog format): the source then reads with a multiRowDecoder.
func (l *layout) multiRow() bool { return l.valueFormat.Factory.Changelog != factory.InsertOnly }

// newRowDecoder returns the decoder of one reader.
func (l *layout) newRowDecoder() (*rowDecoder, error) {
	d := &rowDecoder{l: l}
	var err error
	if l.keyFormat != nil {
		if d.key, err = l.keyFormat.NewNestedDecoder(l.keyFields, l.formatRead(l.srcKey), l.formatRows(l.srcKey), nil); err != nil {
			return nil, fmt.Errorf("key format '%s': %w", l.keyFormat.Identifier(), err)
		}
		d.keyRow = types.NewRow(len(l.keyFields))
	}
	if d.value, err = l.valueFormat.NewNestedDecoder(l.valueFields, l.formatRead(l.srcValue), l.formatRows(l.srcValue), l.fmtMetaKeys); err != nil {
		return nil, fmt.Errorf("value format '%s': %w", l.valueFormat.Identifier(), err)
	}
	d.multi, _ = d.value.(factory.MultiRowDecoder)
	d.valueRow = types.NewRow(len(l.valueFields) + len(l.fmtMetaKeys))
	d.direct = -1
	if d.multi == nil && len(l.srcValue) > 0 && l.contiguousValue() {
		d.direct = l.srcValue[0]
	}
	if l.upsert {
		d.live = map[string]struct{}{}
	}
	return d, nil
}

// formatRead returns which of a format's fields (at source row positions
// pos) the job reads, for factory.Format.NewProjectedDecoder; nil: all.
// An unread field comes out of a projecting format as NULL, so the row
// holds NULL there too.
func (l *layout) formatRead(pos []int) []bool {
	if l.srcRead == nil {
		return nil
	}
	read := make([]bool, len(pos))
	for i, p := range pos {
		read[i] = l.srcRead[p]
	}
	return read
}

// formatRows returns what the job reads of a format's ROW fields (at
// source row positions pos), for factory.Format.NewNestedDecoder; nil:
// whole values.
func (l *layout) formatRows(pos []int) []*factory.RowRead {
	if l.srcRows == nil {
		return nil
	}
	rows := make([]*factory.RowRead, len(pos))
	for i, p := range pos {
		rows[i] = l.srcRows[p]
	}
	return rows
}

// decode fills row (zeroed, of the source width) from a record. Key fields
// are decoded first; under value.fields-include ALL the value's copy of a
// key column wins, as in Flink. For upsert-kafka a value makes an INSERT
// row when its key is new to this reader and an UPDATE_AFTER row when the
// key's previous record was a value; a tombstone makes a DELETE row holding
// only the key columns.
func (d *rowDecoder) decode(key, value []byte, row *types.Row) error {
	d.keyed = d.key != nil && key != nil
	if d.keyed {
		if err := d.key.Decode(key, &d.keyRow); err != nil {
			return fmt.Errorf("key: %w", err)
		}
		for i, pos := range d.l.srcKey {
			row.Fields[pos] = d.keyRow.Fields[i]
		}
	}
	if d.l.upsert && value == nil {
		if d.key == nil || key == nil {
			return fmt.Errorf("tombstone without a key: %w", factory.ErrSkipRecord)
		}
		row.Kind = types.Delete
		delete(d.live, string(key))
		return nil
	}
	if d.direct >= 0 {
		// In place: the view has exactly the value's width, so a decoder
		// that reuses Fields (as Decoder says) writes into row.
		n := len(d.valueRow.Fields)
		view := &d.view
		*view = types.Row{Fields: row.Fields[d.direct : d.direct+n : d.direct+n]}
		err := d.value.Decode(value, view)
		if err == nil && (len(view.Fields) != n || (n > 0 && &view.Fields[0] != &row.Fields[d.direct])) {
			// The decoder made its own slice: copy it.
			copy(row.Fields[d.direct:d.direct+n], view.Fields)
		}
		row.Kind = view.Kind
		view.Fields = nil // hold no row
		if err != nil {
			return fmt.Errorf("value: %w", err)
		}
	} else {
		if err := d.value.Decode(value, &d.valueRow); err != nil {
			return fmt.Errorf("value: %w", err)
		}
		d.fillValue(row)
	}
	if d.l.upsert {
		if _, ok := d.live[string(key)]; ok {
			row.Kind = types.UpdateAfter
		} else {
			row.Kind = types.Insert
			d.live[string(key)] = struct{}{}
		}
	}
	return nil
}

// Decode implements multiRowDecoder.
func (d *rowDecoder) Decode(key, value []byte, row *types.Row) error {
	return d.decode(key, value, row)
}

// Next implements multiRowDecoder: the value format's next row of the record,
// with the key fields of the record.
func (d *rowDecoder) Next(row *types.Row) bool {
	if d.multi == nil || !d.multi.Next(&d.valueRow) {
		return false
	}
	if d.keyed {
		for i, pos := range d.l.srcKey {
			row.Fields[pos] = d.keyRow.Fields[i]
		}
	}
	d.fillValue(row)
	return true
}

// contiguousValue reports whether the value fields, then the value
// format's metadata, occupy consecutive source row positions.
func (l *layout) contiguousValue() bool {
	at := l.srcValue[0]
	for _, pos := range l.srcValue {
		if pos != at {
			return false
		}
		at++
	}
	for _, pos := range l.srcFormatMeta {
		if pos != at {
			return false
		}
		at++
	}
	return at <= l.srcWidth
}

// fillValue copies the decoded value row (and the format's metadata)
// into row.
func (d *rowDecoder) fillValue(row *types.Row) {
	for i, pos := range d.l.srcValue {
		row.Fields[pos] = d.valueRow.Fields[i]
	}
	n := len(d.l.valueFields)
	for i, pos := range d.l.srcFormatMeta {
		row.Fields[pos] = d.valueRow.Fields[n+i]
	}
	row.Kind = d.valueRow.Kind
}

// rowEncoder encodes sink rows into records with the table's formats. One
// per writer.
type rowEncoder struct {
	l        *layout
	key      factory.Encoder // nil: records have no key
	value    factory.Encoder
	keyRow   types.Row
	valueRow types.Row
	// keyAt and valueAt are the first sink row position of the key and
	// value fields when they occupy one run of positions in order: the
	// encoder is then given that part of the row, not a copy (-1: not so).
	// Encoders only read the row.
	keyAt, valueAt int
}

// newEncoder returns the recordEncoder of one writer.
func (l *layout) newEncoder() (recordEncoder, error) {
	e := &rowEncoder{l: l}
	var err error
	if l.keyFormat != nil {
		if e.key, err = l.keyFormat.NewEncoder(l.keyFields); err != nil {
			return nil, fmt.Errorf("key format '%s': %w", l.keyFormat.Identifier(), err)
		}
		e.keyRow = types.NewRow(len(l.keyFields))
	}
	if e.value, err = l.valueFormat.NewEncoder(l.valueFields); err != nil {
		return nil, fmt.Errorf("value format '%s': %w", l.valueFormat.Identifier(), err)
	}
	e.valueRow = types.NewRow(len(l.valueFields))
	e.keyAt, e.valueAt = run(l.sinkKey), run(l.sinkValue)
	return e, nil
}

// run returns pos[0] when pos are consecutive ascending positions, else -1.
func run(pos []int) int {
	for i, p := range pos {
		if p != pos[0]+i {
			return -1
		}
	}
	if len(pos) == 0 {
		return -1
	}
	return pos[0]
}

// view returns the fields of row that fields of a format take: the run of
// len(pos) fields from at, or the fields at pos copied into buf.
func view(row *types.Row, at int, pos []int, buf *types.Row) []types.Value {
	if at >= 0 {
		return row.Fields[at : at+len(pos) : at+len(pos)]
	}
	for i, p := range pos {
		buf.Fields[i] = row.Fields[p]
	}
	return buf.Fields
}

// EncodeRecord implements recordEncoder. Under upsert-kafka a DELETE row
// becomes a tombstone (nil value) and an UPDATE_BEFORE row no record.
func (e *rowEncoder) EncodeRecord(row *types.Row, rec *kgo.Record) error {
	if len(row.Fields) != e.l.sinkWidth {
		return fmt.Errorf("row has %d fields, table '%s' writes %d", len(row.Fields), e.l.table, e.l.sinkWidth)
	}
	if e.l.upsert && row.Kind == types.UpdateBefore {
		return errSkipRow
	}
	var err error
	if e.key != nil {
		key := types.Row{Kind: e.keyRow.Kind, Fields: view(row, e.keyAt, e.l.sinkKey, &e.keyRow)}
		if rec.Key, err = e.key.Encode(rec.Key[:0], key); err != nil {
			return fmt.Errorf("key: %w", err)
		}
	} else {
		rec.Key = nil
	}
	if e.l.upsert && row.Kind == types.Delete {
		rec.Value = nil
		return nil
	}
	value := types.Row{Kind: row.Kind, Fields: view(row, e.valueAt, e.l.sinkValue, &e.valueRow)}
	if e.l.upsert {
		value.Kind = types.Insert
	}
	if rec.Value, err = e.value.Encode(rec.Value[:0], value); err != nil {
		return fmt.Errorf("value: %w", err)
	}
	return nil
}

// newKeyFunc returns the keyFunc of one upsert writer's buffer: the key
// format's encoding of the key columns, which is what Kafka compacts on.
func (l *layout) newKeyFunc() (keyFunc, error) {
	enc, err := l.keyFormat.NewEncoder(l.keyFields)
	if err != nil {
		return nil, fmt.Errorf("key format '%s': %w", l.keyFormat.Identifier(), err)
	}
	keyRow := types.NewRow(len(l.keyFields))
	return func(row *types.Row, buf []byte) []byte {
		for i, pos := range l.sinkKey {
			keyRow.Fields[i] = row.Fields[pos]
		}
		out, err := enc.Encode(buf, keyRow)
		if err != nil {
			// The writer's own encoder reports the error when the row is
			// written; keep the row apart from every other key meanwhile.
			return append(buf, err.Error()...)
		}
		return out
	}, nil
}
